package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

/**
 * A data source for tests that wraps a pool and makes the next statement whose SQL
 * contains a marker misbehave, once per {@link #arm}: held back before it is sent, its
 * answer held back after it ran (and committed, in auto-commit), or its answer lost after
 * it ran (the driver's "connection broken", as when the connection dies between the
 * commit and the answer).
 */
final class AnswerFaults {

	/** What the armed statement does. */
	enum Fault {

		/** Waits for the fault's release before it is sent. */
		HOLD_BEFORE,

		/** Runs, then waits for the fault's release before its answer is read. */
		HOLD_ANSWER,

		/** Runs, then throws as a broken connection would: its answer is lost. */
		LOSE_ANSWER

	}

	/** One armed fault: fires once, at the first statement that matches. */
	static final class Armed {

		private final String marker;

		private final Fault fault;

		private final CountDownLatch reached = new CountDownLatch(1);

		private final CountDownLatch released = new CountDownLatch(1);

		Armed(String marker, Fault fault) {
			this.marker = marker;
			this.fault = fault;
		}

		/** Waits until a statement met the fault. */
		void awaitReached() throws InterruptedException {
			if (!this.reached.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("No statement with '" + this.marker + "' came");
			}
		}

		/** Lets a held statement (or answer) go on. */
		void release() {
			this.released.countDown();
		}

		private void hold() throws SQLException {
			this.reached.countDown();
			try {
				if (!this.released.await(60, TimeUnit.SECONDS)) {
					throw new SQLException("The test never released its fault");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException(ex);
			}
		}

	}

	private final DataSource pool;

	private final List<Armed> armed = new CopyOnWriteArrayList<>();

	AnswerFaults(DataSource pool) {
		this.pool = pool;
	}

	/** Arms a fault for the next statement whose SQL contains {@code marker}. */
	Armed arm(String marker, Fault fault) {
		Armed armedFault = new Armed(marker, fault);
		this.armed.add(armedFault);
		return armedFault;
	}

	/** The data source for the queue under test. */
	DataSource dataSource() {
		return proxy(DataSource.class, this.pool, (method, args, call) -> {
			Object result = call.invoke();
			return method.getName().equals("getConnection") ? connection((Connection) result) : result;
		});
	}

	private Connection connection(Connection connection) {
		return proxy(Connection.class, connection, (method, args, call) -> {
			Object result = call.invoke();
			if (method.getName().equals("prepareStatement")) {
				Armed fault = take((String) args[0]);
				if (fault != null) {
					return statement((PreparedStatement) result, fault);
				}
			}
			return result;
		});
	}

	private Armed take(String sql) {
		for (Armed fault : this.armed) {
			if (sql.contains(fault.marker) && this.armed.remove(fault)) {
				return fault;
			}
		}
		return null;
	}

	private static PreparedStatement statement(PreparedStatement statement, Armed fault) {
		return proxy(PreparedStatement.class, statement, (method, args, call) -> {
			boolean runs = method.getName().startsWith("execute");
			if (runs && fault.fault == Fault.HOLD_BEFORE) {
				fault.hold();
			}
			Object result = call.invoke();
			if (runs && fault.fault == Fault.HOLD_ANSWER) {
				fault.hold();
			}
			if (runs && fault.fault == Fault.LOSE_ANSWER) {
				fault.reached.countDown();
				throw new SQLException("The test lost the answer", "08006");
			}
			return result;
		});
	}

	/** A call through a proxy. */
	@FunctionalInterface
	private interface Handler {

		Object handle(Method method, Object[] args, Call call) throws Throwable;

	}

	/** The call to the wrapped object. */
	@FunctionalInterface
	private interface Call {

		Object invoke() throws Throwable;

	}

	private static <T> T proxy(Class<T> type, T target, Handler handler) {
		return type.cast(Proxy.newProxyInstance(AnswerFaults.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> handler.handle(method, args, () -> {
					try {
						return method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				})));
	}

}

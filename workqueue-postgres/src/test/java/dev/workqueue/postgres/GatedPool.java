package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * A pool whose first connection taken by an adder thread (named {@code adder-…}) waits
 * for a latch: the leader's batch is held while the other adds queue behind it. Counts
 * the adders' connections, one per batch.
 */
final class GatedPool {

	private GatedPool() {
	}

	static DataSource gate(DataSource pool, CountDownLatch release, AtomicInteger batches) {
		return (DataSource) Proxy.newProxyInstance(GatedPool.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")
							&& Thread.currentThread().getName().startsWith("adder-")
							&& batches.incrementAndGet() == 1) {
						release.await();
					}
					try {
						return method.invoke(pool, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}

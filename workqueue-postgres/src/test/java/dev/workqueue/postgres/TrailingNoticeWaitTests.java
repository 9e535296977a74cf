package dev.workqueue.postgres;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.SocketFactory;

import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link TrailingNoticeWait} on the driver this build manages: pgjdbc's 1 ms read after
 * each notice is gone, and back once restored (told by the socket timeouts the driver
 * sets: that read is the one that sets 1 ms).
 */
@RequiresPostgres
class TrailingNoticeWaitTests {

	private static final String CHANNEL = "wq_trailing_wait_" + ProcessHandle.current().pid();

	@Test
	void aNoticeReadNoLongerWaitsForMoreOnTheManagedDriver() throws Exception {
		try (Connection listening = connectRecordingTimeouts()) {
			listen(listening);
			RecordingSocket socket = RecordingSocket.last;

			// pgjdbc as it comes: after the notice, a read with a 1 ms timeout.
			receiveOneNotice(listening, socket);
			assertThat(socket.oneMillisecondTimeouts.get()).isPositive();

			assertThat(TrailingNoticeWait.remove(listening)).isTrue();
			socket.oneMillisecondTimeouts.set(0);
			receiveOneNotice(listening, socket);
			assertThat(socket.oneMillisecondTimeouts.get()).isZero();

			// Put back before the connection goes (to a pool, perhaps): as pgjdbc made
			// it.
			TrailingNoticeWait.restore(listening);
			receiveOneNotice(listening, socket);
			assertThat(socket.oneMillisecondTimeouts.get()).isPositive();
		}
	}

	@Test
	void theListenerTakesTheWaitOffAndPutsItBackBeforeItLetsTheConnectionGo() throws Exception {
		try (Connection physical = connectRecordingTimeouts()) {
			RecordingSocket socket = RecordingSocket.last;
			// As a pool's connection: closing it gives it back, it stays open.
			Connection pooled = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { Connection.class },
					(proxy, method, args) -> method.getName().equals("close") ? null : method.invoke(physical, args));
			String channel = Notices.channel("wq_trailing_wait_" + ProcessHandle.current().pid());
			Notices notices = Notices.acquire(new Object(), () -> pooled);
			NoticesTests.Recorder recorder = new NoticesTests.Recorder();
			try {
				notices.subscribe(channel, "queue", "subscriber", recorder);
				await().atMost(Duration.ofSeconds(5)).until(() -> recorder.missed.get() == 1);
				socket.oneMillisecondTimeouts.set(0);
				NoticesTests.notify(channel, Notices.payload("queue", 0));
				await().atMost(Duration.ofSeconds(5)).until(() -> recorder.dues().contains(0L));
				assertThat(socket.oneMillisecondTimeouts.get()).isZero();
			}
			finally {
				notices.release();
			}

			listen(physical);
			receiveOneNotice(physical, socket);
			assertThat(socket.oneMillisecondTimeouts.get()).isPositive();
		}
	}

	@Test
	void aConnectionOfAnotherKindIsLeftAsItIs() {
		Connection other = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					throw new SQLException("not a wrapper for " + args[0]);
				});
		assertThat(TrailingNoticeWait.remove(other)).isFalse();
	}

	private static void listen(Connection connection) throws SQLException {
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			statement.execute("LISTEN " + CHANNEL);
		}
	}

	/** Sends one notice from another connection and reads it on {@code listening}. */
	private static void receiveOneNotice(Connection listening, RecordingSocket socket) throws SQLException {
		try (Connection sending = PostgresDatabase.connect(); Statement statement = sending.createStatement()) {
			statement.execute("SELECT pg_notify('" + CHANNEL + "', 'x')");
		}
		PGNotification[] notices = null;
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while ((notices == null || notices.length == 0) && System.nanoTime() < deadline) {
			notices = listening.unwrap(PGConnection.class).getNotifications(200);
		}
		assertThat(notices).as("the notice").isNotEmpty();
	}

	private static Connection connectRecordingTimeouts() throws SQLException {
		String url = PostgresDatabase.URL;
		return DriverManager.getConnection(
				url + (url.contains("?") ? "&" : "?") + "socketFactory=" + RecordingSocketFactory.class.getName());
	}

	/** Makes {@link RecordingSocket}s; pgjdbc instantiates it by name. */
	public static final class RecordingSocketFactory extends SocketFactory {

		@Override
		public Socket createSocket() {
			RecordingSocket socket = new RecordingSocket();
			RecordingSocket.last = socket;
			return socket;
		}

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			throw new IOException("unconnected sockets only");
		}

		@Override
		public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
			throw new IOException("unconnected sockets only");
		}

		@Override
		public Socket createSocket(InetAddress host, int port) throws IOException {
			throw new IOException("unconnected sockets only");
		}

		@Override
		public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
				throws IOException {
			throw new IOException("unconnected sockets only");
		}

	}

	/** A socket that counts the times its read timeout is set to 1 ms. */
	static final class RecordingSocket extends Socket {

		static volatile RecordingSocket last;

		final AtomicInteger oneMillisecondTimeouts = new AtomicInteger();

		@Override
		public synchronized void setSoTimeout(int timeout) throws SocketException {
			if (timeout == 1) {
				this.oneMillisecondTimeouts.incrementAndGet();
			}
			super.setSoTimeout(timeout);
		}

	}

}

package dev.workqueue.shared;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on the loopback interface in front of a store's server, through which a
 * test routes one handle's connections to make the faults of a network or a slow machine,
 * whatever the store: {@linkplain #holdAnswerTo an answer that comes late} (the request
 * runs at once), a {@linkplain #stall stalled link} (nothing passes either way, as while
 * the handle's JVM is paused or its network is down) and {@linkplain #cut cut
 * connections} (as after {@code pg_terminate_backend} or {@code CLIENT KILL}; the client
 * reconnects through the proxy).
 * <p>
 * Each connection is a {@link Link} with two pipe threads, one per direction; a pipe
 * reads a chunk, waits while its direction is held (the hold deadlines are volatile, read
 * before each write), then writes it, so a hold keeps the bytes in order and loses none.
 * A request is recognised by a marker within the chunk it is read in (a request a client
 * writes at once is one chunk on the loopback interface). The pipes are daemon threads
 * named {@code fault-proxy-*}, ended by {@link #close()}.
 */
public final class FaultProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final List<Link> links = new CopyOnWriteArrayList<>();

	/** Until when requests (client to server) are held, in {@link System#nanoTime()}. */
	private volatile long requestsHeldUntil = System.nanoTime();

	/** The armed hold of the answer to a marked request, if any. */
	private final AtomicReference<HeldAnswer> heldAnswer = new AtomicReference<>();

	/**
	 * Starts a proxy in front of {@code target}.
	 * @param target the store's server
	 * @throws IOException if no port can be bound
	 */
	public FaultProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "fault-proxy-accept-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** The port a handle connects to instead of the server's. */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Holds up the answer to the next request that carries {@code marker}: from the
	 * moment the request passes (it runs on the server at once), the answers on its
	 * connection reach the client only after {@code duration}.
	 * @param marker text the request carries on the wire (ASCII)
	 * @param duration how long to hold its answer
	 */
	public void holdAnswerTo(String marker, Duration duration) {
		this.heldAnswer.set(new HeldAnswer(marker.getBytes(StandardCharsets.ISO_8859_1), duration));
	}

	/**
	 * From now on for {@code duration}, nothing passes in either direction on any
	 * connection.
	 * @param duration how long the link stalls
	 */
	public void stall(Duration duration) {
		long until = System.nanoTime() + duration.toNanos();
		this.requestsHeldUntil = until;
		this.links.forEach((link) -> link.answersHeldUntil = until);
	}

	/** Ends every hold at once. */
	public void release() {
		long now = System.nanoTime();
		this.heldAnswer.set(null);
		this.requestsHeldUntil = now;
		this.links.forEach((link) -> link.answersHeldUntil = now);
	}

	/**
	 * Closes every connection open through the proxy now; later connections pass.
	 * @return how many connections were cut
	 */
	public int cut() {
		int cut = 0;
		for (Link link : this.links) {
			link.close();
			cut++;
		}
		return cut;
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target, 5000);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				Link link = new Link(client, upstream, this.requestsHeldUntil);
				this.links.add(link);
				pipe(link, true);
				pipe(link, false);
			}
			catch (IOException ex) {
				// Closed, or the server refused: the client sees its connection fail.
			}
		}
	}

	private void pipe(Link link, boolean requests) {
		Socket from = requests ? link.client : link.upstream;
		Socket to = requests ? link.upstream : link.client;
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16384];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					if (requests) {
						holdAnswerIfMarked(buffer, read, link);
					}
					waitWhileHeld(requests, link);
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Cut, or closed by either end.
			}
			finally {
				link.close();
				this.links.remove(link);
			}
		}, "fault-proxy-" + (requests ? "requests-" : "answers-") + port());
		thread.setDaemon(true);
		thread.start();
	}

	private void holdAnswerIfMarked(byte[] request, int length, Link link) {
		HeldAnswer armed = this.heldAnswer.get();
		if (armed != null && armed.carriedBy(request, length) && this.heldAnswer.compareAndSet(armed, null)) {
			link.answersHeldUntil = System.nanoTime() + armed.duration().toNanos();
		}
	}

	private void waitWhileHeld(boolean requests, Link link) {
		for (long wait = heldUntil(requests, link) - System.nanoTime(); wait > 0
				&& !this.server.isClosed(); wait = heldUntil(requests, link) - System.nanoTime()) {
			// The hold is the fault itself (a slow link), not a wait for a condition.
			LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(10)));
		}
	}

	private long heldUntil(boolean requests, Link link) {
		return requests ? this.requestsHeldUntil : link.answersHeldUntil;
	}

	@Override
	public void close() {
		release();
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
		cut();
	}

	/** One connection through the proxy: its two sockets, until when its answers wait. */
	private static final class Link {

		final Socket client;

		final Socket upstream;

		volatile long answersHeldUntil;

		Link(Socket client, Socket upstream, long answersHeldUntil) {
			this.client = client;
			this.upstream = upstream;
			this.answersHeldUntil = answersHeldUntil;
		}

		void close() {
			closeQuietly(this.client);
			closeQuietly(this.upstream);
		}

		private static void closeQuietly(Socket socket) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// Closing anyway.
			}
		}

	}

	/** An armed hold of the answer to a request that carries {@code marker}. */
	private record HeldAnswer(byte[] marker, Duration duration) {

		boolean carriedBy(byte[] request, int length) {
			for (int at = 0; at + this.marker.length <= length; at++) {
				if (Arrays.equals(request, at, at + this.marker.length, this.marker, 0, this.marker.length)) {
					return true;
				}
			}
			return false;
		}

	}

}

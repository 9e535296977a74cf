package dev.workqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of a Redis that loses one answer: once {@linkplain #dropReplyTo
 * armed} with a marker, the first connection whose request carries the marker is closed
 * when the answer to it comes back, before the client sees it. The command ran; the
 * client reconnects (through the proxy again) and Lettuce sends it again, as after a real
 * network failure. It can also {@linkplain #holdReplyTo hold} one answer back until the
 * test lets it through, as a slow link would, and {@linkplain #requestsWith() count} the
 * requests that carry a marker.
 */
final class ReplyDroppingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final AtomicReference<String> marker = new AtomicReference<>();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicReference<HeldReply> held = new AtomicReference<>();

	/** The requests counted per marker. */
	private final Map<String, AtomicInteger> counted = new ConcurrentHashMap<>();

	private volatile int dropped;

	/** A reply to hold back: the request that asks for it, and when to let it through. */
	private record HeldReply(String marker, CountDownLatch release) {

	}

	ReplyDroppingProxy(int targetPort) throws IOException {
		this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "reply-dropping-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/** Drops the answer to the next request that carries {@code requestMarker}. */
	void dropReplyTo(String requestMarker) {
		this.marker.set(requestMarker);
	}

	/**
	 * Holds the answer to the next request that carries {@code requestMarker} (and what
	 * comes after it on its connection) until {@code release} is counted down.
	 */
	void holdReplyTo(String requestMarker, CountDownLatch release) {
		this.held.set(new HeldReply(requestMarker, release));
	}

	/** Counts the requests that carry {@code requestMarker} from now on. */
	void count(String requestMarker) {
		this.counted.putIfAbsent(requestMarker, new AtomicInteger());
	}

	/** How many requests carried the markers given to {@link #count}, all together. */
	int requestsWith() {
		return this.counted.values().stream().mapToInt(AtomicInteger::get).sum();
	}

	/** How many requests carried {@code requestMarker}, given to {@link #count}. */
	int requestsWith(String requestMarker) {
		return this.counted.get(requestMarker).get();
	}

	/** How many answers were dropped. */
	int dropped() {
		return this.dropped;
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target);
				this.sockets.add(client);
				this.sockets.add(upstream);
				Connection connection = new Connection(client, upstream);
				start(() -> connection.pump(client, upstream, true));
				start(() -> connection.pump(upstream, client, false));
			}
			catch (IOException ex) {
				// Closed.
			}
		}
	}

	private static void start(Runnable pump) {
		Thread thread = new Thread(pump, "reply-dropping-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

	/** One proxied connection: whether its next answer is to be dropped. */
	private final class Connection {

		private final Socket client;

		private final Socket upstream;

		private volatile boolean dropNextReply;

		private volatile CountDownLatch holdNextReply;

		Connection(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		private void count(String request) {
			ReplyDroppingProxy.this.counted.forEach((marker, count) -> {
				for (int at = request.indexOf(marker); at >= 0; at = request.indexOf(marker, at + 1)) {
					count.incrementAndGet();
				}
			});
		}

		private void awaitRelease(CountDownLatch release) {
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void pump(Socket from, Socket to, boolean requests) {
			byte[] buffer = new byte[64 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					if (requests) {
						String request = new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
						count(request);
						HeldReply hold = ReplyDroppingProxy.this.held.get();
						if (hold != null && request.contains(hold.marker())
								&& ReplyDroppingProxy.this.held.compareAndSet(hold, null)) {
							this.holdNextReply = hold.release();
						}
						String wanted = ReplyDroppingProxy.this.marker.get();
						if (wanted != null && request.contains(wanted)
								&& ReplyDroppingProxy.this.marker.compareAndSet(wanted, null)) {
							this.dropNextReply = true;
						}
					}
					else if (this.holdNextReply != null) {
						awaitRelease(this.holdNextReply);
						this.holdNextReply = null;
					}
					if (!requests && this.dropNextReply) {
						ReplyDroppingProxy.this.dropped++;
						this.client.close();
						this.upstream.close();
						return;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Either side closed.
			}
			finally {
				try {
					this.client.close();
					this.upstream.close();
				}
				catch (IOException ex) {
					// Closing.
				}
			}
		}

	}

}

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of a Redis that loses one answer: once {@linkplain #dropReplyTo
 * armed} with a marker, the first connection whose request carries the marker is closed
 * when the answer to it comes back, before the client sees it. The command ran; the
 * client reconnects (through the proxy again) and Lettuce sends it again, as after a real
 * network failure.
 */
final class ReplyDroppingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final AtomicReference<String> marker = new AtomicReference<>();

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile int dropped;

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

		Connection(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void pump(Socket from, Socket to, boolean requests) {
			byte[] buffer = new byte[64 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					if (requests) {
						String wanted = ReplyDroppingProxy.this.marker.get();
						if (wanted != null && new String(buffer, 0, read, StandardCharsets.ISO_8859_1).contains(wanted)
								&& ReplyDroppingProxy.this.marker.compareAndSet(wanted, null)) {
							this.dropNextReply = true;
						}
					}
					else if (this.dropNextReply) {
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

package dev.workqueue.sample;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds what one request to the webhook API may send: a body over {@link #MAX_BYTES} is
 * answered {@code 413 Content Too Large}, before it is read when its length is declared,
 * else as soon as the reading passes the limit. Without it a single request could make
 * the application hold any amount of memory while its JSON is parsed.
 */
@Component
class RequestBodyLimit extends OncePerRequestFilter {

	/** The largest body accepted: a webhook's payload is at most 4096 characters. */
	static final int MAX_BYTES = 16 * 1024;

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !request.getRequestURI().startsWith(request.getContextPath() + "/webhooks");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getContentLengthLong() > MAX_BYTES) {
			tooLarge(response);
			return;
		}
		try {
			chain.doFilter(new LimitedRequest(request), response);
		}
		catch (BodyTooLargeException ex) {
			if (!response.isCommitted()) {
				response.reset();
				tooLarge(response);
			}
		}
	}

	private static void tooLarge(HttpServletResponse response) throws IOException {
		response.sendError(HttpStatus.CONTENT_TOO_LARGE.value(),
				"A request body of the webhook API may hold at most " + MAX_BYTES + " bytes");
	}

	/** Thrown by the reading of a body that passes the limit. */
	static final class BodyTooLargeException extends IOException {

		BodyTooLargeException() {
			super("The request body is larger than " + MAX_BYTES + " bytes");
		}

	}

	/** A request whose body stream fails once more than the limit has been read. */
	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private ServletInputStream stream;

		LimitedRequest(HttpServletRequest request) {
			super(request);
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.stream == null) {
				this.stream = new LimitedStream(super.getInputStream());
			}
			return this.stream;
		}

	}

	private static final class LimitedStream extends ServletInputStream {

		private final ServletInputStream stream;

		private long read;

		LimitedStream(ServletInputStream stream) {
			this.stream = stream;
		}

		@Override
		public int read() throws IOException {
			int b = this.stream.read();
			if (b >= 0) {
				count(1);
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int n = this.stream.read(buffer, offset, length);
			if (n > 0) {
				count(n);
			}
			return n;
		}

		private void count(int n) throws BodyTooLargeException {
			this.read += n;
			if (this.read > MAX_BYTES) {
				throw new BodyTooLargeException();
			}
		}

		@Override
		public boolean isFinished() {
			return this.stream.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.stream.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.stream.setReadListener(listener);
		}

	}

}

package dev.workqueue.redis;

/**
 * A Redis queue could not do what was asked: the server is unreachable or timed out, a
 * key under the queue's prefix holds something else, or Redis refused a command. The
 * message names the queue and the server. When an add or a {@code done} throws it, the
 * change may or may not have reached Redis (a command can time out after it ran); both
 * are safe to repeat.
 */
public class RedisQueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what failed, naming the queue and the server
	 * @param cause the client's exception, or {@code null}
	 */
	public RedisQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}

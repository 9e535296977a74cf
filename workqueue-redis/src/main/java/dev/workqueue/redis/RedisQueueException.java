package dev.workqueue.redis;

import java.util.Objects;

/**
 * A Redis queue could not do what was asked. The message names the queue, the server and
 * what happened, and {@link #reason()} tells the kinds apart: Redis could not be reached,
 * it did not answer within the command timeout, it is out of memory, a key under the
 * queue's prefix holds something else, the connection's user lacks a permission, or Redis
 * refused for another reason. When an add or a {@code done} throws it for a timeout, the
 * change may or may not have reached Redis (a command can time out after it ran, or run
 * once the connection is back); both are safe to repeat.
 */
public class RedisQueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** Why a call failed. */
	public enum Reason {

		/**
		 * Redis could not be reached: the connection was refused, or is down. The command
		 * did not run.
		 */
		UNREACHABLE("cannot reach Redis"),

		/**
		 * Redis did not answer within the command timeout: it may be slow or paused, or
		 * the connection dropped after the command went out. The command may have run, or
		 * may run once the connection is back.
		 */
		TIMED_OUT("no answer from Redis in time"),

		/**
		 * Redis is out of memory ({@code maxmemory} with a policy that refuses writes).
		 */
		OUT_OF_MEMORY("Redis is out of memory"),

		/**
		 * A key under the queue's prefix holds another type than the queue keeps there.
		 */
		WRONG_TYPE("a key holds the wrong type"),

		/** The connection's user lacks a permission (Redis ACL). */
		NO_PERMISSION("permission denied"),

		/** Redis refused for another reason. */
		REFUSED("Redis refused");

		private final String description;

		Reason(String description) {
			this.description = description;
		}

		/**
		 * Returns what the reason means, for messages.
		 * @return a short description
		 */
		public String description() {
			return this.description;
		}

	}

	private final Reason reason;

	/**
	 * Creates an exception.
	 * @param reason why the call failed
	 * @param message what failed, naming the queue and the server
	 * @param cause the client's exception, or {@code null}
	 */
	public RedisQueueException(Reason reason, String message, Throwable cause) {
		super(message, cause);
		this.reason = Objects.requireNonNull(reason, "reason");
	}

	/**
	 * Returns why the call failed.
	 * @return the reason
	 */
	public Reason reason() {
		return this.reason;
	}

}

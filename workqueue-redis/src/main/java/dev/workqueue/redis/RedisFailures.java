package dev.workqueue.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;

import dev.workqueue.redis.RedisQueueException.Reason;

/**
 * Turns the client's exceptions into {@link RedisQueueException}s that say what happened:
 * unreachable, timed out (the outcome unknown), out of memory, wrong type or permission
 * denied, with the queue (or limiter) and the server.
 */
final class RedisFailures {

	/** How Redis 7.0 begins the error of a command its ACL denies inside a script. */
	static final String SCRIPT_DENIED = "The user executing the script can't";

	private RedisFailures() {
	}

	/**
	 * Describes a failed call.
	 * @param who the queue or limiter, as {@code Queue 'orders'}
	 * @param server the server, as the link last saw it
	 * @param cause what the client threw
	 * @return the exception to throw
	 */
	static RedisQueueException of(String who, String server, Throwable cause) {
		if (cause instanceof RedisQueueException known) {
			return known;
		}
		if (cause instanceof RedisLink.ClientShutDownException) {
			return new RedisQueueException(Reason.UNREACHABLE,
					who + " on " + server
							+ ": the Lettuce client was shut down, so it can reach Redis no more (shut the queues down"
							+ " before their client)",
					cause);
		}
		Reason reason = reason(cause);
		String detail = String.valueOf(cause.getMessage());
		String hint = switch (reason) {
			case OUT_OF_MEMORY ->
				" (raise maxmemory, or choose a policy that does not refuse writes; nothing was" + " half-written)";
			case WRONG_TYPE -> " (another program uses the queue's key prefix, or the queue's name)";
			case NO_PERMISSION -> " (grant the connection's user the commands, keys and channels of the queue)";
			case TIMED_OUT ->
				"; the command may have run (Redis is slow, paused, or the connection dropped after it was sent)";
			default -> "";
		};
		return new RedisQueueException(reason,
				who + " on " + server + ": " + reason.description() + ": " + detail + hint, cause);
	}

	static Reason reason(Throwable cause) {
		if (cause instanceof RedisCommandTimeoutException) {
			return Reason.TIMED_OUT;
		}
		if (!(cause instanceof RedisCommandExecutionException)) {
			return Reason.UNREACHABLE;
		}
		String message = String.valueOf(cause.getMessage());
		if (message.startsWith("OOM")) {
			return Reason.OUT_OF_MEMORY;
		}
		if (message.startsWith("WRONGTYPE") || message.contains("WRONGTYPE key")) {
			return Reason.WRONG_TYPE;
		}
		// Redis 7.0 reports a command a script may not run as an error of the script.
		if (message.startsWith("NOPERM") || message.contains(SCRIPT_DENIED)) {
			return Reason.NO_PERMISSION;
		}
		return Reason.REFUSED;
	}

}

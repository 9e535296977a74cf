package dev.workqueue.spring.observation;

import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.protocol.TracedCommand;
import io.lettuce.core.tracing.LettuceObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

import dev.workqueue.redis.RedisWorkQueues;

/**
 * Keeps the redis backend's own work out of the traces: drops the Lettuce command
 * observation of a queue's or limiter's script when no observation was current where it
 * was sent. Lettuce gives a command the observation current on the sending thread as its
 * parent, and without one the command becomes the root of a trace of its own; the backend
 * sends its waits for work, timer ticks, lease renewals, orphan sweeps and gauge reads
 * from its own threads, or from a worker between two items, where none is. A script sent
 * inside an observation (an add made while a request is handled, a retry made by a
 * worker) still shows as a child span; the application's own commands are never touched.
 * <p>
 * A read of the queues' figures (their stats and ready levels, as gauges, the health
 * indicator and the Actuator endpoint read them) is dropped wherever it was sent: a
 * health request or a scrape would otherwise show a script span per shared queue.
 */
public final class QueueCommandObservationPredicate implements ObservationPredicate {

	@Override
	public boolean test(String name, Observation.Context context) {
		if (!(context instanceof LettuceObservationContext lettuce) || !lettuce.hasCommand()) {
			return true;
		}
		RedisCommand<?, ?, ?> command = lettuce.getRequiredCommand();
		if (RedisWorkQueues.isReadCommand(command)) {
			// A read of the queues' figures: a health check's or a scrape's, sent inside
			// their request's observation.
			return false;
		}
		return lettuce.getParentObservation() != null || !RedisWorkQueues.isQueueCommand(command)
				|| sentInObservation(command);
	}

	/**
	 * Whether an observation was current where the command was sent: Lettuce keeps it in
	 * the command's {@link TracedCommand} and sets it as the parent only after the
	 * observation is created (and this predicate asked).
	 */
	private static boolean sentInObservation(RedisCommand<?, ?, ?> command) {
		TracedCommand<?, ?, ?> traced = CommandWrapper.unwrap(command, TracedCommand.class);
		return traced != null && traced.getTraceContext() != null;
	}

}

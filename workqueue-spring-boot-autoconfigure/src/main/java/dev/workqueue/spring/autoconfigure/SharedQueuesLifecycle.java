package dev.workqueue.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.context.SmartLifecycle;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

/**
 * The lifecycle of a backend whose queues share a store (Redis, a database): it shuts
 * down every queue it built, those without workers too, after the workers have drained
 * them and while the store's connections are still open, so that each queue hands back
 * what it holds for the other instances. Shut-down queues cannot be restarted.
 * <p>
 * Thread-safe: the backend's monitor guards the queues; a subclass registers each queue
 * it builds with {@link #track} (under the same monitor when it builds under it).
 */
abstract class SharedQueuesLifecycle implements SmartLifecycle {

	/**
	 * Below the workers' phase, so that they have drained the queues, and above the
	 * phases at which the store's connections close (Spring Data Redis's connection
	 * factory closes its client at phase 0; a data source closes when its bean is
	 * destroyed).
	 */
	static final int PHASE = WorkerContainerRegistry.PHASE - 1;

	/** The queues built here; guarded by this. */
	private final List<RateLimitingQueue<Object>> queues = new ArrayList<>();

	private volatile boolean running;

	/**
	 * Registers a queue to shut down when this backend stops.
	 * @param built a queue this backend built
	 * @return {@code built}
	 */
	protected final synchronized QueueBackend.BuiltQueue track(QueueBackend.BuiltQueue built) {
		this.queues.add(built.queue());
		return built;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		this.queues.forEach(RateLimitingQueue::shutDown);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public boolean isPauseable() {
		return false;
	}

}

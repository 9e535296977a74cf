package dev.workqueue;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A call that may block, run on its own thread so that a test can watch it block and be
 * released. Closing interrupts and joins the thread.
 */
final class BlockingCall<V> implements AutoCloseable {

	private final CompletableFuture<V> result = new CompletableFuture<>();

	private final Thread thread;

	private BlockingCall(Callable<V> call) {
		this.thread = new Thread(() -> {
			try {
				this.result.complete(call.call());
			}
			catch (Throwable ex) {
				this.result.completeExceptionally(ex);
			}
		}, "blocking-call");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	static <V> BlockingCall<V> start(Callable<V> call) {
		return new BlockingCall<>(call);
	}

	/** Waits (at most a second) until the thread is parked, waiting or timed-waiting. */
	BlockingCall<V> awaitBlocked() {
		Await.until(this::isBlocked);
		return this;
	}

	boolean isBlocked() {
		Thread.State state = this.thread.getState();
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
	}

	boolean isDone() {
		return this.result.isDone();
	}

	/** The call's result, waiting at most a second for it. */
	V result() throws InterruptedException, ExecutionException, TimeoutException {
		return this.result.get(1, TimeUnit.SECONDS);
	}

	/** The call's failure, waiting at most a second for it. */
	Throwable failure() throws InterruptedException, TimeoutException {
		try {
			this.result.get(1, TimeUnit.SECONDS);
			throw new AssertionError("expected the call to fail");
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
	}

	void interrupt() {
		this.thread.interrupt();
	}

	@Override
	public void close() throws InterruptedException {
		this.thread.interrupt();
		this.thread.join(1000);
	}

}

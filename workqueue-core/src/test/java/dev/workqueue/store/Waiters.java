package dev.workqueue.store;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import static org.awaitility.Awaitility.await;

/**
 * Calls made on threads of their own, for the tests of grouped calls: a test sees when a
 * call waits (queued behind another, or held at a store's gate) before it makes the next.
 */
final class Waiters {

	private Waiters() {
	}

	/**
	 * Starts a call on a new daemon thread.
	 * @param call the call
	 * @return the waiter
	 */
	static <R> Waiter<R> start(Callable<R> call) {
		CompletableFuture<R> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(call.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, "waiter");
		thread.setDaemon(true);
		thread.start();
		return new Waiter<>(thread, result);
	}

	/**
	 * A call under way on its thread.
	 *
	 * @param thread its thread
	 * @param result what it returns or throws
	 */
	record Waiter<R>(Thread thread, CompletableFuture<R> result) {

		/** Waits until the call's thread waits. */
		void awaitWaiting() {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.thread.getState() == Thread.State.WAITING || this.result.isDone());
		}

	}

}

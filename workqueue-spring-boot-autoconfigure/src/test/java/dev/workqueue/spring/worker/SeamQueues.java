package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Queues for tests of the worker seam ({@code dev.workqueue.spi}): a real core queue
 * behind a proxy that has the capabilities the starter looks up, recording what it is
 * asked; a decorator as an application would write one; and pollers that count their
 * calls or only wait to be woken.
 */
final class SeamQueues {

	private SeamQueues() {
	}

	/**
	 * Returns {@code real} behind a proxy that is a {@link PollerFactory}, making each
	 * poller with {@code pollers} and counting it, and, if {@code shared}, a
	 * {@link SharedWorkQueue} answering from {@code record}. Every call the proxy passes
	 * on to {@code real} is counted by method name once it returns.
	 */
	static RateLimitingQueue<Object> capable(RateLimitingQueue<Object> real, Record record,
			Supplier<Poller<Object>> pollers, boolean shared) {
		Class<?>[] interfaces = shared
				? new Class<?>[] { RateLimitingQueue.class, PollerFactory.class, SharedWorkQueue.class }
				: new Class<?>[] { RateLimitingQueue.class, PollerFactory.class };
		return proxy(interfaces, (proxy, method, args) -> switch (method.getName()) {
			// Proxies do not run default methods on their own.
			case "capability", "failure", "warning" -> InvocationHandler.invokeDefault(proxy, method, args);
			case "newPoller" -> record.add(new CountingPoller(pollers.get()));
			case "reachable" -> record.reachable;
			case "reportsSharedGauges" -> true;
			case "handBack" -> (args == null) ? 0 : false;
			default -> {
				// Counted once passed on, so that a test that saw the count sees the
				// call's effect.
				Object result = invoke(method, real, args);
				record.count(method.getName());
				yield result;
			}
		});
	}

	/**
	 * Returns a decorator of {@code queue} as an application might write one: it passes
	 * every call on, {@code capability} included.
	 */
	static RateLimitingQueue<Object> userDecorator(RateLimitingQueue<Object> queue) {
		return proxy(new Class<?>[] { RateLimitingQueue.class }, (proxy, method, args) -> invoke(method, queue, args));
	}

	/** Pollers of {@code queue} as {@link Pollers#of} makes them. */
	static Supplier<Poller<Object>> pollersOf(RateLimitingQueue<Object> queue) {
		return () -> Pollers.of(queue);
	}

	@SuppressWarnings("unchecked")
	private static RateLimitingQueue<Object> proxy(Class<?>[] interfaces, InvocationHandler handler) {
		return (RateLimitingQueue<Object>) Proxy.newProxyInstance(SeamQueues.class.getClassLoader(), interfaces,
				handler);
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * What the starter asked of a {@linkplain #capable capable} queue.
	 */
	static final class Record {

		final List<CountingPoller> pollers = new CopyOnWriteArrayList<>();

		private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

		/** What {@link SharedWorkQueue#reachable()} answers. */
		volatile boolean reachable = true;

		int calls(String method) {
			AtomicInteger count = this.calls.get(method);
			return (count != null) ? count.get() : 0;
		}

		private void count(String method) {
			this.calls.computeIfAbsent(method, (name) -> new AtomicInteger()).incrementAndGet();
		}

		private CountingPoller add(CountingPoller poller) {
			this.pollers.add(poller);
			return poller;
		}

	}

	/**
	 * A poller that counts the calls a worker thread makes and passes them on.
	 */
	static final class CountingPoller implements Poller<Object> {

		private final Poller<Object> poller;

		final AtomicInteger polls = new AtomicInteger();

		final AtomicInteger doneAndPolls = new AtomicInteger();

		final AtomicInteger wakeups = new AtomicInteger();

		CountingPoller(Poller<Object> poller) {
			this.poller = poller;
		}

		@Override
		public Prioritized<Object> poll(Duration timeout) throws InterruptedException {
			this.polls.incrementAndGet();
			return this.poller.poll(timeout);
		}

		@Override
		public Prioritized<Object> doneAndPoll(Object done, Duration timeout) throws InterruptedException {
			this.doneAndPolls.incrementAndGet();
			return this.poller.doneAndPoll(done, timeout);
		}

		@Override
		public void wakeup() {
			this.wakeups.incrementAndGet();
			this.poller.wakeup();
		}

	}

	/**
	 * A poller of a queue that never has an item: each poll waits for its timeout unless
	 * a wake-up, sticky as the SPI says, ends it. {@code lock} guards {@code woken}.
	 */
	static final class IdlePoller implements Poller<Object> {

		private final Clock clock = Clock.system();

		private final Lock lock = new ReentrantLock();

		private final Condition woken = this.lock.newCondition();

		private boolean wakeupPending;

		@Override
		public Prioritized<Object> poll(Duration timeout) throws InterruptedException {
			long deadlineNanos = Nanos.add(this.clock.nanoTime(), Nanos.of(timeout));
			this.lock.lock();
			try {
				while (!this.wakeupPending && this.clock.nanoTime() < deadlineNanos) {
					this.clock.awaitUntil(this.lock, this.woken, deadlineNanos);
				}
				this.wakeupPending = false;
				return null;
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		public Prioritized<Object> doneAndPoll(Object done, Duration timeout) {
			throw new AssertionError("An idle queue hands nothing out, so nothing is done");
		}

		@Override
		public void wakeup() {
			this.lock.lock();
			try {
				this.wakeupPending = true;
				this.woken.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}

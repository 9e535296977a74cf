package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class SharedResourceTests {

	private final Queue<Probe> opened = new ConcurrentLinkedQueue<>();

	private final SharedResource<String, Probe> registry = new SharedResource<>(Probe::close);

	@Test
	void acquiresOfOneKeyShareOneResourceThatOnlyTheLastReleaseCloses() {
		Probe first = this.registry.acquire("a", this::open);
		Probe second = this.registry.acquire("a", this::open);
		assertThat(second).isSameAs(first);
		assertThat(this.registry.acquire("b", this::open)).isNotSameAs(first);
		this.registry.release(first);
		assertThat(first.closes).hasValue(0);
		assertThat(this.registry.peek("a")).isSameAs(first);
		this.registry.release(second);
		assertThat(first.closes).hasValue(1);
		assertThat(this.registry.peek("a")).isNull();
	}

	@Test
	void anAcquireAfterTheLastReleaseOpensANewResource() {
		Probe first = this.registry.acquire("a", this::open);
		this.registry.release(first);
		Probe second = this.registry.acquire("a", this::open);
		assertThat(second).isNotSameAs(first);
		assertThat(second.closes).hasValue(0);
		this.registry.release(second);
		assertThat(this.opened).hasSize(2).allMatch((probe) -> probe.closes.get() == 1);
	}

	@Test
	void aReleaseWithoutAReferenceThrowsAndClosesNothingAgain() {
		Probe probe = this.registry.acquire("a", this::open);
		this.registry.release(probe);
		assertThatIllegalStateException().isThrownBy(() -> this.registry.release(probe))
			.withMessageContaining("released more often than acquired");
		assertThat(probe.closes).hasValue(1);
	}

	@Test
	void aFailingOpenerLeavesNoEntry() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> this.registry.acquire("a", (key) -> {
			throw new IllegalArgumentException("unreachable");
		}));
		assertThat(this.registry.peek("a")).isNull();
		Probe probe = this.registry.acquire("a", this::open);
		this.registry.release(probe);
		assertThat(probe.closes).hasValue(1);
		assertThat(this.registry.peek("a")).isNull();
	}

	@Test
	void aFailingCloserStillTakesTheEntryOut() {
		SharedResource<String, Probe> failing = new SharedResource<>((probe) -> {
			throw new IllegalStateException("cannot close");
		});
		Probe probe = failing.acquire("a", this::open);
		assertThatIllegalStateException().isThrownBy(() -> failing.release(probe));
		assertThat(failing.peek("a")).isNull();
		assertThat(failing.acquire("a", this::open)).isNotSameAs(probe);
	}

	@Test
	void anEvictedResourceStaysOpenUntilItsLastReleaseWhileItsKeyFindsANewOne() {
		Probe evicted = this.registry.acquire("a", this::open);
		assertThat(this.registry.evictUnused("a", evicted)).isFalse();
		assertThat(this.registry.evict("a", evicted)).isTrue();
		assertThat(this.registry.evict("a", evicted)).isFalse();
		Probe next = this.registry.acquire("a", this::open);
		assertThat(next).isNotSameAs(evicted);
		this.registry.release(evicted);
		assertThat(evicted.closes).hasValue(1);
		assertThat(this.registry.peek("a")).as("the evicted one's release leaves the new one").isSameAs(next);
		this.registry.release(next);
		assertThat(this.registry.peek("a")).isNull();
	}

	@Test
	void aResourceUsedWithoutCountingStaysUntilEvictedOrItsCountedReferencesEnd() {
		Probe used = this.registry.use("a", this::open);
		assertThat(this.registry.use("a", this::open)).isSameAs(used);
		assertThat(this.registry.evict("a", this.open("a"))).as("another resource").isFalse();
		assertThat(this.registry.evictUnused("a", used)).isTrue();
		assertThat(this.registry.peek("a")).isNull();
		assertThat(used.closes).hasValue(0);

		Probe shared = this.registry.use("b", this::open);
		assertThat(this.registry.acquire("b", this::open)).isSameAs(shared);
		this.registry.release(shared);
		assertThat(shared.closes).hasValue(1);
		assertThat(this.registry.peek("b")).isNull();
	}

	@Test
	void anAcquireDuringASlowCloseOpensANewResourceInsteadOfTheClosingOne() throws Exception {
		CountDownLatch closing = new CountDownLatch(1);
		CountDownLatch mayFinish = new CountDownLatch(1);
		SharedResource<String, Probe> slow = new SharedResource<>((probe) -> {
			closing.countDown();
			try {
				mayFinish.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			probe.close();
		});
		Probe old = slow.acquire("a", this::open);
		Thread releaser = new Thread(() -> slow.release(old), "releaser");
		releaser.start();
		assertThat(closing.await(10, TimeUnit.SECONDS)).isTrue();
		Probe fresh = slow.acquire("b", this::open);
		Probe again = slow.acquire("a", this::open);
		assertThat(again).isNotSameAs(old);
		mayFinish.countDown();
		releaser.join(10_000);
		assertThat(old.closes).hasValue(1);
		assertThat(again.closes).hasValue(0);
		slow.release(again);
		slow.release(fresh);
		assertThat(slow.peek("a")).isNull();
		assertThat(slow.peek("b")).isNull();
	}

	@Test
	void manyThreadsAcquiringAndReleasingNeverSeeAClosedResourceAndLeaveNoEntry() throws Exception {
		int threads = 8;
		int rounds = 20_000;
		List<String> keys = List.of("a", "b", "c");
		CyclicBarrier start = new CyclicBarrier(threads);
		AtomicInteger closedWhileHeld = new AtomicInteger();
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		List<Thread> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await(10, TimeUnit.SECONDS);
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < rounds; i++) {
						String key = keys.get(random.nextInt(keys.size()));
						Probe first = this.registry.acquire(key, this::open);
						Probe second = (random.nextBoolean()) ? this.registry.acquire(key, this::open) : null;
						if ((second != null && second != first) || first.closes.get() != 0) {
							closedWhileHeld.incrementAndGet();
						}
						this.registry.release(first);
						if (second != null) {
							if (second.closes.get() != 0) {
								closedWhileHeld.incrementAndGet();
							}
							this.registry.release(second);
						}
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			}, "stress-" + t);
			thread.start();
			running.add(thread);
		}
		for (Thread thread : running) {
			thread.join(Duration.ofSeconds(60).toMillis());
			assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(closedWhileHeld).hasValue(0);
		assertThat(keys).allMatch((key) -> this.registry.peek(key) == null);
		assertThat(this.opened).isNotEmpty().allMatch((probe) -> probe.closes.get() == 1);
	}

	@Test
	void concurrentFirstAcquiresOfOneKeyOpenOneResource() throws Exception {
		int threads = 8;
		CyclicBarrier start = new CyclicBarrier(threads);
		Queue<Probe> handedOut = new ConcurrentLinkedQueue<>();
		List<Thread> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await(10, TimeUnit.SECONDS);
					handedOut.add(this.registry.acquire("a", this::open));
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}, "first-" + t);
			thread.start();
			running.add(thread);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handedOut.size() == threads);
		assertThat(this.opened).hasSize(1);
		assertThat(handedOut).allMatch((probe) -> probe == this.opened.peek());
		handedOut.forEach(this.registry::release);
		assertThat(this.opened.peek().closes).hasValue(1);
		assertThat(this.registry.peek("a")).isNull();
		for (Thread thread : running) {
			thread.join(10_000);
		}
	}

	private Probe open(String key) {
		Probe probe = new Probe(key);
		this.opened.add(probe);
		return probe;
	}

	/** A resource that counts its closes. */
	private static final class Probe {

		private final String key;

		private final AtomicInteger closes = new AtomicInteger();

		Probe(String key) {
			this.key = key;
		}

		void close() {
			this.closes.incrementAndGet();
		}

		@Override
		public String toString() {
			return "Probe[" + this.key + "]";
		}

	}

}

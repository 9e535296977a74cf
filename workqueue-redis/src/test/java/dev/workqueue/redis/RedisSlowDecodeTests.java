package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease runs on while the codec decodes its item: a handle never hands out an item
 * whose lease ran out during a slow decode, or during the decodes before it in the same
 * get, when another instance took the item meanwhile. The codec steps the shared
 * {@link FakeClock} from inside its {@code decode}, and there lets the other instance
 * take the item, so each run is the same.
 */
@RequiresRedis
class RedisSlowDecodeTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private static final Duration LEASE = Duration.ofSeconds(3);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	/** Told of each payload as it is decoded, on the decoding thread. */
	private volatile Consumer<String> onDecode = (encoded) -> {
	};

	private final ItemCodec<String> slowCodec = new ItemCodec<>() {

		@Override
		public String encode(String item) {
			return item;
		}

		@Override
		public String decode(String encoded) {
			RedisSlowDecodeTests.this.onDecode.accept(encoded);
			return encoded;
		}

		@Override
		public String toString() {
			return "SlowCodec";
		}

	};

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private DelayingQueue<String> slowInstance() {
		return this.redis.track(RedisWorkQueues.builder(this.redis.client, this.slowCodec)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.lease(LEASE)
			.buildDelayingQueue());
	}

	private DelayingQueue<String> otherInstance() {
		return this.redis.track(this.redis.builder("q").clock(this.clock).lease(LEASE).buildDelayingQueue());
	}

	private static RedisWorkQueue<String> handle(DelayingQueue<String> queue) {
		@SuppressWarnings("unchecked")
		RedisWorkQueue<String> handle = (RedisWorkQueue<String>) queue.capability(SharedWorkQueue.class).orElseThrow();
		return handle;
	}

	/**
	 * A tick hands back the item whose lease ran out, and the other instance takes it:
	 * what may happen while a slow decode holds the item's lease unrenewed.
	 */
	private void otherInstanceTakes(String item, DelayingQueue<String> other) {
		AtomicReference<String> taken = new AtomicReference<>();
		await().atMost(SOON).until(() -> {
			RedisFixture.timer(handle(other)).wake();
			taken.set(other.poll(Duration.ZERO));
			return taken.get() != null;
		});
		assertThat(taken.get()).isEqualTo(item);
	}

	/** What a tick does to a lease that ran out: the item goes back to the queue. */
	private void expireLeaseByHand(String item) {
		this.redis.redis().zrem(this.redis.key("q", "processing"), item);
		this.redis.redis().hdel(this.redis.key("q", "leases"), item);
		this.redis.redis().hset(this.redis.key("q", "dirty"), item, "0");
		this.redis.redis().rpush(this.redis.key("q", "queue"), item);
	}

	private String holder(String item) {
		return this.redis.redis().hget(this.redis.key("q", "leases"), item);
	}

	@Test
	void anItemWhoseLeaseRanOutWhileItWasDecodedIsNotHandedOutWhenAnotherInstanceTookIt() throws Exception {
		DelayingQueue<String> slow = slowInstance();
		DelayingQueue<String> other = otherInstance();
		slow.add("i0");
		this.onDecode = (encoded) -> {
			this.onDecode = (again) -> {
			};
			// A decode of 4 s, longer than the 3 s lease.
			this.clock.step(Duration.ofSeconds(4));
			otherInstanceTakes("i0", other);
		};
		assertThat(slow.poll(Duration.ZERO)).as("the other instance holds i0").isNull();
		assertThat(handle(slow).held()).isZero();
		assertThat(holder("i0")).as("the other instance's lease stands").isNotNull();
		other.done("i0");
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"), this.redis.key("q", "processing")))
			.isZero();
	}

	@Test
	void anItemLeasedAheadIsNotHandedOutWhenTheDecodesBeforeItOutlastedItsLease() throws Exception {
		DelayingQueue<String> slow = slowInstance();
		DelayingQueue<String> other = otherInstance();
		Poller<String> poller = handle(slow).newPoller();
		AtomicReference<Object> waiting = new AtomicReference<>("none yet");
		Thread consumer = new Thread(() -> {
			try {
				waiting.set(poller.poll(Duration.ofMinutes(1)));
			}
			catch (InterruptedException ex) {
				waiting.set(ex);
			}
		});
		consumer.start();
		await().atMost(SOON).until(() -> consumer.getState() == Thread.State.WAITING);
		// Two items ready without the notice an add sends: the consumer sleeps on, and
		// the next get leases both, the second for it.
		for (String item : new String[] { "i0", "i1" }) {
			this.redis.redis().hset(this.redis.key("q", "dirty"), item, "0");
			this.redis.redis().rpush(this.redis.key("q", "queue"), item);
		}
		this.onDecode = (encoded) -> {
			if (encoded.equals("i1")) {
				// Its lease runs out during the decodes, and the other instance takes it:
				// handed back by hand, as a tick does, but without the notice, which
				// would
				// wake the consumer beside the get first.
				expireLeaseByHand("i1");
				otherInstanceTakes("i1", other);
			}
			// Two decodes of 2 s each, 4 s in all: longer than the 3 s lease.
			this.clock.step(Duration.ofSeconds(2));
		};
		assertThat(slow.poll(Duration.ZERO)).as("its lease renewed, still this handle's").isEqualTo("i0");
		this.onDecode = (encoded) -> {
		};
		poller.wakeup();
		consumer.join(SOON.toMillis());
		assertThat(waiting.get()).as("i1 went to the other instance, not to the waiting consumer").isNull();
		assertThat(handle(slow).held()).isOne();
		assertThat(holder("i1")).isNotNull().isNotEqualTo(holder("i0"));
		slow.done("i0");
		other.done("i1");
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"), this.redis.key("q", "processing")))
			.isZero();
	}

}

package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A claim leases an item for each consumer of the handle that waits; what nobody takes
 * goes back in its place in line: when the last consumer leaves without it, and when the
 * handle shuts down while the claim runs. The claim is held at its connection (a gate)
 * while the waiting consumers leave, so that each case happens for sure.
 */
@RequiresPostgres
class PostgresClaimAheadTests {

	private static final Duration SOON = Duration.ofSeconds(5);

	private final EngineFixture fixture = new EngineFixture();

	private final FakeClock clock = new FakeClock();

	private final CountDownLatch release = new CountDownLatch(1);

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	/** A handle whose claims made on the thread "claimer" wait for {@link #release}. */
	private DelayingQueue<String> gatedHandle() {
		DataSource pool = this.fixture.tableFixture().dataSource();
		DataSource gated = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")
							&& Thread.currentThread().getName().equals("claimer")) {
						this.release.await();
					}
					try {
						return method.invoke(pool, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		return this.fixture
			.track(this.fixture.builder("ahead").clock(this.clock).workerDataSource(gated).buildDelayingQueue());
	}

	private DelayingQueue<String> otherHandle() {
		return this.fixture.track(this.fixture.builder("ahead").clock(this.clock).buildDelayingQueue());
	}

	/**
	 * Consumers of {@code queue} that wait up to 5 s on the clock, once it found nothing.
	 */
	private List<CompletableFuture<String>> waiters(DelayingQueue<String> queue, int count) {
		List<CompletableFuture<String>> waiters = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			waiters.add(CompletableFuture.supplyAsync(() -> {
				try {
					return queue.poll(Duration.ofSeconds(5));
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}));
		}
		await().atMost(SOON).until(() -> EngineFixture.statements(queue).waitingConsumers() == count);
		return waiters;
	}

	private CompletableFuture<String> claimer(DelayingQueue<String> queue) {
		CompletableFuture<String> taken = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				taken.complete(queue.poll(Duration.ZERO));
			}
			catch (Throwable ex) {
				taken.completeExceptionally(ex);
			}
		}, "claimer");
		thread.start();
		await().atMost(SOON).until(() -> thread.getState() == Thread.State.WAITING);
		return taken;
	}

	private List<String> drain(DelayingQueue<String> queue) throws InterruptedException {
		List<String> items = new ArrayList<>();
		String next;
		while ((next = queue.poll(Duration.ZERO)) != null) {
			items.add(next);
			queue.done(next);
		}
		return items;
	}

	@Test
	void itemsClaimedForConsumersThatLeftGoBackInTheirPlace() throws Exception {
		DelayingQueue<String> queue = gatedHandle();
		DelayingQueue<String> other = otherHandle();
		List<CompletableFuture<String>> waiters = waiters(queue, 4);
		for (int i = 0; i < 10; i++) {
			other.add("item-" + i);
		}
		// Claims for itself and the 4 waiting: 5 items.
		CompletableFuture<String> claimed = claimer(queue);
		this.clock.step(Duration.ofSeconds(5));
		for (CompletableFuture<String> waiter : waiters) {
			assertThat(waiter.get(5, TimeUnit.SECONDS)).as("timed out before the claim answered").isNull();
		}
		this.release.countDown();
		assertThat(claimed.get(5, TimeUnit.SECONDS)).isEqualTo("item-0");
		assertThat(EngineFixture.handle(queue).held()).as("the 4 others were handed back").isOne();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE state = 1")).isOne();
		assertThat(drain(other)).as("in their place in line")
			.containsExactly("item-1", "item-2", "item-3", "item-4", "item-5", "item-6", "item-7", "item-8", "item-9");
		queue.done("item-0");
	}

	@Test
	void itemsClaimedWhileTheHandleShutsDownGoBackInTheirPlace() throws Exception {
		DelayingQueue<String> queue = gatedHandle();
		DelayingQueue<String> other = otherHandle();
		List<CompletableFuture<String>> waiters = waiters(queue, 3);
		for (int i = 0; i < 6; i++) {
			other.add("item-" + i);
		}
		CompletableFuture<String> claimed = claimer(queue);
		queue.shutDown();
		for (CompletableFuture<String> waiter : waiters) {
			assertThat(waiter.get(5, TimeUnit.SECONDS)).isNull();
		}
		this.release.countDown();
		assertThat(claimed.get(5, TimeUnit.SECONDS)).as("a shut-down handle hands out nothing more").isNull();
		assertThat(EngineFixture.handle(queue).held()).isZero();
		assertThat(drain(other)).containsExactly("item-0", "item-1", "item-2", "item-3", "item-4", "item-5");
	}

	@Test
	void itemsClaimedAheadAreHandedToTheConsumersThatWait() throws Exception {
		DelayingQueue<String> queue = gatedHandle();
		DelayingQueue<String> other = otherHandle();
		List<CompletableFuture<String>> waiters = waiters(queue, 2);
		for (int i = 0; i < 3; i++) {
			other.add("item-" + i);
		}
		CompletableFuture<String> claimed = claimer(queue);
		this.release.countDown();
		assertThat(claimed.get(5, TimeUnit.SECONDS)).isEqualTo("item-0");
		List<String> taken = new ArrayList<>();
		for (CompletableFuture<String> waiter : waiters) {
			taken.add(waiter.get(5, TimeUnit.SECONDS));
		}
		assertThat(taken).containsExactlyInAnyOrder("item-1", "item-2");
		assertThat(TestSql.queryLong("SELECT count(DISTINCT holder) FROM " + this.fixture.table() + " WHERE state = 1"))
			.as("one claim leased all three")
			.isOne();
		for (String item : List.of("item-0", "item-1", "item-2")) {
			queue.done(item);
		}
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

}

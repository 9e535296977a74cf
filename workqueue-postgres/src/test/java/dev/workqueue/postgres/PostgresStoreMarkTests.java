package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The mark a queue keeps with its data ({@link StoreMark}): the kind of clock that times
 * it and the format it is stored in. A handle of the other kind, built after the first or
 * at the same moment, fails naming both; the mark outlives the queue's items; another
 * format, or a live instance of the previous release, is refused with the way out; the
 * rows the previous release left are read once none of its instances is live.
 */
@RequiresPostgres
class PostgresStoreMarkTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> serverClock(String name) {
		return this.fixture.track(this.fixture.builder(name).buildDelayingQueue());
	}

	private DelayingQueue<String> givenClock(String name) {
		return this.fixture.track(this.fixture.builder(name).clock(new FakeClock()).buildDelayingQueue());
	}

	private String mark(String name) {
		return TestSql.queryString("SELECT count || ':' || holder FROM " + this.fixture.table()
				+ "_limit WHERE queue = ? AND kind = 'mark' AND item = ''", name);
	}

	@Test
	void aGivenClockHandleIsRefusedOnAQueueOfTheDatabasesClock() {
		serverClock("q").add("a");
		assertThat(mark("q")).isEqualTo("2:database");
		assertThatIllegalStateException().isThrownBy(() -> givenClock("q"))
			.withMessageContaining("Queue 'q' (table " + this.fixture.table() + ")")
			.withMessageContaining("the database's clock")
			.withMessageContaining("clocks given to its builders");
	}

	@Test
	void aServerClockHandleIsRefusedOnAQueueOfGivenClocks() {
		givenClock("q").addAfter("a", Duration.ofHours(1));
		assertThat(mark("q")).isEqualTo("2:given");
		assertThatIllegalStateException().isThrownBy(() -> serverClock("q"))
			.withMessageContaining("Queue 'q'")
			.withMessageContaining("clocks given to its builders")
			.withMessageContaining("the database's clock");
	}

	@Test
	void theMarkStaysWhenTheQueueIsEmptyAndOtherQueuesAreFree() throws InterruptedException {
		DelayingQueue<String> first = serverClock("q");
		first.add("a");
		assertThat(first.poll(Duration.ZERO)).isEqualTo("a");
		first.done("a");
		first.shutDown();
		assertThat(TestSql.count(this.fixture.table())).isZero();
		assertThatIllegalStateException().isThrownBy(() -> givenClock("q"));
		assertThat(givenClock("other")).isNotNull();
		TestSql.update("DELETE FROM " + this.fixture.table() + "_limit WHERE queue = 'q' AND kind = 'mark'");
		assertThat(givenClock("q")).as("after the documented reset").isNotNull();
		assertThat(mark("q")).isEqualTo("2:given");
	}

	@Test
	void ofTwoHandlesOfDifferentKindsBuiltAtTheSameMomentExactlyOneIsBuilt() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 10; round++) {
				String name = "race-" + round;
				CyclicBarrier start = new CyclicBarrier(2);
				CompletableFuture<DelayingQueue<String>> server = CompletableFuture.supplyAsync(() -> {
					await(start);
					return serverClock(name);
				}, threads);
				CompletableFuture<DelayingQueue<String>> given = CompletableFuture.supplyAsync(() -> {
					await(start);
					return givenClock(name);
				}, threads);
				List<String> built = new ArrayList<>();
				List<Throwable> refused = new ArrayList<>();
				sort(server, "database", built, refused);
				sort(given, "given", built, refused);
				assertThat(built).as("round " + round).hasSize(1);
				assertThat(refused).singleElement()
					.isInstanceOf(IllegalStateException.class)
					.extracting(Throwable::getMessage)
					.asString()
					.contains("Queue '" + name + "'");
				assertThat(mark(name)).isEqualTo("2:" + built.get(0));
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void anotherFormatIsRefusedNamingBoth() {
		serverClock("q");
		TestSql.update("UPDATE " + this.fixture.table() + "_limit SET count = 3 WHERE queue = 'q' AND kind = 'mark'");
		assertThatIllegalStateException().isThrownBy(() -> serverClock("q"))
			.withMessageContaining("format 3")
			.withMessageContaining("format 2")
			.withMessageContaining("Upgrading");
	}

	@Test
	void aLiveInstanceOfThePreviousReleaseIsRefusedAndItsRowsAreReadOnceItIsGone() throws InterruptedException {
		String table = this.fixture.table();
		// What the previous release leaves: an item row, its gauges role, and no mark.
		TestSql.update("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq)"
				+ " VALUES ('q', 'old', 0, 0, statement_timestamp(), nextval('" + table + "_token'))");
		TestSql.update("INSERT INTO " + table + "_limit (queue, kind, item, count, at, holder, expires_at)"
				+ " VALUES ('q', 'gauges', '', 0, statement_timestamp() + interval '1 hour', '4242-old',"
				+ " statement_timestamp() + interval '1 hour')");
		assertThatIllegalStateException().isThrownBy(() -> serverClock("q"))
			.withMessageContaining("previous release")
			.withMessageContaining("4242-old")
			.withMessageContaining("Upgrading");
		assertThat(mark("q")).isNull();
		// Its last instance stopped: the role lapsed.
		TestSql.update("UPDATE " + table + "_limit SET at = statement_timestamp() - interval '1 second'"
				+ " WHERE queue = 'q' AND kind = 'gauges'");
		DelayingQueue<String> queue = serverClock("q");
		assertThat(mark("q")).isEqualTo("2:database");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("old");
		queue.done("old");
	}

	@Test
	void aBuildThatCannotReachTheDatabaseChecksBeforeItsFirstStatement() {
		serverClock("q");
		AtomicBoolean reachable = new AtomicBoolean();
		DataSource shared = this.fixture.tableFixture().dataSource();
		DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection") && !reachable.get()) {
						throw new SQLException("Connection refused (test)", "08001");
					}
					try {
						return method.invoke(shared, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		DelayingQueue<String> late = this.fixture
			.track(PostgresWorkQueues.builder(pool, dev.workqueue.ItemCodec.strings())
				.table(this.fixture.table())
				.name("q")
				.clock(new FakeClock())
				.listen(false)
				.vacuum(VacuumPolicy.NEVER)
				.buildDelayingQueue());
		reachable.set(true);
		assertThatIllegalStateException().isThrownBy(() -> late.add("a")).withMessageContaining("Queue 'q'");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void sort(CompletableFuture<DelayingQueue<String>> build, String kind, List<String> built,
			List<Throwable> refused) {
		try {
			build.join();
			built.add(kind);
		}
		catch (RuntimeException ex) {
			refused.add(ex.getCause());
		}
	}

}

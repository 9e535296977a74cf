package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adds made while the caller has a transaction open on the same database are part of it
 * (the builder's default rule: the data source's connection has auto-commit off): no
 * worker sees them before the commit, a rollback leaves no trace, and many adds commit
 * together, each with its trace context; an {@code addAll} lines up in the order given
 * and locks its rows in item order, so that two transactions adding the same items in
 * other orders do not deadlock. The caller's transaction here is a plain JDBC connection.
 */
@RequiresPostgres
class PostgresTransactionTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> worker() {
		return this.fixture.track(this.fixture.builder("tx").buildDelayingQueue());
	}

	private DelayingQueue<String> adder(CallerTransaction transaction) {
		return this.fixture.track(this.fixture.builder("tx", transaction.dataSource()).buildDelayingQueue());
	}

	private long rows() {
		return TestSql.count(this.fixture.table());
	}

	@Test
	void anAddIsHandedOutOnlyOnceItsTransactionCommitted() throws Exception {
		DelayingQueue<String> worker = worker();
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = adder(transaction);
			adder.add("a");
			assertThat(rows()).as("not visible before the commit").isZero();
			assertThat(worker.poll(Duration.ZERO)).isNull();
			assertThat(adder.poll(Duration.ZERO)).as("the adder's own worker neither").isNull();
			transaction.commit();
		}
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("a");
		worker.done("a");
		assertThat(rows()).isZero();
	}

	@Test
	void anAddInTheCallersTransactionCarriesItsTraceContext() throws Exception {
		DelayingQueue<String> worker = worker();
		Poller<String> poller = Pollers.of(worker);
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = this.fixture.track(this.fixture.builder("tx", transaction.dataSource())
				.traceContextSource(() -> "request")
				.buildDelayingQueue());
			adder.add("a");
			adder.addAll(List.of("b"));
			assertThat(rows()).as("not visible before the commit").isZero();
			transaction.commit();
		}
		for (int i = 0; i < 2; i++) {
			assertThat(poller.poll(Duration.ZERO)).isNotNull();
			assertThat(poller.trace()).isEqualTo(new ItemTrace("request", List.of()));
		}
	}

	@Test
	void aRolledBackAddIsNeverSeen() throws Exception {
		DelayingQueue<String> worker = worker();
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = adder(transaction);
			adder.add("a");
			adder.addAfter("b", Duration.ofMillis(1));
			adder.addAll(List.of("c", "d"));
			assertThat(worker.poll(Duration.ZERO)).isNull();
			transaction.rollback();
		}
		assertThat(rows()).isZero();
		assertThat(worker.poll(Duration.ZERO)).isNull();
		assertThat(worker.stats().waiting()).isZero();
	}

	@Test
	void manyAddsInOneTransactionCommitTogether() throws Exception {
		DelayingQueue<String> worker = worker();
		List<String> items = new ArrayList<>();
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = adder(transaction);
			for (int i = 0; i < 40; i++) {
				adder.add("item-" + i);
				items.add("item-" + i);
			}
			List<String> more = List.of("more-1", "more-2", "item-3");
			adder.addAll(more);
			items.addAll(more.subList(0, 2));
			assertThat(rows()).isZero();
			transaction.commit();
		}
		assertThat(rows()).isEqualTo(items.size());
		List<String> handedOut = new ArrayList<>();
		String next;
		while ((next = worker.poll(Duration.ZERO)) != null) {
			handedOut.add(next);
			worker.done(next);
		}
		assertThat(handedOut).as("in the order they were added").containsExactlyElementsOf(items);
	}

	@Test
	void anAddAllInTheCallersTransactionLinesUpInTheOrderGivenAndAddsAnItemOnce() throws Exception {
		DelayingQueue<String> worker = worker();
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = adder(transaction);
			adder.addAll(List.of("c", "a", "b", "a"));
			transaction.commit();
		}
		List<String> handedOut = new ArrayList<>();
		String next;
		while ((next = worker.poll(Duration.ZERO)) != null) {
			handedOut.add(next);
			worker.done(next);
		}
		assertThat(handedOut).containsExactly("c", "a", "b");
	}

	@Test
	void anAddAllOfAHandleWhoseOwnCommitsDoNotWaitLeavesTheCallersDurabilityAlone() throws Exception {
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = this.fixture.track(
					this.fixture.builder("tx", transaction.dataSource()).synchronousCommit(false).buildDelayingQueue());
			adder.add("a");
			adder.addAll(List.of("b", "c"));
			try (Connection connection = transaction.dataSource().getConnection();
					Statement statement = connection.createStatement();
					ResultSet setting = statement.executeQuery("SHOW synchronous_commit")) {
				setting.next();
				assertThat(setting.getString(1)).isEqualTo("on");
			}
			transaction.commit();
		}
		assertThat(rows()).isEqualTo(3);
	}

	/**
	 * One transaction added a and will add b; the other adds b and a in one call. Were
	 * that call's rows locked in the order given, it would hold b while it waits for a,
	 * and the first transaction's add of b would close the circle: the server would roll
	 * one of them back after its deadlock timeout. Locked in item order, the call waits
	 * for a holding nothing, and both commit.
	 */
	@Test
	void twoTransactionsAddingTheSameItemsInOtherOrdersDoNotDeadlock() throws Exception {
		DelayingQueue<String> worker = worker();
		try (CallerTransaction first = new CallerTransaction(); CallerTransaction second = new CallerTransaction()) {
			DelayingQueue<String> firstAdder = adder(first);
			DelayingQueue<String> secondAdder = adder(second);
			firstAdder.add("a");
			CompletableFuture<Void> secondAdds = CompletableFuture
				.runAsync(() -> secondAdder.addAll(List.of("b", "a")));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> TestSql.queryLong(
						"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?",
						"%" + this.fixture.table() + "%") > 0);
			firstAdder.add("b");
			first.commit();
			secondAdds.get(10, TimeUnit.SECONDS);
			second.commit();
		}
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("b");
		assertThat(worker.poll(Duration.ZERO)).isNull();
		assertThat(rows()).isEqualTo(2);
	}

	@Test
	void anAddInTheCallersTransactionFollowsClientGosRulesWithinIt() throws Exception {
		DelayingQueue<String> worker = worker();
		worker.add("x");
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("x");
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = adder(transaction);
			adder.add("x");
			adder.add("x");
			transaction.commit();
		}
		assertThat(worker.poll(Duration.ZERO)).as("dirty while processing").isNull();
		worker.done("x");
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("x");
		worker.done("x");
		assertThat(worker.poll(Duration.ZERO)).isNull();
	}

	@Test
	void aCallerTransactionSupplierDecidesInsteadOfTheConnection() throws Exception {
		DelayingQueue<String> worker = worker();
		try (CallerTransaction transaction = new CallerTransaction()) {
			// Told there is no transaction: the add commits on a connection of its own.
			DelayingQueue<String> adder = this.fixture.track(this.fixture.builder("tx", transaction.dataSource())
				.callerTransaction(() -> false)
				.buildDelayingQueue());
			adder.add("a");
			transaction.rollback();
		}
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("a");
		worker.done("a");
	}

	/**
	 * The rule of a re-add in a transaction (docs/postgres.md, Transactions): it is
	 * processed after the commit and sees the committed data, also when the item was
	 * queued already; so the re-add locks the item's row, and the queued item is handed
	 * out to nobody until that transaction ends.
	 */
	@Test
	void aReAddInAnOpenTransactionHoldsTheQueuedItemUntilTheCommitAndItsProcessingSeesTheCommittedData()
			throws Exception {
		String orders = this.fixture.table() + "_orders";
		PostgresDatabase.execute("CREATE TABLE " + orders + " (id text)");
		try {
			DelayingQueue<String> worker = worker();
			worker.add("a");
			worker.add("b");
			try (CallerTransaction transaction = new CallerTransaction()) {
				DelayingQueue<String> adder = adder(transaction);
				try (Connection connection = transaction.dataSource().getConnection();
						Statement statement = connection.createStatement()) {
					statement.execute("INSERT INTO " + orders + " VALUES ('a')");
				}
				adder.add("a");
				assertThat(worker.poll(Duration.ZERO)).as("the other ready item").isEqualTo("b");
				assertThat(worker.poll(Duration.ZERO)).as("a, queued and committed before the transaction").isNull();
				transaction.commit();
			}
			assertThat(worker.poll(Duration.ZERO)).isEqualTo("a");
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + orders + " WHERE id = 'a'"))
				.as("what a's processing reads")
				.isEqualTo(1);
			worker.done("a");
			worker.done("b");
		}
		finally {
			PostgresDatabase.execute("DROP TABLE " + orders);
		}
	}

}

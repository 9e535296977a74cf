package dev.workqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A group of dones never holds one item's row while it waits for another's: the done
 * statements lock the group's rows with {@code SKIP LOCKED} and end those, and each
 * skipped lease ends in a statement of its own ({@code done_waiting.sql}), which waits
 * holding no other row. So a caller's transaction holding an item's row neither keeps the
 * group's other dones waiting nor deadlocks with them, and neither does an add of the
 * same items in the other order. The failure history the dones forget is locked the same
 * way: a history row another transaction holds is forgotten after its commit.
 */
@RequiresPostgres
class PostgresGroupedDoneLockTests {

	private static final Duration PROMPTLY = Duration.ofSeconds(5);

	/** Items per group in the races with a batch of adds: the most the engine sends. */
	private static final int GROUP = 64;

	private static final int ROUNDS = 50;

	private final EngineFixture fixture = new EngineFixture();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);

	@AfterEach
	void dropTable() {
		this.executor.shutdownNow();
		this.fixture.close();
	}

	@Test
	void aGroupedDoneEndsAtOnceWhatACallersTransactionDoesNotHoldAndTheRestAfterItsCommit() throws Exception {
		DelayingQueue<String> worker = this.fixture.track(this.fixture.builder("locks").buildDelayingQueue());
		worker.add("a");
		worker.add("b");
		PostgresLease a = held(worker, "a");
		PostgresLease b = held(worker, "b");
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> application = this.fixture
				.track(this.fixture.builder("locks", transaction.dataSource()).buildDelayingQueue());
			// Added while processing: b's row is the transaction's until it commits.
			application.add("b");
			ReleaseStatements releases = EngineFixture.statements(worker).keeper().statements();
			Future<?> done = this.executor.submit(() -> releases.done(List.of(a, b)));
			Awaitility.await()
				.atMost(PROMPTLY)
				.until(() -> rows("a") == 0
						&& TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_lease WHERE token = ?",
								a.token) == 0);
			// A group done holding a while it waits for b would deadlock here.
			application.add("a");
			assertThat(done).isNotDone();
			transaction.commit();
			done.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
		}
		String table = this.fixture.table();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + " WHERE state = 0 AND item IN ('a', 'b')"))
			.as("a added anew, b queued again by its done")
			.isEqualTo(2);
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + "_lease")).isZero();
	}

	@Test
	void aGroupedDoneAndClaimEndsAtOnceWhatACallersTransactionDoesNotHold() throws Exception {
		DelayingQueue<String> worker = this.fixture.track(this.fixture.builder("locks").buildDelayingQueue());
		List.of("a", "b", "c").forEach(worker::add);
		PostgresLease a = held(worker, "a");
		PostgresLease b = held(worker, "b");
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> application = this.fixture
				.track(this.fixture.builder("locks", transaction.dataSource()).buildDelayingQueue());
			application.add("b");
			CompletableFuture<List<String>> answer = CompletableFuture
				.supplyAsync(() -> doneAndClaim(new PostgresLease[] { a, b }), this.executor);
			List<String> claimedThenSkipped = answer.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
			// It claims nothing: the handle ends b on its own first, then claims.
			assertThat(claimedThenSkipped).containsExactly("skipped " + b.token);
			assertThat(rows("a")).isZero();
			application.add("a");
			transaction.commit();
		}
	}

	@Test
	void aDoneAndClaimSkipsTheHistoryACallersTransactionHoldsAndClaimsNone() throws Exception {
		DelayingQueue<String> worker = this.fixture.track(this.fixture.builder("locks").buildDelayingQueue());
		List.of("a", "b", "c").forEach(worker::add);
		PostgresLease a = held(worker, "a");
		PostgresLease b = held(worker, "b");
		String history = "INSERT INTO " + this.fixture.table()
				+ "_limit (queue, kind, item, count, expires_at) VALUES ('locks', 'failures:x', ?, 2, 'infinity')";
		TestSql.update(history, "a");
		TestSql.update(history, "b");
		try (CallerTransaction transaction = new CallerTransaction()) {
			// As a count of b's failures by another instance holds it until the commit.
			transaction.execute("SELECT count FROM " + this.fixture.table() + "_limit WHERE item = 'b' FOR UPDATE");
			CompletableFuture<List<String>> answer = CompletableFuture.supplyAsync(
					() -> doneAndClaim(new PostgresLease[] { a, b }, new String[] { "a", "b" }), this.executor);
			// It waits for no history row, and claims nothing: the handle forgets b's
			// history on its own first, then claims.
			assertThat(answer.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS)).containsExactly("unforgotten b failures:x");
			assertThat(rows("a")).isZero();
			assertThat(rows("b")).isZero();
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_limit WHERE item = 'a'"))
				.isZero();
			transaction.commit();
		}
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_limit WHERE item = 'b'"))
			.as("left for the handle's forget")
			.isEqualTo(1);
	}

	@Test
	void aGroupedDoneAndABatchOfAddsOfTheSameItemsInTheOtherOrderNeverDeadlock() throws Exception {
		raceWithBatches(this.sql.done);
	}

	@Test
	void aGroupedDoneAndClaimAndABatchOfAddsOfTheSameItemsInTheOtherOrderNeverDeadlock() throws Exception {
		raceWithBatches(this.sql.doneAndClaim);
	}

	/**
	 * Races, round after round, a group's dones (items in descending order) with a batch
	 * adding the same items (locked in ascending order): no statement may fail with a
	 * deadlock.
	 */
	private void raceWithBatches(SqlStatement done) throws Exception {
		// Builds the table; its rows here are made by hand.
		this.fixture.track(this.fixture.builder("locks").buildDelayingQueue());
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		List<String> deadlocks = new ArrayList<>();
		for (int round = 0; round < ROUNDS && System.nanoTime() < deadline; round++) {
			String[] items = new String[GROUP];
			for (int n = 0; n < GROUP; n++) {
				items[n] = String.format("r%d-%02d", round, GROUP - n);
			}
			try (Connection ending = PostgresDatabase.connect(); Connection adding = PostgresDatabase.connect()) {
				long[] tokens = holdByHand(ending, items);
				PreparedStatement ends = done.prepare(ending);
				bindDones(done, ends, items, tokens);
				PreparedStatement adds = this.sql.addBatch.prepare(adding);
				bindBatch(adds, items);
				CyclicBarrier start = new CyclicBarrier(2);
				CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> deadlock(start, ends),
						this.executor);
				String second = deadlock(start, adds);
				for (String failure : new String[] { first.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS), second }) {
					if (failure != null) {
						deadlocks.add("round " + round + ": " + failure);
					}
				}
			}
		}
		assertThat(deadlocks).isEmpty();
	}

	/**
	 * Runs a statement as the other party of {@code start} runs its own; returns the
	 * message of a deadlock it failed with, else null.
	 */
	private static String deadlock(CyclicBarrier start, PreparedStatement statement) {
		try {
			start.await(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
			statement.execute();
			return null;
		}
		catch (SQLException ex) {
			if ("40P01".equals(ex.getSQLState())) {
				return ex.getMessage();
			}
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException | BrokenBarrierException | TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Held rows and their lease rows, made by hand in one statement: their tokens. */
	private long[] holdByHand(Connection connection, String[] items) throws SQLException {
		String table = this.fixture.table();
		try (PreparedStatement statement = connection.prepareStatement("WITH h AS (INSERT INTO " + table
				+ " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " SELECT 'locks', i, 1, 0, now(), t, t, 'by-hand' FROM (SELECT i, nextval('" + table
				+ "_token') AS t FROM unnest(?::text[]) AS u(i)) n RETURNING item, token)," + " l AS (INSERT INTO "
				+ table + "_lease (token, queue, item, holder, lease_until)"
				+ " SELECT token, 'locks', item, 'by-hand', now() + interval '1 hour' FROM h)"
				+ " SELECT token FROM h, unnest(?::text[]) WITH ORDINALITY AS o(i, n) WHERE h.item = o.i ORDER BY o.n")) {
			statement.setArray(1, connection.createArrayOf("text", items));
			statement.setArray(2, connection.createArrayOf("text", items));
			long[] tokens = new long[items.length];
			try (ResultSet rows = statement.executeQuery()) {
				for (int n = 0; rows.next(); n++) {
					tokens[n] = rows.getLong(1);
				}
			}
			return tokens;
		}
	}

	/**
	 * Runs {@code done_claim.sql} for {@code leases}, claiming up to 5: the items
	 * claimed, then {@code "skipped <token>"} for each lease whose row it skipped.
	 */
	private List<String> doneAndClaim(PostgresLease[] leases) {
		return doneAndClaim(leases, new String[0]);
	}

	/**
	 * As {@link #doneAndClaim(PostgresLease[])}, forgetting the history of kind
	 * {@code failures:x} of {@code forgets}; then {@code "unforgotten <item> <kind>"} for
	 * each history row it skipped.
	 */
	private List<String> doneAndClaim(PostgresLease[] leases, String[] forgets) {
		SqlStatement done = this.sql.doneAndClaim;
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = done.prepare(connection)) {
			bindDones(done, statement, Arrays.stream(leases).map(PostgresLease::encoded).toArray(String[]::new),
					Arrays.stream(leases).mapToLong((lease) -> lease.token).toArray());
			String[] forgetKinds = new String[forgets.length];
			Arrays.fill(forgetKinds, "failures:x");
			done.setArray(statement, "forget_items", connection.createArrayOf("text", forgets));
			done.setArray(statement, "forget_kinds", connection.createArrayOf("text", forgetKinds));
			List<String> answer = new ArrayList<>();
			Long[] skipped = new Long[0];
			String[] unforgotten = new String[0];
			String[] unforgottenKinds = new String[0];
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					if (rows.getString(1) != null) {
						answer.add(rows.getString(1));
					}
					Array tokens = rows.getArray(10);
					skipped = (tokens != null) ? (Long[]) tokens.getArray() : new Long[0];
					Array items = rows.getArray(11);
					unforgotten = (items != null) ? (String[]) items.getArray() : new String[0];
					Array kinds = rows.getArray(12);
					unforgottenKinds = (kinds != null) ? (String[]) kinds.getArray() : new String[0];
				}
			}
			for (Long token : skipped) {
				answer.add("skipped " + token);
			}
			for (int n = 0; n < unforgotten.length; n++) {
				answer.add("unforgotten " + unforgotten[n] + " " + unforgottenKinds[n]);
			}
			return answer;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void bindDones(SqlStatement done, PreparedStatement statement, String[] items, long[] tokens)
			throws SQLException {
		Connection connection = statement.getConnection();
		done.setNull(statement, "now", Types.DOUBLE);
		done.setString(statement, "queue", "locks");
		done.setArray(statement, "items", connection.createArrayOf("text", items));
		done.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
		done.setArray(statement, "forget_items", connection.createArrayOf("text", new String[0]));
		done.setArray(statement, "forget_kinds", connection.createArrayOf("text", new String[0]));
		if (done == this.sql.doneAndClaim) {
			done.setInt(statement, "limit", 5);
			done.setString(statement, "holder", "test-holder");
			done.setLong(statement, "lease", 30_000_000L);
		}
	}

	private void bindBatch(PreparedStatement statement, String[] items) throws SQLException {
		Connection connection = statement.getConnection();
		SqlStatement batch = this.sql.addBatch;
		String[] ascending = items.clone();
		Arrays.sort(ascending);
		Object[] zeros = new Object[items.length];
		Arrays.fill(zeros, 0);
		batch.setNull(statement, "now", Types.DOUBLE);
		batch.setString(statement, "queue", "locks");
		batch.setArray(statement, "items", connection.createArrayOf("text", ascending));
		batch.setArray(statement, "priorities", connection.createArrayOf("integer", zeros));
		batch.setArray(statement, "delays", QueueDatabase.bigints(connection, new long[items.length]));
		batch.setString(statement, "channel", null);
		batch.setString(statement, "stamp", null);
	}

	private long rows(String item) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE item = ?", item);
	}

	/**
	 * The lease a poll of {@code worker} takes {@code item} by, as the handle books it.
	 */
	private PostgresLease held(DelayingQueue<String> worker, String item) throws InterruptedException {
		assertThat(worker.poll(Duration.ZERO)).isEqualTo(item);
		long token = TestSql.token(this.fixture.table(), item);
		return new PostgresLease(item, token, 0, Long.MAX_VALUE);
	}

}

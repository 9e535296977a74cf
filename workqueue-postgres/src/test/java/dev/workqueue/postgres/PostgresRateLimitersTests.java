package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * {@link PostgresRateLimiters} on the real database: failure counts and buckets shared by
 * two instances (two builders on two pools), forget, per-item buckets, the caller's
 * transaction, history expiry, and errors.
 */
@RequiresPostgres
class PostgresRateLimitersTests {

	private final PostgresFixture fixture = new PostgresFixture();

	/** The other instance's own pool. */
	private final HikariDataSource otherPool = PostgresDatabase.newPool(2);

	private final List<Connection> opened = new ArrayList<>();

	@AfterEach
	void close() throws SQLException {
		for (Connection connection : this.opened) {
			connection.close();
		}
		this.otherPool.close();
		this.fixture.close();
	}

	@Test
	void exponentialFailureCountsAreSharedByTwoInstancesAndForgottenByEither() {
		RateLimiter<String> one = builder().exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
		RateLimiter<String> two = otherBuilder().exponential(Duration.ofMillis(1), Duration.ofSeconds(1));

		assertThat(one.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(two.when("a")).isEqualTo(Duration.ofMillis(2));
		assertThat(one.when("a")).isEqualTo(Duration.ofMillis(4));
		assertThat(two.when("b")).isEqualTo(Duration.ofMillis(1));
		assertThat(one.numRequeues("a")).isEqualTo(3);
		assertThat(two.numRequeues("a")).isEqualTo(3);
		assertThat(two.numRequeues("b")).isEqualTo(1);

		two.forget("a");
		assertThat(one.numRequeues("a")).isZero();
		assertThat(one.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(one.numRequeues("b")).isEqualTo(1);
		// Another queue of the same table has a history of its own.
		RateLimiter<String> invoices = builder().name("invoices")
			.exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
		assertThat(invoices.numRequeues("a")).isZero();
	}

	@Test
	void fastSlowCountsAreShared() {
		RateLimiter<String> one = builder().fastSlow(Duration.ofMillis(1), Duration.ofSeconds(1), 2);
		RateLimiter<String> two = otherBuilder().fastSlow(Duration.ofMillis(1), Duration.ofSeconds(1), 2);
		assertThat(one.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(two.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(one.when("a")).isEqualTo(Duration.ofSeconds(1));
		assertThat(two.numRequeues("a")).isEqualTo(3);
	}

	@Test
	void attemptsCountAcrossInstancesAndLookingCreatesNoRow() throws SQLException {
		FailureCounts<String> one = builder().attempts();
		FailureCounts<String> two = otherBuilder().attempts();
		assertThat(one.countFailure("a")).isZero();
		assertThat(two.countFailure("a")).isEqualTo(1);
		assertThat(one.countFailure("a")).isEqualTo(2);
		assertThat(two.failures("a")).isEqualTo(3);
		assertThat(two.failures("unknown")).isZero();
		assertThat(rows()).isEqualTo(1);

		one.forget("a");
		assertThat(two.failures("a")).isZero();
		assertThat(rows()).isZero();
		one.forget("a");
	}

	@Test
	void concurrentFailuresOfOneItemAreEachCountedOnce() throws InterruptedException {
		FailureCounts<String> one = builder().attempts();
		FailureCounts<String> two = otherBuilder().attempts();
		ConcurrentLinkedQueue<Integer> before = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			FailureCounts<String> counts = (t % 2 == 0) ? one : two;
			threads.add(new Thread(() -> {
				for (int i = 0; i < 25; i++) {
					before.add(counts.countFailure("a"));
				}
			}));
		}
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(before).hasSize(200).doesNotHaveDuplicates().allMatch((count) -> count >= 0 && count < 200);
		assertThat(one.failures("a")).isEqualTo(200);
	}

	@Test
	void aBucketSharedByTwoInstancesObeysItsRateAndBurst() {
		FakeClock clock = new FakeClock();
		RateLimiter<String> one = builder().clock(clock).bucket(10, 3);
		RateLimiter<String> two = otherBuilder().clock(clock).bucket(10, 3);

		assertThat(one.when("a")).isZero();
		assertThat(two.when("b")).isZero();
		assertThat(one.when("c")).isZero();
		assertThat(two.when("a")).isEqualTo(Duration.ofMillis(100));
		assertThat(one.when("d")).isEqualTo(Duration.ofMillis(200));
		clock.step(Duration.ofMillis(150));
		// At 150 ms this token moves the bucket's time to 600 ms: 450 ms ahead, 150 ms
		// beyond the burst's 300.
		assertThat(two.when("e")).isEqualTo(Duration.ofMillis(150));

		clock.step(Duration.ofSeconds(1));
		assertThat(one.when("a")).isZero();
		assertThat(two.when("a")).isZero();
		assertThat(one.when("a")).isZero();
		assertThat(two.when("a")).isEqualTo(Duration.ofMillis(100));
		assertThat(one.numRequeues("a")).isZero();
		one.forget("a");
		assertThat(two.when("a")).isEqualTo(Duration.ofMillis(200));
	}

	@Test
	void aSlowBucketWaitsAsGolangsRateLimiter() {
		FakeClock clock = new FakeClock();
		RateLimiter<String> bucket = builder().clock(clock).bucket(1, 1);
		assertThat(bucket.when("a")).isZero();
		assertThat(bucket.when("a")).isEqualTo(Duration.ofSeconds(1));
		clock.step(Duration.ofMillis(500));
		assertThat(bucket.when("a")).isEqualTo(Duration.ofMillis(1_500));
	}

	@Test
	void anUnlimitedBucketDelaysNothing() {
		FakeClock clock = new FakeClock();
		RateLimiter<String> bucket = builder().clock(clock).bucket(Double.POSITIVE_INFINITY, 1);
		RateLimiter<String> itemBucket = builder().clock(clock).itemBucket(Double.POSITIVE_INFINITY, 1);
		for (int i = 0; i < 100; i++) {
			assertThat(bucket.when("a")).isZero();
			assertThat(itemBucket.when("a")).isZero();
		}
	}

	@Test
	void anItemBucketIsPerItemAndForgetGivesItBackFull() {
		FakeClock clock = new FakeClock();
		RateLimiter<String> one = builder().clock(clock).itemBucket(1, 1);
		RateLimiter<String> two = otherBuilder().clock(clock).itemBucket(1, 1);
		assertThat(one.when("a")).isZero();
		assertThat(two.when("a")).isEqualTo(Duration.ofSeconds(1));
		assertThat(two.when("b")).isZero();
		one.forget("a");
		assertThat(two.when("a")).isZero();
		assertThat(two.numRequeues("a")).isZero();
	}

	@Test
	void theDefaultControllerLimiterBacksOffExponentiallyWithinItsBucket() {
		RateLimiter<String> limiter = builder().defaultControllerRateLimiter();
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(20));
		assertThat(limiter.numRequeues("a")).isEqualTo(3);
		limiter.forget("a");
		assertThat(limiter.numRequeues("a")).isZero();
	}

	@Test
	void aFailureCountJoinsTheCallersTransactionAndARollbackRemovesIt() throws SQLException {
		Connection transaction = openTransaction();
		RateLimiter<String> inside = builder(ProbedDataSource.of(transaction)).exponential(Duration.ofMillis(1),
				Duration.ofSeconds(1));
		RateLimiter<String> outside = otherBuilder().exponential(Duration.ofMillis(1), Duration.ofSeconds(1));

		assertThat(inside.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(inside.when("a")).isEqualTo(Duration.ofMillis(2));
		assertThat(inside.numRequeues("a")).isEqualTo(2);
		assertThat(outside.numRequeues("a")).as("before the commit").isZero();

		transaction.rollback();
		assertThat(outside.numRequeues("a")).isZero();
		assertThat(inside.numRequeues("a")).isZero();
		assertThat(rows()).isZero();
	}

	@Test
	void aFailureCountInTheCallersTransactionCommitsWithIt() throws SQLException {
		Connection transaction = openTransaction();
		FailureCounts<String> inside = builder(ProbedDataSource.of(transaction)).attempts();
		FailureCounts<String> outside = otherBuilder().attempts();
		assertThat(inside.countFailure("a")).isZero();
		assertThat(outside.failures("a")).isZero();
		transaction.commit();
		assertThat(outside.failures("a")).isEqualTo(1);
		inside.forget("a");
		assertThat(outside.failures("a")).as("the forget is in the next transaction").isEqualTo(1);
		transaction.commit();
		assertThat(outside.failures("a")).isZero();
	}

	@Test
	void outsideACallersTransactionACountCommitsEvenWhenThePoolTurnsAutoCommitOff() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(1);
		config.setAutoCommit(false);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			FailureCounts<String> counts = builder(pool).callerTransaction(() -> false).attempts();
			FailureCounts<String> outside = otherBuilder().attempts();
			assertThat(counts.countFailure("a")).isZero();
			assertThat(outside.failures("a")).isEqualTo(1);
		}
	}

	@Test
	void aBucketTakesItsTokenOutsideTheCallersTransactionGivenAWorkerDataSource() throws SQLException {
		FakeClock clock = new FakeClock();
		Connection transaction = openTransaction();
		RateLimiter<String> bucket = builder(ProbedDataSource.of(transaction)).clock(clock)
			.workerDataSource(this.otherPool)
			.bucket(1, 1);
		assertThat(bucket.when("a")).isZero();
		assertThat(rows()).as("committed at once").isEqualTo(1);
		transaction.rollback();
		assertThat(bucket.when("a")).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void withoutAWorkerDataSourceABucketJoinsTheCallersTransaction() throws SQLException {
		FakeClock clock = new FakeClock();
		Connection transaction = openTransaction();
		RateLimiter<String> bucket = builder(ProbedDataSource.of(transaction)).clock(clock).bucket(1, 1);
		assertThat(bucket.when("a")).isZero();
		assertThat(rows()).isZero();
		transaction.rollback();
		assertThat(bucket.when("a")).isZero();
	}

	@Test
	void aFailureHistoryExpiresAfterItsTimeToLiveWithoutAnotherFailure() throws SQLException {
		FailureCounts<String> counts = builder().historyTtl(Duration.ofSeconds(1)).attempts();
		assertThat(counts.countFailure("a")).isZero();
		Timestamp first = expiresAt("a");
		assertThat(counts.countFailure("a")).isEqualTo(1);
		assertThat(expiresAt("a")).as("refreshed by each failure").isAfter(first);

		await().atMost(Duration.ofSeconds(5)).until(() -> counts.failures("a") == 0);
		assertThat(rows()).as("expired, not yet swept").isEqualTo(1);
		assertThat(counts.countFailure("a")).as("counts afresh").isZero();
		assertThat(counts.failures("a")).isEqualTo(1);
	}

	@Test
	void theHistoryLivesADayByDefault() throws SQLException {
		builder().attempts().countFailure("a");
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT expires_at - statement_timestamp() FROM " + this.fixture.table()
							+ "_limit WHERE item = 'a'");
				ResultSet result = statement.executeQuery()) {
			assertThat(result.next()).isTrue();
			assertThat(result.getString(1)).startsWith("23:59:");
		}
	}

	@Test
	void aMissingTableFailsNamingTheQueueAndTheTable() {
		RateLimiter<String> limiter = PostgresRateLimiters.builder(this.fixture.dataSource(), ItemCodec.strings())
			.table("wq_no_such_table")
			.name("orders")
			.exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> limiter.when("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.MISSING_TABLE))
			.withMessageContaining("queue 'orders'")
			.withMessageContaining("wq_no_such_table_limit");
	}

	@Test
	void anItemThatPostgresCannotStoreIsRefusedBeforeAnySql() {
		ProbedDataSource unused = new ProbedDataSource(this.fixture.dataSource());
		PostgresRateLimiters.Builder<String> builder = builder(unused);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.attempts().countFailure("a\0b"))
			.withMessageContaining("item");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.itemBucket(1, 1).when("a\0b"))
			.withMessageContaining("item");
		assertThatNullPointerException().isThrownBy(() -> builder.bucket(1, 1).when(null)).withMessage("item");
		assertThatNullPointerException().isThrownBy(() -> builder.attempts().forget(null)).withMessage("item");
		assertThat(unused.taken()).isZero();
	}

	@Test
	void oddItemsAreKeptApart() {
		FailureCounts<String> counts = builder().attempts();
		List<String> items = List.of("", " ", "é", "e\u0301", "✓", "x".repeat(5_000), "a'b", "a\\b", "a;b");
		for (String item : items) {
			counts.countFailure(item);
		}
		for (String item : items) {
			assertThat(counts.failures(item)).as(item).isEqualTo(1);
		}
	}

	@Test
	void theQueueBuildersLimitersTakeItsDataSourceTableNameClockAndWorkerDataSource() throws SQLException {
		FakeClock clock = new FakeClock();
		Connection transaction = openTransaction();
		PostgresWorkQueues.Builder<String> queue = PostgresWorkQueues
			.builder(ProbedDataSource.of(transaction), ItemCodec.strings())
			.table(this.fixture.table())
			.name("orders")
			.clock(clock)
			.workerDataSource(this.otherPool);
		PostgresRateLimiters.Builder<String> limiters = queue.rateLimiters();
		queue.name("later");
		FailureCounts<String> attempts = limiters.attempts();
		FailureCounts<String> outside = otherBuilder().attempts();
		assertThat(attempts.countFailure("a")).isZero();
		assertThat(outside.failures("a")).as("in the caller's transaction, as the queue's adds").isZero();
		transaction.commit();
		assertThat(outside.failures("a")).as("the same table and name, not the later name").isEqualTo(1);
		RateLimiter<String> bucket = limiters.bucket(1, 1);
		assertThat(bucket.when("b")).isZero();
		transaction.rollback();
		assertThat(bucket.when("b")).as("taken outside the transaction, on the queue's clock")
			.isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void theQueueBuildersLimitersFollowItsCallerTransactionRule() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(1);
		config.setAutoCommit(false);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			PostgresWorkQueues.Builder<String> queue = PostgresWorkQueues.builder(pool, ItemCodec.strings())
				.table(this.fixture.table())
				.name("orders");
			FailureCounts<String> joining = queue.rateLimiters().attempts();
			FailureCounts<String> outside = otherBuilder().attempts();
			assertThat(joining.countFailure("a")).isZero();
			assertThat(outside.failures("a")).as("auto-commit off read as a caller's transaction, never committed")
				.isZero();
			FailureCounts<String> own = queue.callerTransaction(() -> false).rateLimiters().attempts();
			assertThat(own.countFailure("a")).isZero();
			assertThat(outside.failures("a")).isEqualTo(1);
		}
	}

	@Test
	void theLimitersOfAnUnnamedQueueBuilderMustBeNamed() {
		PostgresRateLimiters.Builder<String> limiters = PostgresWorkQueues
			.builder(this.fixture.dataSource(), ItemCodec.strings())
			.table(this.fixture.table())
			.rateLimiters();
		assertThatIllegalStateException().isThrownBy(limiters::attempts).withMessageContaining("name");
		assertThat(limiters.name("orders").attempts().countFailure("a")).isZero();
		assertThat(otherBuilder().attempts().failures("a")).isEqualTo(1);
	}

	@Test
	void theBuilderRefusesWhatItCannotUse() {
		PostgresRateLimiters.Builder<String> unnamed = PostgresRateLimiters.builder(this.fixture.dataSource(),
				ItemCodec.strings());
		assertThatIllegalStateException().isThrownBy(unnamed::attempts).withMessageContaining("name");
		assertThatIllegalArgumentException().isThrownBy(() -> unnamed.name("")).withMessageContaining("name");
		assertThatIllegalArgumentException().isThrownBy(() -> unnamed.table("a;b")).withMessageContaining("table");
		assertThatIllegalArgumentException().isThrownBy(() -> unnamed.historyTtl(Duration.ofMillis(999)))
			.withMessageContaining("historyTtl");
		assertThatIllegalArgumentException().isThrownBy(() -> unnamed.historyTtl(Duration.ofDays(36_526)))
			.withMessageContaining("historyTtl");
		PostgresRateLimiters.Builder<String> named = unnamed.name("orders");
		for (double qps : new double[] { 0, -1, Double.NaN, Double.NEGATIVE_INFINITY }) {
			assertThatIllegalArgumentException().isThrownBy(() -> named.bucket(qps, 1)).withMessageContaining("qps");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> named.itemBucket(1, 0)).withMessageContaining("burst");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> named.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessageContaining("maxDelay");
		assertThatNullPointerException().isThrownBy(() -> PostgresRateLimiters.builder(null, ItemCodec.strings()))
			.withMessage("dataSource");
	}

	private PostgresRateLimiters.Builder<String> builder() {
		return builder(this.fixture.dataSource());
	}

	private PostgresRateLimiters.Builder<String> otherBuilder() {
		return builder(this.otherPool);
	}

	private PostgresRateLimiters.Builder<String> builder(javax.sql.DataSource dataSource) {
		return PostgresRateLimiters.builder(dataSource, ItemCodec.strings()).table(this.fixture.table()).name("orders");
	}

	private Connection openTransaction() throws SQLException {
		Connection connection = PostgresDatabase.connect();
		this.opened.add(connection);
		connection.setAutoCommit(false);
		return connection;
	}

	/** The rows of the limiters' table, as another connection sees them. */
	private long rows() throws SQLException {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT count(*) FROM " + this.fixture.table() + "_limit");
				ResultSet result = statement.executeQuery()) {
			result.next();
			return result.getLong(1);
		}
	}

	private Timestamp expiresAt(String item) throws SQLException {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT expires_at FROM " + this.fixture.table() + "_limit WHERE item = ?")) {
			statement.setString(1, item);
			try (ResultSet result = statement.executeQuery()) {
				assertThat(result.next()).isTrue();
				return result.getTimestamp(1);
			}
		}
	}

}

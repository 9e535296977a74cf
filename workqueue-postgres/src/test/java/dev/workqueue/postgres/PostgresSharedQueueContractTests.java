package dev.workqueue.postgres;

import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.shared.SharedQueueContract;
import dev.workqueue.shared.SharedStore;

/**
 * Core's {@link SharedQueueContract}, the rules of every shared store, on PostgreSQL:
 * each test's queue lives in a table of its own on the shared database, and each handle
 * has a pool of its own (poll-only, every 50 ms, never vacuuming, as
 * {@link EngineFixture}'s). The row lock hook is a {@code SELECT ... FOR UPDATE} of the
 * item's row in a transaction of its own; the leases hook reads and writes the rows, and
 * empties the store with a {@code TRUNCATE ... RESTART IDENTITY} (run again if a deadlock
 * with a handle's statement fails it).
 */
@RequiresPostgres
class PostgresSharedQueueContractTests extends SharedQueueContract {

	@Override
	protected SharedStore newStore() {
		return new Store();
	}

	/** One test's queue: a {@link PostgresFixture}'s table, a pool per handle. */
	static final class Store implements SharedStore {

		private static final String NAME = "shared";

		private final PostgresFixture table = new PostgresFixture();

		private final List<WorkQueue<?>> handles = new ArrayList<>();

		private final List<HikariDataSource> pools = new ArrayList<>();

		@Override
		public String name() {
			return "PostgreSQL";
		}

		@Override
		public String claimMarker() {
			// The claim's statement; the handles opened through a proxy send its text
			// with every claim (no server-side prepared statements).
			return "claimed AS (UPDATE";
		}

		@Override
		public DelayingQueue<String> open(Duration lease) {
			return open(PostgresDatabase.URL, lease);
		}

		@Override
		public DelayingQueue<String> open(Duration lease, int port) {
			InetSocketAddress server = server();
			String direct = "//" + server.getHostString() + ":" + server.getPort() + "/";
			if (!PostgresDatabase.URL.contains(direct)) {
				throw new IllegalStateException("Cannot route " + PostgresDatabase.URL
						+ " through a proxy: it names no " + direct.substring(2, direct.length() - 1));
			}
			String url = PostgresDatabase.URL.replace(direct, "//127.0.0.1:" + port + "/");
			return open(url + (url.contains("?") ? "&" : "?") + "prepareThreshold=0", lease);
		}

		private DelayingQueue<String> open(String url, Duration lease) {
			HikariDataSource pool = pool(url);
			this.pools.add(pool);
			DelayingQueue<String> handle = handle(pool, this.table.table(), lease);
			this.handles.add(handle);
			return handle;
		}

		static HikariDataSource pool(String url) {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url);
			config.setMaximumPoolSize(4);
			config.setConnectionTimeout(30_000);
			return new HikariDataSource(config);
		}

		static DelayingQueue<String> handle(HikariDataSource pool, String table, Duration lease) {
			return PostgresWorkQueues.builder(pool, ItemCodec.strings())
				.table(table)
				.name(NAME)
				.lease(lease)
				.listen(false)
				.pollInterval(Duration.ofMillis(50))
				.vacuum(VacuumPolicy.NEVER)
				.buildDelayingQueue();
		}

		@Override
		public InetSocketAddress server() {
			URI uri = URI.create(PostgresDatabase.URL.substring("jdbc:".length()));
			return new InetSocketAddress(uri.getHost(), (uri.getPort() != -1) ? uri.getPort() : 5432);
		}

		@Override
		public Optional<Duration> latestLease() {
			Long micros = TestSql
				.queryLong("SELECT (extract(epoch FROM max(lease_until) - clock_timestamp()) * 1000000)::bigint"
						+ " FROM " + this.table.table() + "_lease WHERE queue = ?", NAME);
			return Optional.ofNullable(micros).map((left) -> Duration.ofNanos(left * 1000));
		}

		@Override
		public Optional<String> records(Collection<String> items) {
			String table = this.table.table();
			String list = String.join(",", items);
			String rows = TestSql
				.queryString("SELECT string_agg(format('%s: state %s, token %s, holder %s, ready at %s,"
						+ " dirty at %s', item, state, token, holder, ready_at, dirty_at), '; ') FROM " + table
						+ " WHERE queue = ? AND item = ANY(string_to_array(?, ','))", NAME, list);
			String leases = TestSql.queryString(
					"SELECT string_agg(format('%s: token %s, holder %s, until %s', item, token, holder, lease_until),"
							+ " '; ') FROM " + table + "_lease WHERE queue = ? AND item = ANY(string_to_array(?, ','))",
					NAME, list);
			String givenUp = TestSql.queryString("SELECT string_agg(format('%s: %s', item, reason), '; ') FROM " + table
					+ "_given_up WHERE queue = ? AND item = ANY(string_to_array(?, ','))", NAME, list);
			return Optional.of("rows [" + rows + "], lease rows [" + leases + "], given up [" + givenUp + "]");
		}

		@Override
		public List<String> processOpener() {
			return List.of(PostgresProcessOpener.class.getName(), PostgresDatabase.URL, this.table.table());
		}

		@Override
		public Optional<Leases> leases() {
			String table = this.table.table();
			return Optional.of(new Leases() {

				@Override
				public String token(String item) {
					Long token = TestSql.token(table, item);
					return (token != null) ? token.toString() : null;
				}

				@Override
				public void expire(String item) {
					TestSql.expireLeaseByHand(table, item);
				}

				@Override
				public void empty() {
					TestSql.updateBreakingDeadlocks("TRUNCATE " + table + ", " + table + "_lease RESTART IDENTITY");
				}

			});
		}

		@Override
		public Optional<RowLocks> rowLocks() {
			return Optional.of((item) -> {
				Connection connection = PostgresDatabase.connect();
				connection.setAutoCommit(false);
				try (PreparedStatement lock = connection.prepareStatement(
						"SELECT item FROM " + this.table.table() + " WHERE queue = ? AND item = ? FOR UPDATE")) {
					lock.setString(1, NAME);
					lock.setString(2, item);
					try (ResultSet row = lock.executeQuery()) {
						if (!row.next()) {
							connection.close();
							throw new IllegalStateException("No row to lock for " + item);
						}
					}
				}
				return () -> {
					connection.rollback();
					connection.close();
				};
			});
		}

		@Override
		public void close() {
			try {
				for (WorkQueue<?> handle : this.handles) {
					handle.shutDown();
				}
				for (WorkQueue<?> handle : this.handles) {
					EngineFixture.handle(handle).handBack();
					LeaseKeeper keeper = EngineFixture.statements(handle).keeper();
					Awaitility.await().atMost(Duration.ofSeconds(10)).until(keeper::stopped);
				}
			}
			finally {
				this.pools.forEach(HikariDataSource::close);
				this.table.close();
			}
		}

	}

}

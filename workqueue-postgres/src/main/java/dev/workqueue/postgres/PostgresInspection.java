package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.store.EpochMicros;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.ReadySignal;

/**
 * An operator's look into a queue kept in a PostgreSQL table: core's
 * {@link InspectionDriver} over the table. Each method is one statement
 * ({@link QueueSql}), on a connection of the handle's own that never joins a caller's
 * transaction (an operator's action is not part of the caller's work), as {@code done}'s.
 * <p>
 * The given-up records are rows of {@code {table}_given_up}; the pause is the queue's
 * {@code paused} row in {@code {table}_limit}, which every claim reads.
 * <p>
 * A processing item's {@code at} is when its claim handed it out (its lease row's
 * {@code leased_at}; for a lease written by a release before that column, when it became
 * ready before that), its lease left 0 once run out and not swept yet. What the table
 * cannot tell: whether an instance claimed it ahead for a waiting worker ({@code ahead}
 * is always {@code false}). The attempts of an item not given up are max-retries' count
 * ({@code failures:attempts}), 0 where none was counted. Thread-safe: it keeps no state
 * of its own.
 */
final class PostgresInspection implements InspectionDriver {

	/** The states of {@code find.sql}'s first column, from 1. */
	private static final ItemState[] FOUND = { ItemState.PROCESSING, ItemState.READY, ItemState.WAITING,
			ItemState.GIVEN_UP };

	private final QueueDatabase database;

	private final QueueSql sql;

	private final QueueNotices notices;

	private final ReadySignal signal;

	private final String holder;

	private final GivenUpBound bound;

	PostgresInspection(QueueDatabase database, QueueSql sql, QueueNotices notices, ReadySignal signal, String holder,
			GivenUpBound bound) {
		this.database = database;
		this.sql = sql;
		this.notices = notices;
		this.signal = signal;
		this.holder = holder;
		this.bound = bound;
	}

	@Override
	public String backend() {
		return "postgres";
	}

	@Override
	public String instance() {
		return this.holder;
	}

	@Override
	public List<ItemView> items(ItemState state, int offset, int limit) {
		SqlStatement statement = switch (state) {
			case READY -> this.sql.itemsReady;
			case PROCESSING -> this.sql.itemsProcessing;
			case WAITING -> this.sql.itemsWaiting;
			case GIVEN_UP -> this.sql.itemsGivenUp;
		};
		return this.database.run("list the items of", (connection) -> {
			try (PreparedStatement prepared = statement.prepare(connection)) {
				this.database.bindNow(statement, prepared);
				statement.setString(prepared, "queue", this.database.name());
				statement.setInt(prepared, "limit", limit);
				statement.setInt(prepared, "offset", offset);
				if (state == ItemState.GIVEN_UP) {
					statement.setLong(prepared, "retention", retentionMicros(this.bound));
				}
				try (ResultSet rows = prepared.executeQuery()) {
					List<ItemView> items = new ArrayList<>();
					while (rows.next()) {
						items.add(view(state, rows));
					}
					return items;
				}
			}
		});
	}

	/** One row of a list's answer, as its statement's header gives it. */
	private static ItemView view(ItemState state, ResultSet rows) throws SQLException {
		return switch (state) {
			case READY, WAITING -> new ItemView(rows.getString(1), state, rows.getInt(2),
					EpochMicros.instant(rows.getLong(3)), null, null, false, rows.getInt(4), null);
			case PROCESSING ->
				new ItemView(rows.getString(1), state, rows.getInt(2), EpochMicros.instant(rows.getLong(5)),
						rows.getString(3), duration(rows, 4), false, rows.getInt(6), null);
			case GIVEN_UP -> new ItemView(rows.getString(1), state, 0, EpochMicros.instant(rows.getLong(5)),
					rows.getString(4), null, false, rows.getInt(2), rows.getString(3));
		};
	}

	/**
	 * {@inheritDoc} Text no item can hold (a NUL, which adds refuse) is found nowhere,
	 * without a statement: PostgreSQL would refuse it as a parameter.
	 */
	@Override
	public List<ItemView> find(String encoded) {
		if (!HandleStatements.storable(encoded)) {
			return List.of();
		}
		SqlStatement find = this.sql.find;
		return this.database.run("find an item in", (connection) -> {
			try (PreparedStatement prepared = find.prepare(connection)) {
				this.database.bindNow(find, prepared);
				find.setString(prepared, "queue", this.database.name());
				find.setString(prepared, "item", encoded);
				find.setLong(prepared, "retention", retentionMicros(this.bound));
				try (ResultSet rows = prepared.executeQuery()) {
					List<ItemView> found = new ArrayList<>(3);
					while (rows.next()) {
						ItemState state = FOUND[rows.getInt(1) - 1];
						found.add(new ItemView(encoded, state, rows.getInt(2), EpochMicros.instant(rows.getLong(3)),
								rows.getString(4), duration(rows, 5), false, rows.getInt(6), rows.getString(7)));
					}
					return found;
				}
			}
		});
	}

	@Override
	public int givenUpCount() {
		SqlStatement count = this.sql.givenUpCount;
		return this.database.run("count the given-up items of", (connection) -> {
			try (PreparedStatement prepared = count.prepare(connection)) {
				this.database.bindNow(count, prepared);
				count.setString(prepared, "queue", this.database.name());
				count.setLong(prepared, "retention", retentionMicros(this.bound));
				try (ResultSet rows = prepared.executeQuery()) {
					rows.next();
					return rows.getInt(1);
				}
			}
		});
	}

	/**
	 * {@inheritDoc} A bound of 0 keeps nothing and writes nothing: the records other
	 * instances keep, under their bounds, stay.
	 */
	@Override
	public void keepGivenUp(String encoded, int attempts, String reason) {
		if (this.bound.keep() == 0) {
			return;
		}
		SqlStatement keep = this.sql.keepGivenUp;
		this.database.run("keep a given-up item of", (connection) -> {
			try (PreparedStatement prepared = keep.prepare(connection)) {
				this.database.bindNow(keep, prepared);
				keep.setString(prepared, "queue", this.database.name());
				keep.setString(prepared, "item", encoded);
				keep.setInt(prepared, "attempts", attempts);
				keep.setString(prepared, "reason", storableReason(reason));
				keep.setString(prepared, "holder", this.holder);
				bindBound(keep, prepared, this.bound);
				prepared.executeQuery().close();
				return null;
			}
		});
	}

	/**
	 * A given-up reason as PostgreSQL can keep it: an exception's text may hold a NUL (a
	 * binary body quoted), which no {@code text} value can, so each is kept as U+FFFD: a
	 * record with its reason mended rather than none, or, for an undecodable payload, one
	 * never moved aside and claimed again and again.
	 * @param reason the reason
	 * @return the reason without NUL characters
	 */
	static String storableReason(String reason) {
		return reason.replace('\0', '\uFFFD');
	}

	/** {@inheritDoc} Text no item can hold has no record, as for {@link #find}. */
	@Override
	public boolean deleteGivenUp(String encoded, Instant givenUpAt) {
		if (!HandleStatements.storable(encoded)) {
			return false;
		}
		SqlStatement delete = this.sql.deleteGivenUp;
		return this.database.run("delete a given-up item of", (connection) -> {
			try (PreparedStatement prepared = delete.prepare(connection)) {
				this.database.bindNow(delete, prepared);
				delete.setString(prepared, "queue", this.database.name());
				delete.setString(prepared, "item", encoded);
				delete.setLong(prepared, "retention", retentionMicros(this.bound));
				delete.setObject(prepared, "at", (givenUpAt != null) ? EpochMicros.of(givenUpAt) : null, Types.BIGINT);
				try (ResultSet rows = prepared.executeQuery()) {
					rows.next();
					return rows.getInt(1) > 0;
				}
			}
		});
	}

	/**
	 * {@inheritDoc} A resume's notice reaches every listening handle at its commit, this
	 * one too; a handle that does not listen wakes its own consumers here (the others
	 * look within their poll interval).
	 */
	@Override
	public void pause(boolean paused) {
		if (paused) {
			SqlStatement pause = this.sql.pause;
			this.database.run("pause", (connection) -> {
				try (PreparedStatement prepared = pause.prepare(connection)) {
					this.database.bindNow(pause, prepared);
					pause.setString(prepared, "queue", this.database.name());
					pause.setString(prepared, "holder", this.holder);
					return prepared.executeUpdate();
				}
			});
			return;
		}
		SqlStatement resume = this.sql.resume;
		String channel = this.notices.channel();
		this.database.run("resume", (connection) -> {
			try (PreparedStatement prepared = resume.prepare(connection)) {
				resume.setString(prepared, "queue", this.database.name());
				resume.setString(prepared, "channel", channel);
				resume.setString(prepared, "payload", (channel != null) ? this.notices.payload(0) : null);
				prepared.executeQuery().close();
				return null;
			}
		});
		if (channel == null) {
			this.signal.signal();
		}
	}

	@Override
	public boolean paused() {
		SqlStatement paused = this.sql.paused;
		return this.database.run("read the pause of", (connection) -> {
			try (PreparedStatement prepared = paused.prepare(connection)) {
				paused.setString(prepared, "queue", this.database.name());
				try (ResultSet rows = prepared.executeQuery()) {
					rows.next();
					return rows.getBoolean(1);
				}
			}
		});
	}

	/**
	 * Binds a given-up bound's {@code :keep} and {@code :retention}, for
	 * {@code keep_given_up.sql} and {@code dead_letter.sql}.
	 */
	static void bindBound(SqlStatement sql, PreparedStatement statement, GivenUpBound bound) throws SQLException {
		sql.setInt(statement, "keep", bound.keep());
		sql.setLong(statement, "retention", retentionMicros(bound));
	}

	/** At most 100 years: fits in nanoseconds. */
	static long retentionMicros(GivenUpBound bound) {
		return bound.retention().toNanos() / 1000;
	}

	/** A column of µs, {@code null} for SQL's null. */
	private static Duration duration(ResultSet rows, int column) throws SQLException {
		long micros = rows.getLong(column);
		return rows.wasNull() ? null : Duration.ofNanos(micros * 1000);
	}

}

package dev.workqueue.postgres;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The name of a queue table, checked: letters, digits, {@code _} and {@code $} (never two
 * {@code $} in a row, which would end the schema's {@code DO $$} blocks), optionally
 * after a schema and a dot, short enough that the names derived from it ({@code _lease},
 * {@code _limit}, the indexes) stay distinct once PostgreSQL cuts them at 63 bytes: at
 * {@value #MAX_LENGTH} characters {@code _lease_ends} and {@code _limit_expiry} are cut
 * and still differ from every other name, at one more {@code _leases} would be cut to
 * {@code _lease}, the lease table's name. The builders, the schema, the notices and the
 * table keeper all take a table through this one check. Immutable.
 *
 * @param name the name as given, which the SQL uses unquoted
 */
record TableName(String name) {

	/** The most characters of the table's own name, without its schema. */
	static final int MAX_LENGTH = 56;

	/**
	 * One SQL identifier, optionally qualified by a schema (PostgreSQL's length limit),
	 * the table's own name at most {@link #MAX_LENGTH} characters.
	 */
	private static final Pattern PATTERN = Pattern
		.compile("([a-z_][a-z0-9_$]{0,62}\\.)?[a-z_][a-z0-9_$]{0," + (MAX_LENGTH - 1) + "}", Pattern.CASE_INSENSITIVE);

	/**
	 * Checks the name.
	 * @throws IllegalArgumentException if it is not a plain SQL identifier
	 */
	TableName {
		Objects.requireNonNull(name, "table");
		if (!PATTERN.matcher(name).matches() || name.contains("$$")) {
			throw new IllegalArgumentException(
					"table must be a plain SQL identifier (letters, digits, _ and $ but not $$, at most " + MAX_LENGTH
							+ " characters), optionally schema-qualified, was '" + name + "'");
		}
	}

	/**
	 * The name as PostgreSQL knows it: unquoted names fold to lower case, so
	 * {@code Items} and {@code items} are one table.
	 * @return the folded name
	 */
	String folded() {
		return this.name.toLowerCase(Locale.ROOT);
	}

}

package dev.workqueue.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One PostgreSQL statement, read from its file under {@code sql/} beside this class and
 * made ready for one queue's table: the twin of the Redis module's Lua scripts. A file
 * starts with a header of {@code --} lines (what the statement does, its twin if any, its
 * {@code Parameters:} one {@code :name} a line, what it {@code Returns:}, why it cannot
 * race); then the statement, whole, with named parameters ({@code :queue}) and the
 * substitutions that cannot be parameters, each chosen once per queue:
 * <ul>
 * <li>{@code {table}}, the queue's table;</li>
 * <li>{@code {order:r}}, the {@code ORDER BY} list of the queue's {@link ReadyOrder} for
 * the alias {@code r};</li>
 * <li>{@code {async_commit}}, in the clock's CTE: for a handle whose commits do not wait
 * for the disk, {@value #ASYNC_COMMIT}, else nothing. Not a boolean parameter: a volatile
 * function makes PostgreSQL materialise the CTE instead of inlining it, and {@code now}
 * is then no longer a constant of the plan (a ready count's index condition on it becomes
 * a join), which the default, synchronous, handles must not pay.</li>
 * </ul>
 * The order's {@code :keeps_waits} is a parameter (it picks branches of an add's conflict
 * clause, outside the plan), bound by {@link #prepare}. Comment lines are not sent.
 * <p>
 * Each file is read once per class loader; a handle's statements are made once, at its
 * build: the named parameters become JDBC's {@code ?} and each name keeps the positions
 * it took, so binding by name is a map lookup per name. Immutable and thread-safe.
 */
final class SqlStatement {

	/** Where the statements live, below this class's package. */
	static final String FOLDER = "sql/";

	/**
	 * The clause that turns {@code synchronous_commit} off for the statement's
	 * transaction.
	 */
	static final String ASYNC_COMMIT = " FROM (SELECT set_config('synchronous_commit', 'off', true)) s";

	private static final Pattern PARAMETER = Pattern.compile("(?<![:\\w]):([a-z_][a-z0-9_]*)");

	private static final Pattern ORDER = Pattern.compile("\\{order:([a-z])\\}");

	private static final String KEEPS_WAITS = "keeps_waits";

	private static final int[] NONE = new int[0];

	private static final Map<String, String> FILES = new ConcurrentHashMap<>();

	private final String name;

	private final String text;

	private final Map<String, int[]> positions;

	private final int[] keepsWaitsAt;

	private final boolean keepsWaits;

	private SqlStatement(String name, String text, Map<String, int[]> positions, boolean keepsWaits) {
		this.name = name;
		this.text = text;
		this.positions = positions;
		this.keepsWaitsAt = positions.getOrDefault(KEEPS_WAITS, NONE);
		this.keepsWaits = keepsWaits;
	}

	/**
	 * Makes a statement that depends on no ready order, with synchronous commits.
	 * @param name the file's name below {@link #FOLDER}, without {@code .sql}
	 * @param table the table, checked, for {@code {table}}; {@code null} if there is none
	 * @return the statement
	 */
	static SqlStatement load(String name, String table) {
		return load(name, table, null, true);
	}

	/**
	 * Makes a statement for a queue.
	 * @param name the file's name below {@link #FOLDER}, without {@code .sql}
	 * @param table the table, checked
	 * @param order the ready order for {@code {order:…}} and {@code :keeps_waits},
	 * {@code null} for none
	 * @param synchronousCommit whether the handle's own commits wait for the disk
	 * @return the statement
	 * @throws IllegalArgumentException if the statement needs a table or an order not
	 * given
	 */
	static SqlStatement load(String name, String table, ReadyOrder order, boolean synchronousCommit) {
		String body = body(read(name)).replace("{async_commit}", synchronousCommit ? "" : ASYNC_COMMIT);
		if ((table == null && body.contains("{table}"))
				|| (order == null && (body.contains("{order:") || body.contains(":" + KEEPS_WAITS)))) {
			throw new IllegalArgumentException("Statement " + name + " needs a table and a ready order");
		}
		if (table != null) {
			body = body.replace("{table}", table);
		}
		Matcher orders = ORDER.matcher(body);
		StringBuilder ordered = new StringBuilder();
		while (orders.find()) {
			orders.appendReplacement(ordered, Matcher.quoteReplacement(order.orderBy(orders.group(1))));
		}
		orders.appendTail(ordered);
		Map<String, List<Integer>> found = new HashMap<>();
		Matcher parameters = PARAMETER.matcher(ordered);
		StringBuilder text = new StringBuilder();
		int position = 0;
		while (parameters.find()) {
			found.computeIfAbsent(parameters.group(1), (key) -> new ArrayList<>()).add(++position);
			parameters.appendReplacement(text, "?");
		}
		parameters.appendTail(text);
		Map<String, int[]> positions = new HashMap<>();
		found.forEach((key, at) -> positions.put(key, at.stream().mapToInt(Integer::intValue).toArray()));
		return new SqlStatement(name, text.toString(), Map.copyOf(positions), order != null && order.keepsWaits());
	}

	/**
	 * Reads a statement's file as it is, header included; once per file.
	 * @param name its name below {@link #FOLDER}, without {@code .sql}
	 * @return its text
	 * @throws IllegalStateException if there is no such file
	 */
	static String read(String name) {
		return FILES.computeIfAbsent(name, SqlStatement::readFile);
	}

	private static String readFile(String name) {
		try (InputStream in = SqlStatement.class.getResourceAsStream(FOLDER + name + ".sql")) {
			if (in == null) {
				throw new IllegalStateException("Missing statement " + FOLDER + name + ".sql");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The statement of a file without its comment lines.
	 * @param file the file's text
	 * @return the statement
	 */
	static String body(String file) {
		StringBuilder body = new StringBuilder();
		for (String line : file.split("\n")) {
			if (!line.isBlank() && !line.stripLeading().startsWith("--")) {
				body.append((body.length() > 0) ? "\n" : "").append(line);
			}
		}
		return body.toString();
	}

	/**
	 * The names of the parameters of a statement, each once, in the order they first
	 * appear.
	 * @param body the statement, without comments
	 * @return the names, without the colon
	 */
	static List<String> parameters(String body) {
		List<String> names = new ArrayList<>();
		Matcher parameters = PARAMETER.matcher(body);
		while (parameters.find()) {
			if (!names.contains(parameters.group(1))) {
				names.add(parameters.group(1));
			}
		}
		return names;
	}

	/**
	 * Prepares the statement on a connection, with the order's {@code :keeps_waits}
	 * bound.
	 * @param connection the connection
	 * @return the prepared statement, for the caller to close
	 * @throws SQLException if the driver fails
	 */
	PreparedStatement prepare(Connection connection) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(this.text);
		try {
			for (int at : this.keepsWaitsAt) {
				statement.setBoolean(at, this.keepsWaits);
			}
			return statement;
		}
		catch (SQLException | RuntimeException ex) {
			statement.close();
			throw ex;
		}
	}

	void setString(PreparedStatement statement, String parameter, String value) throws SQLException {
		for (int at : at(parameter)) {
			statement.setString(at, value);
		}
	}

	void setLong(PreparedStatement statement, String parameter, long value) throws SQLException {
		for (int at : at(parameter)) {
			statement.setLong(at, value);
		}
	}

	void setInt(PreparedStatement statement, String parameter, int value) throws SQLException {
		for (int at : at(parameter)) {
			statement.setInt(at, value);
		}
	}

	void setDouble(PreparedStatement statement, String parameter, double value) throws SQLException {
		for (int at : at(parameter)) {
			statement.setDouble(at, value);
		}
	}

	void setObject(PreparedStatement statement, String parameter, Object value, int sqlType) throws SQLException {
		for (int at : at(parameter)) {
			statement.setObject(at, value, sqlType);
		}
	}

	void setArray(PreparedStatement statement, String parameter, Array value) throws SQLException {
		for (int at : at(parameter)) {
			statement.setArray(at, value);
		}
	}

	void setNull(PreparedStatement statement, String parameter, int sqlType) throws SQLException {
		for (int at : at(parameter)) {
			statement.setNull(at, sqlType);
		}
	}

	private int[] at(String parameter) {
		int[] at = this.positions.get(parameter);
		if (at == null) {
			throw new IllegalArgumentException("Statement " + this.name + " has no parameter :" + parameter);
		}
		return at;
	}

	/**
	 * The file's name below {@link #FOLDER}, without {@code .sql}.
	 * @return the name
	 */
	String name() {
		return this.name;
	}

	/**
	 * The text sent: comments removed, substitutions made, parameters as {@code ?}.
	 * @return the text
	 */
	String text() {
		return this.text;
	}

	@Override
	public String toString() {
		return this.name + ": " + this.text;
	}

}

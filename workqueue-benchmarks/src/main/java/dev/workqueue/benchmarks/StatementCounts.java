package dev.workqueue.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

/**
 * Counts the statements a contender runs through its pool, by kind, to tell where its
 * commits per item go (issue 30): on with
 * {@code -Dworkqueue.bench.postgres.statements=true}, off otherwise (the pool is then
 * handed out as it is). A statement's kind is its verb and the names of its {@code WITH}
 * parts ({@code WITH c, gone, back, picked, claimed SELECT}), so that both sides'
 * statements are told apart without knowing their text; explicit commits count as
 * {@code COMMIT}. A statement run with auto-commit on is a commit of its own.
 */
final class StatementCounts {

	static final boolean ENABLED = Boolean.getBoolean("workqueue.bench.postgres.statements");

	private static final Pattern CTE = Pattern
		.compile("(?i)(?:WITH|,)\\s*([a-z_][a-z0-9_]*)\\s+AS\\s+(?:NOT\\s+)?(?:MATERIALIZED\\s+)?\\(");

	private static final Pattern VERB = Pattern
		.compile("(?i)\\b(SELECT|INSERT|UPDATE|DELETE|VACUUM|ANALYZE|LISTEN|UNLISTEN|NOTIFY|SET|SHOW)\\b");

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	/**
	 * Wraps a pool so that what runs through it is counted here.
	 * @param dataSource the pool
	 * @return the counting data source, or the pool itself when counting is off
	 */
	DataSource wrap(DataSource dataSource) {
		if (!ENABLED) {
			return dataSource;
		}
		return proxy(DataSource.class, dataSource, (method, args, result) -> {
			if (result instanceof Connection connection) {
				return proxy(Connection.class, connection, this::connection);
			}
			return result;
		});
	}

	private Object connection(Method method, Object[] args, Object result) {
		if (method.getName().equals("commit")) {
			count("COMMIT");
		}
		if (result instanceof PreparedStatement statement && args != null && args[0] instanceof String sql) {
			String kind = kind(sql);
			return proxy(PreparedStatement.class, statement, (m, a, r) -> {
				if (m.getName().startsWith("execute") && (a == null || a.length == 0)) {
					count(kind);
				}
				return r;
			});
		}
		if (result instanceof Statement statement && !(result instanceof PreparedStatement)) {
			return proxy(Statement.class, statement, (m, a, r) -> {
				if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
					count(kind(sql));
				}
				return r;
			});
		}
		return result;
	}

	private void count(String kind) {
		this.counts.computeIfAbsent(kind, (k) -> new LongAdder()).increment();
	}

	static String kind(String sql) {
		String text = sql.replaceAll("--[^\n]*", " ");
		List<String> ctes = new ArrayList<>();
		Matcher cte = CTE.matcher(text);
		int end = 0;
		while (cte.find()) {
			if (depth(text, cte.start()) == 0) {
				ctes.add(cte.group(1).toLowerCase(Locale.ROOT));
				end = cte.end();
			}
		}
		// The main statement: the first verb at the top level after the last WITH part.
		String verb = "?";
		Matcher matcher = VERB.matcher(text);
		int from = (end > 0) ? skipParentheses(text, end - 1) : 0;
		while (matcher.find(from)) {
			if (depth(text, matcher.start()) == 0) {
				verb = matcher.group(1).toUpperCase(Locale.ROOT);
				break;
			}
			from = matcher.end();
		}
		return ctes.isEmpty() ? verb : "WITH " + String.join(", ", ctes) + " " + verb;
	}

	private static int depth(String text, int at) {
		int depth = 0;
		for (int i = 0; i < at; i++) {
			char ch = text.charAt(i);
			if (ch == '(') {
				depth++;
			}
			else if (ch == ')') {
				depth--;
			}
		}
		return depth;
	}

	/** Returns the index after the parenthesis that closes the one at {@code open}. */
	private static int skipParentheses(String text, int open) {
		int depth = 0;
		for (int i = open; i < text.length(); i++) {
			char ch = text.charAt(i);
			if (ch == '(') {
				depth++;
			}
			else if (ch == ')' && --depth == 0) {
				return i + 1;
			}
		}
		return text.length();
	}

	/**
	 * Returns the counts per item, most first, e.g.
	 * {@code 1.00 WITH c, gone, back, picked, claimed SELECT; 0.50 WITH c, a, up SELECT}.
	 * @param items the items processed
	 * @return the line, or an empty string when counting is off
	 */
	String perItem(long items) {
		if (!ENABLED) {
			return "";
		}
		StringBuilder line = new StringBuilder();
		this.counts.entrySet()
			.stream()
			.sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
			.forEach((entry) -> line.append((line.length() > 0) ? "; " : "")
				.append(String.format(Locale.ROOT, "%.3f %s", (double) entry.getValue().sum() / items,
						entry.getKey())));
		return line.toString();
	}

	/** What a proxy does with a call's result. */
	@FunctionalInterface
	private interface After {

		Object apply(Method method, Object[] args, Object result) throws Exception;

	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, T target, After after) {
		InvocationHandler handler = (proxy, method, args) -> {
			Object result;
			try {
				result = method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
			return after.apply(method, args, result);
		};
		return (T) Proxy.newProxyInstance(StatementCounts.class.getClassLoader(), new Class<?>[] { type }, handler);
	}

}

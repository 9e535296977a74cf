package dev.workqueue.postgres;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A database of a test's own on the tests' server, dropped by {@link #close()}: for tests
 * whose outcome other sessions of the shared database could sway (VACUUM removes only
 * rows older than every open transaction of the same database).
 */
final class PrivateDatabase implements AutoCloseable {

	private static final AtomicInteger counter = new AtomicInteger();

	private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");

	private final String name;

	private final String url;

	private final HikariDataSource pool;

	PrivateDatabase() {
		this.name = "wq_private_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();
		Matcher matcher = URL.matcher(PostgresDatabase.URL);
		if (!matcher.matches()) {
			throw new IllegalStateException("Cannot read the database's name from " + PostgresDatabase.URL);
		}
		this.url = matcher.group(1) + this.name + matcher.group(3);
		PostgresDatabase.execute("CREATE DATABASE " + this.name);
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.url);
		config.setMaximumPoolSize(3);
		config.setPoolName(this.name);
		this.pool = new HikariDataSource(config);
	}

	/** A pool of connections to the database. */
	HikariDataSource pool() {
		return this.pool;
	}

	@Override
	public void close() {
		this.pool.close();
		PostgresDatabase.execute("DROP DATABASE IF EXISTS " + this.name + " WITH (FORCE)");
	}

}

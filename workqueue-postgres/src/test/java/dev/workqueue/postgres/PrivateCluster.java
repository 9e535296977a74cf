package dev.workqueue.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of a test's own, for the faults the shared server must not see (an
 * immediate stop). It runs Debian's {@code initdb} and {@code pg_ctl} (found in
 * {@code /usr/lib/postgresql/<version>/bin}, off the {@code PATH}) as the
 * {@code postgres} user (through {@code runuser} when the tests run as root: both refuse
 * to run as root), with its data and its socket in a temporary folder of that user and
 * TCP on a free loopback port, trust authentication, user {@code postgres}.
 * <p>
 * Where it cannot start (no PostgreSQL binaries, no way to become {@code postgres}, a
 * start that fails) the constructor aborts the test with one loud line on stderr saying
 * why. It is used from one test thread; the pools it made are closed, the server stopped
 * and the folder deleted by {@link #close()}.
 */
final class PrivateCluster implements AutoCloseable {

	private static final String BIN_ROOT = "/usr/lib/postgresql";

	private static final String USER = "postgres";

	private static final long COMMAND_TIMEOUT_SECONDS = 60;

	private final Path bin;

	private final Path home;

	private final Path data;

	private final int port;

	private final List<String> asPostgres;

	private final List<HikariDataSource> pools = new ArrayList<>();

	/**
	 * Makes and starts the cluster, or aborts the calling test.
	 * @param test what needs it, for the skip line
	 */
	PrivateCluster(String test) {
		this.bin = findBin(test);
		this.asPostgres = asPostgres(test);
		this.home = temporaryHome(test);
		this.data = this.home.resolve("data");
		this.port = freePort();
		try {
			require(test, "initdb failed", run(this.bin.resolve("initdb").toString(), "-D", this.data.toString(), "-A",
					"trust", "-U", USER, "--no-sync", "--no-locale", "-E", "UTF8"));
			Files.writeString(this.data.resolve("postgresql.conf"),
					"\nport = " + this.port + "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '"
							+ this.home + "'\nmax_connections = 50\n",
					StandardOpenOption.APPEND);
			require(test, "pg_ctl start failed",
					pgCtl("start", "-w", "-t", "30", "-l", this.home.resolve("log").toString()));
		}
		catch (IOException | RuntimeException ex) {
			delete();
			throw (ex instanceof IOException io) ? new UncheckedIOException(io) : (RuntimeException) ex;
		}
	}

	/**
	 * The JDBC URL of the cluster's {@code postgres} database, as user {@code postgres}.
	 */
	String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres?user=" + USER;
	}

	/**
	 * A new pool on the cluster, closed by {@link #close()}.
	 * @param size most connections
	 * @param connectionTimeoutMillis how long a borrow waits (Hikari's least is 250)
	 */
	HikariDataSource dataSource(int size, long connectionTimeoutMillis) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setMaximumPoolSize(size);
		config.setConnectionTimeout(connectionTimeoutMillis);
		config.setPoolName("workqueue-private-cluster-" + this.port);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return pool;
	}

	/** Runs SQL on a connection of its own, outside any pool. */
	void execute(String sql) {
		try (Connection connection = DriverManager.getConnection(url());
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run on the private cluster: " + sql, ex);
		}
	}

	/** The rows of {@code table}, counted on a connection of its own. */
	long count(String table) {
		try (Connection connection = DriverManager.getConnection(url());
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot count the rows of " + table + " on the private cluster", ex);
		}
	}

	/**
	 * Stops the server at once ({@code pg_ctl stop -m immediate}): no checkpoint, as a
	 * crash.
	 */
	void stopImmediately() {
		check("pg_ctl stop -m immediate", pgCtl("stop", "-w", "-m", "immediate"));
	}

	/**
	 * Starts the server again (after a crash stop, with its recovery), waiting until it
	 * accepts connections.
	 */
	void start() {
		check("pg_ctl start", pgCtl("start", "-w", "-t", "30", "-l", this.home.resolve("log").toString()));
	}

	/** Closes the pools, stops the server fast and deletes its folder. */
	@Override
	public void close() {
		this.pools.forEach(HikariDataSource::close);
		pgCtl("stop", "-w", "-m", "fast");
		delete();
	}

	private Result pgCtl(String... arguments) {
		List<String> command = new ArrayList<>(
				List.of(this.bin.resolve("pg_ctl").toString(), "-D", this.data.toString()));
		command.addAll(List.of(arguments));
		return run(command.toArray(String[]::new));
	}

	private Result run(String... command) {
		List<String> full = new ArrayList<>(this.asPostgres);
		full.addAll(List.of(command));
		return execute(full);
	}

	private static Result execute(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return new Result(-1, String.join(" ", command) + " did not end in " + COMMAND_TIMEOUT_SECONDS + " s");
			}
			return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8).strip());
		}
		catch (IOException ex) {
			return new Result(-1, String.join(" ", command) + ": " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Result(-1, String.join(" ", command) + ": interrupted");
		}
	}

	private static Path findBin(String test) {
		try (Stream<Path> versions = Files.list(Path.of(BIN_ROOT))) {
			return versions.map((version) -> version.resolve("bin"))
				.filter((bin) -> Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl")))
				.max(Comparator.comparing((Path bin) -> versionOf(bin.getParent())))
				.orElseThrow(() -> skip(test, "no initdb and pg_ctl in " + BIN_ROOT + "/*/bin"));
		}
		catch (IOException ex) {
			throw skip(test, "cannot list " + BIN_ROOT + " (" + ex.getClass().getSimpleName() + ")");
		}
	}

	private static int versionOf(Path folder) {
		try {
			return Integer.parseInt(folder.getFileName().toString());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * The prefix that runs a command as {@code postgres}: none if the tests already do.
	 */
	private static List<String> asPostgres(String test) {
		if (USER.equals(System.getProperty("user.name"))) {
			return List.of();
		}
		List<String> prefix = List.of("runuser", "-u", USER, "--");
		List<String> probe = new ArrayList<>(prefix);
		probe.add("true");
		require(test, "cannot run commands as '" + USER + "' with runuser (the tests run as '"
				+ System.getProperty("user.name") + "')", execute(probe));
		return prefix;
	}

	private static Path temporaryHome(String test) {
		try {
			Path home = Files.createTempDirectory("workqueue-cluster-");
			UserPrincipal owner = home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
			Files.setOwner(home, owner);
			return home;
		}
		catch (IOException ex) {
			throw skip(test, "cannot make a folder owned by '" + USER + "': " + ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free loopback port", ex);
		}
	}

	private static void require(String test, String what, Result result) {
		if (result.status() != 0) {
			throw skip(test, what + ": " + result.tail());
		}
	}

	private static void check(String what, Result result) {
		if (result.status() != 0) {
			throw new IllegalStateException(what + " on the private cluster failed: " + result.tail());
		}
	}

	/** Says why on one loud line and aborts the test (JUnit reports it skipped). */
	private static RuntimeException skip(String test, String why) {
		String line = "No private PostgreSQL cluster: " + why;
		System.err.println("*** SKIPPING " + test + ": " + line + " ***");
		return Assumptions.abort(line);
	}

	private void delete() {
		try (Stream<Path> paths = Files.walk(this.home)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// Left in the temporary folder: nothing else depends on it.
		}
	}

	/** What a command said. */
	private record Result(int status, String output) {

		/** The last lines of the output, on one line. */
		String tail() {
			String[] lines = this.output.split("\\R");
			return String.join(" | ", List.of(lines).subList(Math.max(0, lines.length - 3), lines.length));
		}

	}

}

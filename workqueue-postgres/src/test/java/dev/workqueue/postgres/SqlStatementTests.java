package dev.workqueue.postgres;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.workqueue.spi.ItemTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Each statement file carries its contract (a header naming the statement, its twin, its
 * parameters, what it returns and why it cannot race), and the Java side binds exactly
 * the names the headers declare: these tests hold the files and the code to each other,
 * as {@code LuaScriptContractTests} does for the Redis scripts. (That each statement runs
 * is the other tests': {@link SqlStatement} refuses a name its statement lacks, and the
 * driver a parameter left unbound.)
 */
class SqlStatementTests {

	/** A parameter declared in a header: {@code --   :name  what it is}. */
	private static final Pattern DECLARED = Pattern.compile("^-- {3}:([a-z_][a-z0-9_]*) +\\S");

	/** A line that goes on with what the line before it says. */
	private static final Pattern GOING_ON = Pattern.compile("^-- {3,}[^:\\s]");

	/** A name bound in the main code: {@code sql.setString(statement, "queue", ...)}. */
	private static final Pattern BOUND = Pattern.compile("\\.set\\w+\\(\\w+, \"([a-z_][a-z0-9_]*)\"");

	/**
	 * The names bound for every statement by {@link SqlStatement#prepare} and
	 * {@link QueueDatabase}.
	 */
	private static final Set<String> BOUND_ELSEWHERE = Set.of("keeps_waits");

	@Test
	void everyFileStartsWithItsContract() throws Exception {
		for (String name : files()) {
			String text = SqlStatement.read(name);
			assertThat(text).as(name)
				.startsWith("-- " + name + ": ")
				.containsPattern("(?m)^-- Parameters:")
				.containsPattern("(?m)^-- Returns: ")
				.containsPattern("(?m)^-- Races: ");
		}
	}

	@Test
	void eachHeaderDeclaresTheParametersOfItsStatementInTheirOrder() throws Exception {
		for (String name : files()) {
			String text = SqlStatement.read(name);
			assertThat(declared(text)).as(name)
				.containsExactlyElementsOf(SqlStatement.parameters(SqlStatement.body(text)));
		}
	}

	@Test
	void eachTwinNamedInAHeaderIsAFile() throws Exception {
		Set<String> files = files();
		Pattern twin = Pattern.compile("([a-z_]+)\\.sql");
		for (String name : files) {
			Matcher line = Pattern.compile("(?m)^-- Twin: (.*(?:\\n-- {3}[^:\\s].*)*)")
				.matcher(SqlStatement.read(name));
			if (!line.find()) {
				continue;
			}
			Matcher named = twin.matcher(line.group(1));
			while (named.find()) {
				assertThat(files).as(name + " names its twin " + named.group()).contains(named.group(1));
			}
		}
	}

	@Test
	void theCodeBindsTheNamesTheHeadersDeclareAndNoOther() throws Exception {
		Set<String> declared = new TreeSet<>();
		for (String name : files()) {
			declared.addAll(declared(SqlStatement.read(name)));
		}
		Set<String> bound = new TreeSet<>(BOUND_ELSEWHERE);
		for (String source : mainSources()) {
			Matcher binding = BOUND.matcher(source);
			while (binding.find()) {
				bound.add(binding.group(1));
			}
		}
		assertThat(bound).isEqualTo(declared);
	}

	@Test
	void everyFileIsLoadedByTheCode() throws Exception {
		String code = String.join("\n", mainSources());
		for (String name : files()) {
			assertThat(code).as(name + ".sql is loaded").contains("\"" + name + "\"");
		}
	}

	@Test
	void everyVariantOfAQueueIsWholeStatementsWithPositionalParameters() {
		for (ReadyOrder order : ReadyOrder.values()) {
			for (boolean starving : new boolean[] { false, true }) {
				QueueSql sql = new QueueSql("wq_t", order, starving, starving);
				for (SqlStatement statement : List.of(sql.add, sql.addTraced, sql.addBatch, sql.addBatchTraced,
						sql.claim, sql.doneAndClaim, sql.done, sql.forget, sql.renew, sql.reap, sql.handBack,
						sql.handBackAfter, sql.reconcile, sql.deadLetter, sql.size, sql.stats, sql.levels, sql.report,
						sql.resign, sql.itemsReady, sql.itemsProcessing, sql.itemsWaiting, sql.itemsGivenUp, sql.find,
						sql.givenUpCount, sql.keepGivenUp, sql.deleteGivenUp, sql.pause, sql.resume, sql.paused)) {
					assertThat(statement.text()).as(statement.name())
						.doesNotContain("{", "}", "--")
						.doesNotContainPattern("(?<![:\\w]):[a-z]");
				}
				assertThat(sql.claim.name()).isEqualTo(starving ? "claim_starving" : "claim");
				assertThat(sql.claim.text()).contains("ORDER BY " + order.orderBy("r"));
				assertThat(sql.done.text().contains(SqlStatement.ASYNC_COMMIT)).as("synchronous_commit off")
					.isEqualTo(!starving);
				assertThat(sql.add.text()).as("the caller's transaction keeps its settings")
					.doesNotContain("set_config");
			}
		}
	}

	@Test
	void theLeasingAddKeepsTheConflictClauseOfItsTwin() throws Exception {
		// client-go's rules for an item with a row: a change to one file must reach the
		// other.
		assertThat(conflictClause("add_batch_leasing")).isEqualTo(conflictClause("add_batch"));
	}

	private static String conflictClause(String name) throws Exception {
		String body = SqlStatement.body(SqlStatement.read(name));
		int start = body.indexOf("ON CONFLICT (queue, item) DO UPDATE SET");
		assertThat(start).as(name).isNotNegative();
		return body.substring(start, body.indexOf("RETURNING", start));
	}

	@Test
	void anAddWithoutContextsPaysNothingForTracing() {
		QueueSql sql = new QueueSql("wq_t", ReadyOrder.FIFO, false, true);
		for (SqlStatement untraced : List.of(sql.add, sql.addBatch)) {
			assertThat(untraced.text()).as(untraced.name()).doesNotContain("trace", "place");
		}
	}

	@Test
	void theTracedAddsKeepAsManyLinksAsItemTrace() {
		for (String name : List.of("add_traced", "add_batch_traced")) {
			assertThat(SqlStatement.read(name)).as(name)
				.contains("[1:" + (ItemTrace.MAX_LINKS + 1) + "]")
				.contains("< " + ItemTrace.MAX_LINKS + ")");
		}
	}

	@Test
	void aNameTheStatementLacksIsRefused() {
		SqlStatement resign = SqlStatement.load("resign", "wq_t");
		assertThat(resign.text())
			.isEqualTo("DELETE FROM wq_t_limit WHERE queue = ? AND kind = 'gauges' AND item = ''" + " AND holder = ?");
		assertThatIllegalArgumentException().isThrownBy(() -> resign.setString(null, "item", "a"))
			.withMessageContaining("resign has no parameter :item");
	}

	private static List<String> declared(String text) {
		List<String> names = new ArrayList<>();
		boolean inParameters = false;
		for (String line : text.split("\n")) {
			if (line.startsWith("-- Parameters:")) {
				inParameters = true;
			}
			else if (inParameters) {
				Matcher declared = DECLARED.matcher(line);
				if (declared.find()) {
					names.add(declared.group(1));
				}
				else if (!GOING_ON.matcher(line).find()) {
					break;
				}
			}
		}
		return names;
	}

	private static Set<String> files() throws IOException, URISyntaxException {
		Path folder = Path.of(SqlStatement.class.getResource(SqlStatement.FOLDER).toURI());
		Set<String> names = new TreeSet<>();
		try (Stream<Path> files = Files.list(folder)) {
			files.map((file) -> file.getFileName().toString())
				.filter((file) -> file.endsWith(".sql"))
				.forEach((file) -> names.add(file.substring(0, file.length() - ".sql".length())));
		}
		assertThat(names).isNotEmpty();
		return names;
	}

	private static List<String> mainSources() throws IOException {
		Path main = Path.of("src/main/java/dev/workqueue/postgres");
		List<String> sources = new ArrayList<>();
		try (Stream<Path> files = Files.list(main)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				sources.add(Files.readString(file));
			}
		}
		return sources;
	}

}

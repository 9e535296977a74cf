package dev.workqueue.spring.autoconfigure;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import dev.workqueue.spring.diagnostics.RecordingFailureAnalysisReporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for the validation of {@code workqueue.*} properties and its failure analysis.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkQueuePropertiesValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class));

	@ParameterizedTest(name = "{0}")
	@MethodSource("invalidProperties")
	void invalidValueFailsStartUpNamingTheFullKey(String property, String problem) {
		this.contextRunner.withPropertyValues(property)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(InvalidWorkQueuePropertiesException.class)
				.satisfies((ex) -> assertThat(((InvalidWorkQueuePropertiesException) ex).getProblems())
					.containsExactly(problem)));
	}

	static Stream<Arguments> invalidProperties() {
		String orders = "workqueue.queues.orders.";
		String limiter = orders + "rate-limiter.";
		String defaults = "workqueue.defaults.";
		return Stream.of(Arguments.of(orders + "concurrency=0", orders + "concurrency must be >= 1, was 0"),
				// A name written with brackets is named so (a ':' would end the key
				// here).
				Arguments.of("workqueue.queues[orders.v2].concurrency=0",
						"workqueue.queues[orders.v2].concurrency must be >= 1, was 0"),
				Arguments.of("workqueue.queues[orders.v2].given-up.keep=-1",
						"workqueue.queues[orders.v2].given-up.keep must be from 0 to 1000000, was -1"),
				Arguments.of("workqueue.queues[orders.v2].backend=nosql",
						"workqueue.queues[orders.v2].backend must be one of memory, redis, postgres, was 'nosql'"),
				Arguments.of(defaults + "concurrency=-2", defaults + "concurrency must be >= 1, was -2"),
				Arguments.of(orders + "concurrency=100000",
						orders + "concurrency must be <= 1024 (one thread each), was 100000"),
				Arguments.of(defaults + "concurrency=1025",
						defaults + "concurrency must be <= 1024 (one thread each), was 1025"),
				Arguments.of(orders + "max-retries=-2", orders + "max-retries must be >= -1, was -2"),
				Arguments.of(defaults + "max-retries=-5", defaults + "max-retries must be >= -1, was -5"),
				Arguments.of(orders + "shutdown-timeout=-1s",
						orders + "shutdown-timeout must not be negative, was -1s"),
				Arguments.of(defaults + "shutdown-timeout=-3ms",
						defaults + "shutdown-timeout must not be negative, was -3ms"),
				Arguments.of(defaults + "shutdown-timeout=", defaults + "shutdown-timeout must not be empty"),
				Arguments.of(orders + "poll-timeout=0s", orders + "poll-timeout must be positive, was 0s"),
				Arguments.of(orders + "poll-timeout=-1s", orders + "poll-timeout must be positive, was -1s"),
				Arguments.of(defaults + "poll-timeout=0ms", defaults + "poll-timeout must be positive, was 0s"),
				Arguments.of(defaults + "poll-timeout=", defaults + "poll-timeout must not be empty"),
				Arguments.of(orders + "concurrency=", orders + "concurrency must not be empty"),
				Arguments.of(orders + "latency-timers=", orders + "latency-timers must not be empty"),
				Arguments.of(limiter + "exponential.base-delay=-5ms",
						limiter + "exponential.base-delay must not be negative, was -5ms"),
				Arguments.of(limiter + "exponential.max-delay=-1s",
						limiter + "exponential.max-delay must not be negative, was -1s"),
				Arguments.of(limiter + "exponential.max-delay=1ms",
						limiter + "exponential.max-delay must be >= base-delay (5ms), was 1ms"),
				Arguments.of(limiter + "exponential.jitter=1.5",
						limiter + "exponential.jitter must be between 0 and 1, was 1.5"),
				Arguments.of(limiter + "exponential.jitter=-0.1",
						limiter + "exponential.jitter must be between 0 and 1, was -0.1"),
				Arguments.of(limiter + "exponential.jitter=NaN",
						limiter + "exponential.jitter must be between 0 and 1, was NaN"),
				Arguments.of(limiter + "fast-slow.fast-delay=-1ms",
						limiter + "fast-slow.fast-delay must not be negative, was -1ms"),
				Arguments.of(limiter + "fast-slow.slow-delay=-1ms",
						limiter + "fast-slow.slow-delay must not be negative, was -1ms"),
				Arguments.of(limiter + "fast-slow.max-fast-attempts=-1",
						limiter + "fast-slow.max-fast-attempts must be >= 0, was -1"),
				Arguments.of(limiter + "bucket.qps=0", limiter + "bucket.qps must be > 0, was 0.0"),
				Arguments.of(limiter + "bucket.qps=-1", limiter + "bucket.qps must be > 0, was -1.0"),
				Arguments.of(limiter + "bucket.qps=NaN", limiter + "bucket.qps must be > 0, was NaN"),
				Arguments.of(limiter + "bucket.burst=0", limiter + "bucket.burst must be >= 1, was 0"),
				Arguments.of(limiter + "item-bucket.qps=0", limiter + "item-bucket.qps must be > 0, was 0.0"),
				Arguments.of(limiter + "item-bucket.burst=-1", limiter + "item-bucket.burst must be >= 1, was -1"),
				Arguments.of(limiter + "max-wait=-1h", limiter + "max-wait must not be negative, was -1h"),
				Arguments.of(defaults + "rate-limiter.bucket.qps=0",
						defaults + "rate-limiter.bucket.qps must be > 0, was 0.0"),
				Arguments.of(orders + "concurency=2",
						orders + "concurency is not a workqueue property; a queue and the defaults take "
								+ knownKeys()),
				Arguments.of(limiter + "bucket.rate=2",
						limiter + "bucket.rate is not a workqueue property; a queue and the defaults take "
								+ knownKeys()),
				Arguments.of(defaults + "retries=2",
						defaults + "retries is not a workqueue property; a queue and the defaults take " + knownKeys()),
				Arguments.of(orders + "priority.starvation-timeout=-1s",
						orders + "priority.starvation-timeout must not be negative, was -1s"),
				Arguments.of(defaults + "priority.starvation-timeout=-5m",
						defaults + "priority.starvation-timeout must not be negative, was -5m"),
				Arguments.of(orders + "priority.strict=true",
						orders + "priority.strict is not a workqueue property; a queue and the defaults take "
								+ knownKeys()),
				Arguments.of(defaults + "priority.enable=true",
						defaults + "priority.enable is not a workqueue property; a queue and the defaults take "
								+ knownKeys()),
				Arguments.of(defaults + "given-up.keep=-1",
						defaults + "given-up.keep must be from 0 to 1000000, was -1"),
				Arguments.of(orders + "given-up.keep=1000001",
						orders + "given-up.keep must be from 0 to 1000000, was 1000001"),
				Arguments.of(defaults + "given-up.retention=999ms",
						defaults + "given-up.retention must be from 1s to 36525d (100 years), was 999ms"),
				Arguments.of(orders + "given-up.retention=36526d",
						orders + "given-up.retention must be from 1s to 36525d (100 years), was 36526d"),
				Arguments.of(orders + "given-up.retention=0s",
						orders + "given-up.retention must be from 1s to 36525d (100 years), was 0s"),
				Arguments.of(defaults + "given-up.retention=", defaults + "given-up.retention must not be empty"),
				Arguments.of(orders + "given-up.kept=5",
						orders + "given-up.kept is not a workqueue property; a queue and the defaults take "
								+ knownKeys()),
				Arguments.of("workqueue.redis.lease=999ms", "workqueue.redis.lease must be at least 1s, was 999ms"),
				Arguments.of("workqueue.redis.prefix=billing",
						"workqueue.redis.prefix is not a workqueue property; workqueue.redis takes key-prefix, lease"),
				Arguments.of("workqueue.redis.lease=", "workqueue.redis.lease must not be empty"),
				Arguments.of("workqueue.postgres.initialise-schema=never",
						"workqueue.postgres.initialise-schema is not a workqueue property; workqueue.postgres takes "
								+ "initialize-schema, lease, listen, poll-interval, synchronous-commit, table, vacuum"),
				Arguments.of("workqueue.postgres.table=bad name",
						"workqueue.postgres.table " + TABLE_RULE + "'bad name'"),
				Arguments.of("workqueue.postgres.table=a.b.c", "workqueue.postgres.table " + TABLE_RULE + "'a.b.c'"),
				Arguments.of("workqueue.postgres.table=1queue", "workqueue.postgres.table " + TABLE_RULE + "'1queue'"),
				Arguments.of("workqueue.postgres.table=queue;drop",
						"workqueue.postgres.table " + TABLE_RULE + "'queue;drop'"),
				Arguments.of("workqueue.postgres.table=" + "q".repeat(57),
						"workqueue.postgres.table " + TABLE_RULE + "'" + "q".repeat(57) + "'"),
				Arguments.of("workqueue.postgres.table=", "workqueue.postgres.table " + TABLE_RULE + "''"),
				Arguments.of("workqueue.postgres.table=work$$items",
						"workqueue.postgres.table " + TABLE_RULE + "'work$$items'"),
				Arguments.of("workqueue.postgres.lease=500ms",
						"workqueue.postgres.lease must be at least 1s, was 500ms"),
				Arguments.of("workqueue.postgres.lease=-1s", "workqueue.postgres.lease must be at least 1s, was -1s"),
				Arguments.of("workqueue.postgres.poll-interval=9ms",
						"workqueue.postgres.poll-interval must be at least 10ms, was 9ms"),
				Arguments.of("workqueue.postgres.poll-interval=0s",
						"workqueue.postgres.poll-interval must be at least 10ms, was 0s"));
	}

	private static final String TABLE_RULE = "must be a plain SQL identifier (letters, digits, _ and $ but not $$, "
			+ "at most 56 characters), optionally schema-qualified, was ";

	@Test
	void postgresKeysAtTheirLimitsAreAccepted() {
		this.contextRunner
			.withPropertyValues("workqueue.postgres.table=jobs.Work_Queue$2", "workqueue.postgres.lease=1s",
					"workqueue.postgres.poll-interval=10ms", "workqueue.postgres.initialize-schema=never",
					"workqueue.postgres.listen=false", "workqueue.postgres.synchronous-commit=false",
					"workqueue.postgres.vacuum=never")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anUnknownVacuumPolicyFailsNamingTheKey() {
		this.contextRunner.withPropertyValues("workqueue.postgres.vacuum=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("sometimes")
				.hasMessageContaining("Vacuum"));
		this.contextRunner.withPropertyValues("workqueue.postgres.vacuum=sometimes")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("workqueue.postgres.vacuum"));
	}

	private static String knownKeys() {
		return "backend, concurrency, given-up.keep, given-up.retention, latency-timers, max-retries, "
				+ "poll-timeout, priority.enabled, " + "priority.starvation-timeout, "
				+ "rate-limiter.bucket.burst, rate-limiter.bucket.qps, "
				+ "rate-limiter.exponential.base-delay, rate-limiter.exponential.jitter, "
				+ "rate-limiter.exponential.max-delay, "
				+ "rate-limiter.fast-slow.fast-delay, rate-limiter.fast-slow.max-fast-attempts, "
				+ "rate-limiter.fast-slow.slow-delay, rate-limiter.item-bucket.burst, rate-limiter.item-bucket.qps, "
				+ "rate-limiter.max-wait, shutdown-timeout";
	}

	@Test
	void everyKeyTheHintNamesIsAcceptedForAQueueAndTheDefaults() {
		String[] keys = WorkQueuePropertiesValidator.KNOWN_KEYS.split(", ");
		String[] values = Arrays.stream(keys)
			.flatMap((key) -> Stream.of("workqueue.queues.orders." + key + "=" + sampleValue(key),
					"workqueue.defaults." + key + "=" + sampleValue(key)))
			.toArray(String[]::new);
		this.contextRunner.withPropertyValues(values).run((context) -> assertThat(context).hasNotFailed());
	}

	private static String sampleValue(String key) {
		if (key.equals("backend")) {
			return "memory";
		}
		if (key.endsWith("delay") || key.endsWith("timeout") || key.endsWith("wait") || key.endsWith("retention")) {
			return "1s";
		}
		if (key.endsWith("enabled")) {
			return "true";
		}
		if (key.equals("latency-timers")) {
			return "false";
		}
		if (key.endsWith("jitter")) {
			return "0.2";
		}
		return "2";
	}

	@Test
	void everyProblemIsReportedAtOnce() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.max-retries=-3", "workqueue.queues.orders.concurrency=0",
					"workqueue.queues.orders.rate-limiter.bucket.burst=0",
					"workqueue.queues.emails.shutdown-timeout=-1s", "workqueue.queues.emails.typo=1")
			.run((context) -> {
				assertThat(context).hasFailed();
				InvalidWorkQueuePropertiesException failure = (InvalidWorkQueuePropertiesException) context
					.getStartupFailure();
				assertThat(failure.getProblems()).hasSize(5)
					.containsExactlyInAnyOrder("workqueue.defaults.max-retries must be >= -1, was -3",
							"workqueue.queues.orders.concurrency must be >= 1, was 0",
							"workqueue.queues.orders.rate-limiter.bucket.burst must be >= 1, was 0",
							"workqueue.queues.emails.shutdown-timeout must not be negative, was -1s",
							"workqueue.queues.emails.typo is not a workqueue property; a queue and the defaults take "
									+ knownKeys());
				assertThat(failure).hasMessageStartingWith("Invalid workqueue properties: ")
					.hasMessageContaining("workqueue.queues.orders.concurrency must be >= 1, was 0; ");
			});
	}

	@Test
	void anUnknownBackendIsReportedWithTheOtherProblemsNamingTheValidValues() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.backend=kafka", "workqueue.queues.orders.backend=mysql",
					"workqueue.queues.orders.concurrency=0", "workqueue.queues.emails.backend=REDIS")
			.run((context) -> assertThat(
					((InvalidWorkQueuePropertiesException) context.getStartupFailure()).getProblems())
				.containsExactly("workqueue.defaults.backend must be one of memory, redis, postgres, was 'kafka'",
						"workqueue.queues.orders.backend must be one of memory, redis, postgres, was 'mysql'",
						"workqueue.queues.orders.concurrency must be >= 1, was 0"));
	}

	@Test
	void aQueueNameBootWouldRenameIsRefusedNamingTheBracketForm() {
		// As a properties or YAML file gives them (withPropertyValues would split at
		// ':').
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("workqueue.queues.a:b.concurrency", "2");
		properties.put("workqueue.queues.my queue.max-retries", "1");
		properties.put("workqueue.queues[c:d].concurrency", "1");
		properties.put("workqueue.queues.My_Queue-1.concurrency", "1");
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("queue names", properties)))
			.run((context) -> assertThat(
					((InvalidWorkQueuePropertiesException) context.getStartupFailure()).getProblems())
				.containsExactly(
						"workqueue.queues.a:b names queue 'a:b', which Boot would read as 'ab' (a key keeps only "
								+ "letters, digits, '-' and '_'): write it as workqueue.queues[a:b]",
						"workqueue.queues.my queue names queue 'my queue', which Boot would read as 'myqueue' (a key "
								+ "keeps only letters, digits, '-' and '_'): write it as workqueue.queues[my queue]"));
	}

	@Test
	void aRedisQueueNameWithBracesIsRefusedNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("workqueue.queues[a{b}].backend=redis", "workqueue.queues[c{d}].concurrency=1")
			.run((context) -> assertThat(
					((InvalidWorkQueuePropertiesException) context.getStartupFailure()).getProblems())
				.containsExactly("workqueue.queues[a{b}] names a redis queue, whose name must hold no braces"));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "a/b", "a\\b", "a;b", "50%", ".", ".." })
	void aQueueNameNoPathCanCarryIsRefusedNamingTheProperty(String name) {
		this.contextRunner.withPropertyValues("workqueue.queues[" + name + "].concurrency=1")
			.run((context) -> assertThat(
					((InvalidWorkQueuePropertiesException) context.getStartupFailure()).getProblems())
				.containsExactly("workqueue.queues[" + name + "] names queue '" + name
						+ "', which the actuator's and the console's paths cannot carry: a queue name holds no '/', "
						+ "'\\', ';' or '%' and is not '.' or '..'"));
	}

	@Test
	void queueNamesThePathsCarryAreTaken() {
		this.contextRunner
			.withPropertyValues("workqueue.queues[orders.v2].concurrency=1", "workqueue.queues[a b#?+ü].concurrency=1")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void keysOfAQueueGivenAnEmptyValueAreReportedAsIgnored() {
		this.contextRunner.withSystemProperties("workqueue.queues.orders.concurrency=3")
			.withPropertyValues("workqueue.queues.orders=")
			.run((context) -> assertThat(
					((InvalidWorkQueuePropertiesException) context.getStartupFailure()).getProblems())
				.containsExactly("workqueue.queues.orders.concurrency is ignored because "
						+ "workqueue.queues.orders is given an empty value; remove that one"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "workqueue.queues.orders.concurrency=many",
			"workqueue.queues.orders.rate-limiter.exponential.jitter=some", "workqueue.observation.enabled=maybe",
			"workqueue.queues.orders.priority.enabled=maybe", "workqueue.defaults.priority.starvation-timeout=soon",
			"workqueue.defaults.latency-timers=maybe", "workqueue.queues.orders.latency-timers=maybe",
			"workqueue.defaults.latency-timers=", "workqueue.postgres.initialize-schema=sometimes",
			"workqueue.postgres.listen=maybe", "workqueue.log-items=maybe", "workqueue.postgres.lease=long" })
	void valueOfTheWrongTypeFailsWithBootsBindingErrorNamingTheKey(String property) {
		this.contextRunner.withPropertyValues(property)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(BindException.class)
				.hasMessageContaining(property.substring(0, property.indexOf('='))));
	}

	@Test
	void validValuesAtTheLimitsAreAccepted() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.max-retries=-1", "workqueue.defaults.shutdown-timeout=0s",
					"workqueue.queues.orders.concurrency=1", "workqueue.queues.orders.max-retries=0",
					"workqueue.defaults.concurrency=1024",
					"workqueue.queues.orders.rate-limiter.exponential.base-delay=0ms",
					"workqueue.queues.orders.rate-limiter.exponential.max-delay=0ms",
					"workqueue.queues.orders.rate-limiter.fast-slow.max-fast-attempts=0",
					"workqueue.queues.orders.rate-limiter.bucket.qps=Infinity",
					"workqueue.queues.orders.rate-limiter.bucket.burst=1",
					"workqueue.queues.orders.rate-limiter.item-bucket.qps=0.001",
					"workqueue.queues.orders.rate-limiter.max-wait=0s",
					"workqueue.queues.orders.priority.starvation-timeout=0s", "workqueue.defaults.given-up.keep=0",
					"workqueue.defaults.given-up.retention=36525d", "workqueue.queues.orders.given-up.keep=1000000",
					"workqueue.queues.orders.given-up.retention=1s")
			.run((context) -> assertThat(context).hasNotFailed().hasBean("orders"));
	}

	@Test
	void validateFindsNothingInTheDefaults() {
		assertThat(WorkQueuePropertiesValidator.validate(new WorkQueueProperties())).isEmpty();
	}

	@Test
	void failureAnalyzerListsEveryProblemWithAnAction() {
		InvalidWorkQueuePropertiesException failure = new InvalidWorkQueuePropertiesException(
				List.of("workqueue.queues.orders.concurrency must be >= 1, was 0",
						"workqueue.queues.orders.max-retries must be >= -1, was -2"));
		FailureAnalysis analysis = new InvalidWorkQueuePropertiesFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", failure));
		assertThat(analysis.getDescription())
			.isEqualTo("Invalid workqueue properties:\n\n    - workqueue.queues.orders.concurrency must be >= 1, was 0"
					+ "\n    - workqueue.queues.orders.max-retries must be >= -1, was -2");
		assertThat(analysis.getAction()).contains("give each workqueue property listed above a valid value");
		assertThat(analysis.getCause()).isSameAs(failure);
	}

	@Test
	void applicationFailsToStartWithACleanReport(CapturedOutput output) {
		SpringApplication application = new SpringApplication(InvalidApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		List<FailureAnalysis> reports = RecordingFailureAnalysisReporter.reportedWhile(
				() -> assertThatException().isThrownBy(() -> application.run("--workqueue.queues.orders.concurrency=0",
						"--workqueue.queues.orders.max-retries=-7", "--spring.main.banner-mode=off",
						RecordingFailureAnalysisReporter.SILENCE_LOGGING_REPORTER)));
		assertThat(reports).singleElement().satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("Invalid workqueue properties:")
				.contains("    - workqueue.queues.orders.concurrency must be >= 1, was 0")
				.contains("    - workqueue.queues.orders.max-retries must be >= -1, was -7");
			assertThat(analysis.getAction()).contains("Update your application's configuration");
		});
		// Boot's own reporter was silenced for this run only: a passing build prints no
		// failure banner.
		assertThat(output).doesNotContain("APPLICATION FAILED TO START");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(WorkQueueAutoConfiguration.class)
	static class InvalidApplication {

	}

}

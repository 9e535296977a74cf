package dev.workqueue.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.BoundPropertiesTrackingBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spring.worker.WorkerSettings;
import dev.workqueue.store.SharedQueueBuilder;

/**
 * The one place where {@code workqueue.*} properties are checked: binds them from the
 * environment and collects every problem at once, so that a start-up failure reports all
 * of them, each naming the full key.
 * <p>
 * Besides the values' ranges it reports keys under {@code workqueue.defaults},
 * {@code workqueue.queues.<name>}, {@code workqueue.redis} and {@code workqueue.postgres}
 * that bind to nothing, typically typos, and queue names that Boot would bind under
 * another name (written without brackets). Keys given as environment variables are not
 * checked for either, as their names cannot be told apart reliably. The {@code backend}
 * keys are bound as text and checked here, so that an unknown one is reported with the
 * other problems rather than alone by the binder.
 */
final class WorkQueuePropertiesValidator {

	static final String PREFIX = "workqueue";

	private static final ConfigurationPropertyName DEFAULTS = ConfigurationPropertyName.of(PREFIX + ".defaults");

	private static final ConfigurationPropertyName QUEUES = ConfigurationPropertyName.of(PREFIX + ".queues");

	/**
	 * The keys a queue takes, read from {@link WorkQueueProperties.Queue} itself so that
	 * a new property cannot be left out of the hint.
	 */
	static final String KNOWN_KEYS = String.join(", ", keysOf(WorkQueueProperties.Queue.class, ""));

	/**
	 * The groups whose every key must bind, each with the keys it takes as the hint for
	 * one that does not: a typo there is otherwise a default kept in silence (a Redis key
	 * prefix that two applications then share, a schema made that was not to be).
	 */
	private static final Map<ConfigurationPropertyName, String> CHECKED_GROUPS = Map.of(DEFAULTS,
			"a queue and the defaults take " + KNOWN_KEYS, QUEUES, "a queue and the defaults take " + KNOWN_KEYS,
			ConfigurationPropertyName.of(PREFIX + ".redis"),
			PREFIX + ".redis takes " + String.join(", ", keysOf(WorkQueueProperties.Redis.class, "")),
			ConfigurationPropertyName.of(PREFIX + ".postgres"),
			PREFIX + ".postgres takes " + String.join(", ", keysOf(WorkQueueProperties.Postgres.class, "")));

	/** The values of a {@code backend} key, as a user writes them. */
	static final String BACKENDS = String.join(", ",
			Arrays.stream(WorkQueueProperties.Backend.values()).map(WorkQueueProperties.Backend::value).toList());

	/**
	 * The shortest PostgreSQL poll interval: a waiting worker's look costs a statement.
	 */
	private static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

	/**
	 * A PostgreSQL table as workqueue-postgres takes it: one plain identifier, optionally
	 * after a schema and a dot, short enough that the names derived from it (indexes,
	 * sequence, the limiters' table) fit PostgreSQL's 63 bytes. Checked here too, so that
	 * a bad name fails start-up naming the key whether or not a queue uses it yet.
	 */
	private static final Pattern POSTGRES_TABLE = Pattern.compile("([a-z_][a-z0-9_$]{0,62}\\.)?[a-z_][a-z0-9_$]{0,55}",
			Pattern.CASE_INSENSITIVE);

	/** The shortest {@code given-up.retention}, as {@link GivenUpBound} takes it. */
	private static final Duration MIN_RETENTION = Duration.ofSeconds(1);

	/**
	 * The longest {@code given-up.retention}, 100 years, as {@link GivenUpBound} takes
	 * it.
	 */
	private static final Duration MAX_RETENTION = Duration.ofDays(36_525);

	private static final List<ChronoUnit> PRINT_UNITS = List.of(ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES,
			ChronoUnit.SECONDS, ChronoUnit.MILLIS, ChronoUnit.MICROS);

	private WorkQueuePropertiesValidator() {
	}

	/**
	 * Lists the dashed keys of a properties type, descending into the nested types of
	 * {@link WorkQueueProperties}.
	 */
	private static List<String> keysOf(Class<?> type, String prefix) {
		List<String> keys = new ArrayList<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || "class".equals(property.getName())) {
				continue;
			}
			String key = prefix + DataObjectPropertyName.toDashedForm(property.getName());
			Class<?> propertyType = property.getPropertyType();
			if (propertyType.getDeclaringClass() == WorkQueueProperties.class && !propertyType.isEnum()) {
				keys.addAll(keysOf(propertyType, key + "."));
			}
			else {
				keys.add(key);
			}
		}
		return keys;
	}

	/**
	 * Binds {@code workqueue.*} from {@code environment} and checks the result.
	 * @param environment the environment to bind from
	 * @return the properties, valid
	 * @throws InvalidWorkQueuePropertiesException listing every problem, if there is any
	 */
	static WorkQueueProperties bind(Environment environment) {
		Set<ConfigurationPropertyName> boundNames = new HashSet<>();
		WorkQueueProperties properties = Binder.get(environment)
			.bind(PREFIX, Bindable.of(WorkQueueProperties.class),
					new BoundPropertiesTrackingBindHandler((property) -> boundNames.add(property.getName())))
			.orElseGet(WorkQueueProperties::new);
		List<String> problems = new ArrayList<>(renamedQueues(environment).values());
		problems.addAll(unboundKeys(environment, boundNames).values());
		problems.addAll(validate(properties));
		if (!problems.isEmpty()) {
			throw new InvalidWorkQueuePropertiesException(problems);
		}
		return properties;
	}

	/**
	 * Finds the queue names that Boot would bind under another name: without brackets, a
	 * map key keeps only letters, digits, {@code -} and {@code _} ({@code a:b} becomes
	 * {@code ab}, {@code my queue} becomes {@code myqueue}), so two queues could merge.
	 * Compares each name as written in the property sources with the name Boot makes of
	 * it. A name written with brackets ({@code workqueue.queues[a:b]}) is kept whole.
	 * @return a problem per renamed queue, by name as written
	 */
	private static Map<String, String> renamedQueues(Environment environment) {
		String queuesPrefix = QUEUES + ".";
		Map<String, String> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source.getUnderlyingSource() instanceof EnumerablePropertySource<?> enumerable
					&& !(enumerable instanceof SystemEnvironmentPropertySource)) {
				for (String key : enumerable.getPropertyNames()) {
					if (!key.startsWith(queuesPrefix)) {
						continue;
					}
					int end = key.indexOf('.', queuesPrefix.length());
					String written = key.substring(queuesPrefix.length(), (end >= 0) ? end : key.length());
					String read = boundQueueName(written);
					if (!written.equals(read)) {
						problems.putIfAbsent(written,
								queuesPrefix + written + " names queue '" + written + "', which Boot would read as '"
										+ read + "' (a key keeps only letters, digits, '-' and '_'): write it as "
										+ QUEUES + "[" + written + "]");
					}
				}
			}
		}
		return problems;
	}

	/**
	 * A queue's key as the application writes it: with brackets where Boot would not keep
	 * the name as it is written without ({@code workqueue.queues[orders.v2]}).
	 */
	private static String queueKey(String name) {
		return boundQueueName(name).equals(name) ? QUEUES + "." + name : QUEUES + "[" + name + "]";
	}

	/**
	 * Whether a queue name can be one segment of {@code /actuator/workqueues/{name}} and
	 * the console's paths: servlet containers refuse an encoded {@code /} or {@code \},
	 * Spring Security's firewall an encoded {@code ;} or {@code %}, and clients resolve a
	 * segment {@code .} or {@code ..} away.
	 */
	private static boolean carriedByPaths(String name) {
		return !name.equals(".") && !name.equals("..") && name.chars().noneMatch((c) -> "/\\;%".indexOf(c) >= 0);
	}

	/** The map key Boot binds from a queue name written without brackets. */
	private static String boundQueueName(String written) {
		if (written.isEmpty() || written.startsWith("[")) {
			return written;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.adapt(QUEUES + "." + written, '.');
		return (name.getNumberOfElements() > QUEUES.getNumberOfElements())
				? name.getElement(QUEUES.getNumberOfElements(), ConfigurationPropertyName.Form.ORIGINAL) : "";
	}

	/**
	 * Finds the keys under {@code workqueue.defaults}, {@code workqueue.queues},
	 * {@code workqueue.redis} and {@code workqueue.postgres} that bound to nothing:
	 * unknown keys, or known ones left empty.
	 * @return a problem per key, by key
	 */
	private static Map<String, String> unboundKeys(Environment environment, Set<ConfigurationPropertyName> boundNames) {
		Map<String, String> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable
					&& !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)) {
				iterable.stream()
					.filter((name) -> hint(name) != null)
					.filter((name) -> !boundNames.contains(name))
					// An empty queue entry beside keys of that queue from another source
					.filter((name) -> boundNames.stream().noneMatch(name::isAncestorOf))
					.forEach((name) -> problems.putIfAbsent(name.toString(), unbound(source, name, boundNames)));
			}
		}
		return problems;
	}

	private static String unbound(ConfigurationPropertySource source, ConfigurationPropertyName name,
			Set<ConfigurationPropertyName> boundNames) {
		ConfigurationProperty property = source.getConfigurationProperty(name);
		if (property != null && "".equals(property.getValue())) {
			// A known key left empty binds to nothing, keeping its default.
			return name + " must not be empty";
		}
		for (ConfigurationPropertyName bound : boundNames) {
			if (bound.isAncestorOf(name)) {
				// The binder binds an entry from its own value and ignores its keys.
				return name + " is ignored because " + bound + " is given an empty value; remove that one";
			}
		}
		return name + " is not a workqueue property; " + hint(name);
	}

	/** The hint for a key of a checked group, {@code null} for a key of none. */
	private static @Nullable String hint(ConfigurationPropertyName name) {
		return CHECKED_GROUPS.entrySet()
			.stream()
			.filter((group) -> group.getKey().isAncestorOf(name))
			.map(Map.Entry::getValue)
			.findFirst()
			.orElse(null);
	}

	/**
	 * Checks the values of {@code properties}.
	 * @param properties the properties to check
	 * @return every problem found, defaults first, then queue by queue; empty when valid
	 */
	static List<String> validate(WorkQueueProperties properties) {
		List<String> problems = new ArrayList<>();
		WorkQueueProperties.Defaults defaults = properties.getDefaults();
		backend(problems, PREFIX + ".defaults.backend", defaults.getBackend());
		queueKeys(problems, PREFIX + ".defaults", defaults.getConcurrency(), defaults.getMaxRetries(),
				defaults.getShutdownTimeout(), defaults.getPollTimeout(), defaults.getRateLimiter(),
				defaults.getPriority());
		givenUp(problems, PREFIX + ".defaults.given-up", defaults.getGivenUp().getKeep(),
				defaults.getGivenUp().getRetention());
		WorkQueueProperties.Redis redis = properties.getRedis();
		atLeast(problems, PREFIX + ".redis.lease", redis.getLease(), SharedQueueBuilder.MIN_LEASE);
		String keyPrefix = redis.getKeyPrefix();
		if (keyPrefix == null || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			problems.add(PREFIX + ".redis.key-prefix must be given and hold no braces, was '" + keyPrefix + "'");
		}
		postgres(problems, PREFIX + ".postgres", properties.getPostgres());
		properties.getQueues().forEach((name, queue) -> {
			if (queue.getBackend() != null) {
				backend(problems, queueKey(name) + ".backend", queue.getBackend());
			}
			String backend = (queue.getBackend() != null) ? queue.getBackend() : defaults.getBackend();
			if (WorkQueueProperties.Backend.of(backend) == WorkQueueProperties.Backend.REDIS
					&& (name.indexOf('{') >= 0 || name.indexOf('}') >= 0)) {
				problems.add(QUEUES + "[" + name + "] names a redis queue, whose name must hold no braces");
			}
			if (!carriedByPaths(name)) {
				problems.add(QUEUES + "[" + name + "] names queue '" + name
						+ "', which the actuator's and the console's paths cannot carry: a queue name holds no '/', "
						+ "'\\', ';' or '%' and is not '.' or '..'");
			}
			queueKeys(problems, queueKey(name), queue.getConcurrency(), queue.getMaxRetries(),
					queue.getShutdownTimeout(), queue.getPollTimeout(), queue.getRateLimiter(), queue.getPriority());
			givenUp(problems, queueKey(name) + ".given-up", queue.getGivenUp().getKeep(),
					queue.getGivenUp().getRetention());
		});
		return problems;
	}

	private static void backend(List<String> problems, String key, @Nullable String value) {
		if (WorkQueueProperties.Backend.of(value) == null) {
			problems.add(key + " must be one of " + BACKENDS + ", was "
					+ ((value != null && !value.isEmpty()) ? "'" + value + "'" : "empty"));
		}
	}

	private static void postgres(List<String> problems, String prefix, WorkQueueProperties.Postgres postgres) {
		String table = postgres.getTable();
		// Two $ in a row would end the schema script's DO $$ blocks.
		if (table == null || !POSTGRES_TABLE.matcher(table).matches() || table.contains("$$")) {
			problems.add(prefix + ".table must be a plain SQL identifier (letters, digits, _ and $ but not $$, at "
					+ "most 56 characters), optionally schema-qualified, was "
					+ ((table != null) ? "'" + table + "'" : "empty"));
		}
		atLeast(problems, prefix + ".lease", postgres.getLease(), SharedQueueBuilder.MIN_LEASE);
		atLeast(problems, prefix + ".poll-interval", postgres.getPollInterval(), MIN_POLL_INTERVAL);
		if (postgres.getInitializeSchema() == null) {
			problems.add(prefix + ".initialize-schema must be always or never, was empty");
		}
	}

	/**
	 * Checks the keys that a queue and the defaults both have, each where it is written:
	 * a queue's key left out ({@code null}) takes the defaults', checked there.
	 */
	private static void queueKeys(List<String> problems, String prefix, @Nullable Integer concurrency,
			@Nullable Integer maxRetries, @Nullable Duration shutdownTimeout, @Nullable Duration pollTimeout,
			WorkQueueProperties.@Nullable RateLimit rateLimit, WorkQueueProperties.Priority priority) {
		if (concurrency != null) {
			atLeast(problems, prefix + ".concurrency", concurrency, 1);
			if (concurrency > WorkerSettings.MAX_CONCURRENCY) {
				problems.add(prefix + ".concurrency must be <= " + WorkerSettings.MAX_CONCURRENCY
						+ " (one thread each), was " + concurrency);
			}
		}
		if (maxRetries != null) {
			atLeast(problems, prefix + ".max-retries", maxRetries, -1);
		}
		if (shutdownTimeout != null) {
			notNegative(problems, prefix + ".shutdown-timeout", shutdownTimeout);
		}
		if (pollTimeout != null) {
			positive(problems, prefix + ".poll-timeout", pollTimeout);
		}
		rateLimit(problems, prefix + ".rate-limiter", rateLimit);
		priority(problems, prefix + ".priority", priority);
	}

	/**
	 * Checks a {@code given-up} section against {@link GivenUpBound}'s ranges; a queue's
	 * key left out ({@code null}) takes the defaults', checked there.
	 */
	private static void givenUp(List<String> problems, String prefix, @Nullable Integer keep,
			@Nullable Duration retention) {
		if (keep != null && (keep < 0 || keep > GivenUpBound.MAX_KEEP)) {
			problems.add(prefix + ".keep must be from 0 to " + GivenUpBound.MAX_KEEP + ", was " + keep);
		}
		if (retention != null && (retention.compareTo(MIN_RETENTION) < 0 || retention.compareTo(MAX_RETENTION) > 0)) {
			problems.add(prefix + ".retention must be from 1s to " + print(MAX_RETENTION) + " (100 years), was "
					+ print(retention));
		}
	}

	private static void priority(List<String> problems, String prefix, WorkQueueProperties.Priority priority) {
		if (priority.getStarvationTimeout() != null) {
			notNegative(problems, prefix + ".starvation-timeout", priority.getStarvationTimeout());
		}
	}

	private static void rateLimit(List<String> problems, String prefix,
			WorkQueueProperties.@Nullable RateLimit rateLimit) {
		if (rateLimit == null) {
			return;
		}
		WorkQueueProperties.Exponential exponential = rateLimit.getExponential();
		if (exponential != null) {
			boolean valid = notNegative(problems, prefix + ".exponential.base-delay", exponential.getBaseDelay());
			valid &= notNegative(problems, prefix + ".exponential.max-delay", exponential.getMaxDelay());
			if (valid && exponential.getMaxDelay().compareTo(exponential.getBaseDelay()) < 0) {
				problems.add(prefix + ".exponential.max-delay must be >= base-delay ("
						+ print(exponential.getBaseDelay()) + "), was " + print(exponential.getMaxDelay()));
			}
			// Written as a negated comparison so that NaN fails too.
			if (!(exponential.getJitter() >= 0 && exponential.getJitter() <= 1)) {
				problems.add(prefix + ".exponential.jitter must be between 0 and 1, was " + exponential.getJitter());
			}
		}
		WorkQueueProperties.FastSlow fastSlow = rateLimit.getFastSlow();
		if (fastSlow != null) {
			notNegative(problems, prefix + ".fast-slow.fast-delay", fastSlow.getFastDelay());
			notNegative(problems, prefix + ".fast-slow.slow-delay", fastSlow.getSlowDelay());
			atLeast(problems, prefix + ".fast-slow.max-fast-attempts", fastSlow.getMaxFastAttempts(), 0);
		}
		bucket(problems, prefix + ".bucket", rateLimit.getBucket());
		bucket(problems, prefix + ".item-bucket", rateLimit.getItemBucket());
		if (rateLimit.getMaxWait() != null) {
			notNegative(problems, prefix + ".max-wait", rateLimit.getMaxWait());
		}
	}

	private static void bucket(List<String> problems, String prefix, WorkQueueProperties.@Nullable Bucket bucket) {
		if (bucket == null) {
			return;
		}
		// Negated so that NaN is rejected too; infinity means no limit.
		if (!(bucket.getQps() > 0)) {
			problems.add(prefix + ".qps must be > 0, was " + bucket.getQps());
		}
		atLeast(problems, prefix + ".burst", bucket.getBurst(), 1);
	}

	private static void atLeast(List<String> problems, String key, int value, int min) {
		if (value < min) {
			problems.add(key + " must be >= " + min + ", was " + value);
		}
	}

	private static void atLeast(List<String> problems, String key, @Nullable Duration value, Duration min) {
		if (value == null || value.compareTo(min) < 0) {
			problems
				.add(key + " must be at least " + print(min) + ", was " + ((value != null) ? print(value) : "empty"));
		}
	}

	private static void positive(List<String> problems, String key, Duration value) {
		if (value.isNegative() || value.isZero()) {
			problems.add(key + " must be positive, was " + print(value));
		}
	}

	private static boolean notNegative(List<String> problems, String key, @Nullable Duration value) {
		if (value == null) {
			problems.add(key + " must not be empty");
			return false;
		}
		if (value.isNegative()) {
			problems.add(key + " must not be negative, was " + print(value));
			return false;
		}
		return true;
	}

	/**
	 * Prints {@code duration} in the largest unit that shows it exactly, as users write
	 * it: {@code -1s} rather than {@code -1000ms}.
	 */
	private static String print(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		for (ChronoUnit unit : PRINT_UNITS) {
			if (duration.truncatedTo(unit).equals(duration)) {
				return DurationStyle.SIMPLE.print(duration, unit);
			}
		}
		return DurationStyle.SIMPLE.print(duration, ChronoUnit.NANOS);
	}

}

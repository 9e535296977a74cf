package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.actuate.health.WorkQueuesHealthIndicator;
import dev.workqueue.spring.autoconfigure.endpoint.WorkQueuesEndpointAutoConfiguration;
import dev.workqueue.spring.autoconfigure.health.WorkQueuesHealthContributorAutoConfiguration;
import dev.workqueue.spring.autoconfigure.tracing.WorkQueueTracingAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Trace context from the adds of an item to its worker (contract §2 "Observation"), with
 * Spring Boot's own Micrometer Tracing and Brave auto-configuration reporting to memory,
 * on the memory, the redis and the postgres backend: the parent relation, links for
 * coalesced adds (capped at 8), a retry chain, nothing carried without a current span
 * (nor stored, on PostgreSQL), the switch, an unreadable stored context ignored with one
 * log line, and on Redis the backend's own commands out of the traces.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkQueueTracingTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final String PREFIX = LocalRedis.uniquePrefix();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
				MicrometerTracingAutoConfiguration.class, BraveAutoConfiguration.class,
				WorkQueueTracingAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues("management.tracing.sampling.probability=1.0", "workqueue.queues.orders.max-retries=3",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=1ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=1ms")
		.withBean(FinishedSpans.class)
		.withBean(TracedWorker.class);

	private final String table = LocalPostgres.uniqueTable();

	private boolean onRedis;

	private boolean onPostgres;

	@AfterEach
	void deleteKeys() {
		if (this.onRedis) {
			LocalRedis.deleteKeys(PREFIX);
		}
		if (this.onPostgres) {
			LocalPostgres.dropTable(this.table);
		}
	}

	private ApplicationContextRunner on(String backend) {
		if (backend.equals("memory")) {
			return this.contextRunner;
		}
		if (backend.equals("postgres")) {
			LocalPostgres.assumeAnswers();
			this.onPostgres = true;
			return this.contextRunner
				.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
						DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
				.withPropertyValues(LocalPostgres.dataSourceProperties())
				.withPropertyValues("workqueue.postgres.table=" + this.table,
						"workqueue.queues.orders.backend=postgres");
		}
		LocalRedis.assumeAnswers();
		this.onRedis = true;
		return this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST, "workqueue.redis.key-prefix=" + PREFIX,
					"workqueue.queues.orders.backend=redis");
	}

	@ParameterizedTest
	@ValueSource(strings = { "memory", "redis", "postgres" })
	void theProcessSpanIsAChildOfTheSpanOfTheAdd(String backend) {
		on(backend).run((context) -> {
			Span request = inSpan(context, "request", () -> orders(context).add("a"));
			MutableSpan process = processSpanOf(context, "a", 0);
			assertThat(process.traceId()).isEqualTo(request.context().traceId());
			assertThat(process.parentId()).isEqualTo(request.context().spanId());
			assertThat(process.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
			assertThat(linkSpanIds(process)).isEmpty();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "memory", "redis", "postgres" })
	void coalescedAddsAreLinksOfTheNextProcessSpanAtMostEight(String backend) {
		on(backend).run((context) -> {
			TracedWorker worker = context.getBean(TracedWorker.class);
			RateLimitingQueue<String> orders = orders(context);
			orders.add("gate");
			assertThat(worker.gateEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			Span first = inSpan(context, "first add", () -> orders.add("x"));
			List<String> later = new CopyOnWriteArrayList<>();
			for (int i = 0; i < 10; i++) {
				later.add(inSpan(context, "add " + i, () -> orders.add("x")).context().spanId());
			}
			worker.gate.countDown();
			MutableSpan process = processSpanOf(context, "x", 0);
			assertThat(process.parentId()).isEqualTo(first.context().spanId());
			assertThat(linkSpanIds(process)).containsExactlyInAnyOrderElementsOf(later.subList(0, 8));
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "W3C", "B3", "B3_MULTI" })
	void parentAndLinksComeThroughEveryPropagationFormat(String format) {
		this.contextRunner.withPropertyValues("management.tracing.propagation.type=" + format).run((context) -> {
			TracedWorker worker = context.getBean(TracedWorker.class);
			RateLimitingQueue<String> orders = orders(context);
			orders.add("gate");
			assertThat(worker.gateEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			Span first = inSpan(context, "first add", () -> orders.add("x"));
			Span second = inSpan(context, "second add", () -> orders.add("x"));
			worker.gate.countDown();
			MutableSpan process = processSpanOf(context, "x", 0);
			assertThat(process.traceId()).isEqualTo(first.context().traceId());
			assertThat(process.parentId()).isEqualTo(first.context().spanId());
			assertThat(linkSpanIds(process)).containsExactly(second.context().spanId());
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "memory", "redis", "postgres" })
	void aRetrysSpanIsAChildOfTheFailedAttemptsSpan(String backend) {
		on(backend).run((context) -> {
			Span request = inSpan(context, "request", () -> orders(context).add("flaky"));
			MutableSpan failed = processSpanOf(context, "flaky", 0);
			MutableSpan retried = processSpanOf(context, "flaky", 1);
			assertThat(failed.parentId()).isEqualTo(request.context().spanId());
			assertThat(failed.tags()).containsEntry("workqueue.outcome", "failed");
			assertThat(retried.traceId()).isEqualTo(request.context().traceId());
			assertThat(retried.parentId()).isEqualTo(failed.id());
			assertThat(retried.tags()).containsEntry("workqueue.outcome", "done");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "memory", "redis", "postgres" })
	void anAddWithoutACurrentSpanCarriesNothing(String backend) {
		on(backend).run((context) -> {
			TracedWorker worker = context.getBean(TracedWorker.class);
			orders(context).add("gate");
			assertThat(worker.gateEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			orders(context).add("plain");
			orders(context).add("plain");
			if (backend.equals("postgres")) {
				assertThat(LocalPostgres.count("SELECT count(*) FROM " + this.table + " WHERE item = 'plain'")).isOne();
				assertThat(LocalPostgres.count("SELECT count(*) FROM " + this.table + " WHERE trace IS NOT NULL"))
					.as("nothing stored")
					.isZero();
			}
			worker.gate.countDown();
			MutableSpan process = processSpanOf(context, "plain", 0);
			assertThat(process.parentId()).isNull();
			assertThat(linkSpanIds(process)).isEmpty();
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "memory", "postgres" })
	void propagationOffLeavesTheQueuesWithoutContexts(String backend) {
		on(backend).withPropertyValues("workqueue.observation.propagation=false").run((context) -> {
			assertThat(context).doesNotHaveBean(TraceContextSource.class);
			assertThat(context).doesNotHaveBean(PostgresWorkQueueCustomizer.class);
			Span request = inSpan(context, "request", () -> orders(context).add("a"));
			MutableSpan process = processSpanOf(context, "a", 0);
			assertThat(process.traceId()).isNotEqualTo(request.context().traceId());
			assertThat(process.parentId()).isNull();
		});
	}

	@Test
	void theRedisBackendsOwnCommandsMakeNoTraces() {
		on("redis").withConfiguration(AutoConfigurations.of(LettuceObservationAutoConfiguration.class))
			.withPropertyValues("workqueue.redis.lease=1s")
			.run((context) -> {
				FinishedSpans spans = context.getBean(FinishedSpans.class);
				TracedWorker worker = context.getBean(TracedWorker.class);
				// Lettuce takes a command's parent from the current observation, as an
				// application's request has one.
				Span request = inObservation(context, "request", () -> orders(context).add("gate"));
				assertThat(worker.gateEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				// Held past its 1 s lease: only the renewals (every third of it) keep it
				// from being handed out again.
				await().pollDelay(Duration.ofMillis(1500)).atMost(TIMEOUT).until(() -> true);
				worker.gate.countDown();
				processSpanOf(context, "gate", 0);
				orders(context).add("after");
				processSpanOf(context, "after", 0);
				assertThat(spans.named("work gate")).as("renewed, not handed out twice").hasSize(1);
				// The application's own command outside any observation still starts a
				// trace: only the backend's are dropped.
				context.getBean(LettuceConnectionFactory.class).getConnection().ping();
				await().atMost(TIMEOUT)
					.until(() -> spans.redisRoots().stream().anyMatch((span) -> "ping".equalsIgnoreCase(span.name())));
				// Lettuce traces the backend's scripts sent inside an observation: the
				// add's is a child of the request. Its waits, leases, dones, ticks,
				// renewals and subscriptions, sent outside one, start no trace; only
				// Lettuce's own handshake of each new connection does.
				assertThat(spans.all()).filteredOn((span) -> span.kind() == brave.Span.Kind.CLIENT)
					.anySatisfy((span) -> assertThat(span.parentId()).isEqualTo(request.context().spanId()));
				assertThat(spans.redisRoots()).extracting((span) -> span.name().toLowerCase(Locale.ROOT))
					.containsOnly("hello", "client", "ping");
			});
	}

	@Test
	void healthAndTheEndpointReadTheRedisQueuesWithoutSpans() {
		on("redis")
			.withConfiguration(AutoConfigurations.of(LettuceObservationAutoConfiguration.class,
					WorkQueuesHealthContributorAutoConfiguration.class, WorkQueuesEndpointAutoConfiguration.class))
			.withPropertyValues("workqueue.queues.emails.backend=redis",
					"management.endpoints.web.exposure.include=workqueues")
			.run((context) -> {
				FinishedSpans spans = context.getBean(FinishedSpans.class);
				// As a health request and an endpoint request are handled: in an
				// observation, which Lettuce would make the parent of every command.
				Span request = inObservation(context, "health request", () -> {
					assertThat(context.getBean(WorkQueuesHealthIndicator.class).health().getStatus())
						.isEqualTo(Status.UP);
					assertThat(context.getBean(WorkQueuesEndpoint.class).queues().queues()).hasSize(2);
					orders(context).add("in the request");
				});
				// The add is the application's own and is traced: once its span is in,
				// every command sent before it has reported too.
				await().atMost(TIMEOUT)
					.until(() -> spans.all()
						.stream()
						.anyMatch((span) -> span.kind() == brave.Span.Kind.CLIENT
								&& request.context().spanId().equals(span.parentId())));
				assertThat(spans.all())
					.filteredOn((span) -> span.kind() == brave.Span.Kind.CLIENT
							&& request.context().spanId().equals(span.parentId()))
					.singleElement()
					.satisfies((span) -> assertThat(span.name()).isEqualToIgnoringCase("evalsha"));
			});
	}

	@Test
	void anUnreadableStoredContextIsIgnoredWithOneLogLine(CapturedOutput output) {
		on("redis").run((context) -> {
			LocalRedis.call((redis) -> redis.hset(PREFIX + "{orders}:priorities", "tbad", "traceparent=not-a-context"));
			orders(context).add("bad");
			MutableSpan process = processSpanOf(context, "bad", 0);
			assertThat(process.parentId()).isNull();
			assertThat(process.tags()).containsEntry("workqueue.outcome", "done");
			assertThat(output.getOut().lines().filter((line) -> line.contains("Ignoring a trace context"))).hasSize(1);
		});
	}

	@Test
	void anUnreadableContextInThePostgresColumnIsIgnoredWithOneLogLine(CapturedOutput output) {
		on("postgres").run((context) -> {
			TracedWorker worker = context.getBean(TracedWorker.class);
			orders(context).add("gate");
			assertThat(worker.gateEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			orders(context).add("bad");
			LocalPostgres
				.execute("UPDATE " + this.table + " SET trace = 'traceparent=not-a-context' WHERE item = 'bad'");
			worker.gate.countDown();
			MutableSpan process = processSpanOf(context, "bad", 0);
			assertThat(process.parentId()).isNull();
			assertThat(process.tags()).containsEntry("workqueue.outcome", "done");
			assertThat(output.getOut().lines().filter((line) -> line.contains("Ignoring a trace context"))).hasSize(1);
		});
	}

	@SuppressWarnings("unchecked")
	private static RateLimitingQueue<String> orders(ApplicationContext context) {
		return (RateLimitingQueue<String>) (RateLimitingQueue<?>) context.getBean(WorkQueueRegistry.class)
			.get("orders");
	}

	/** Runs {@code action} in a new span, ended after it; returns the span. */
	private static Span inSpan(ApplicationContext context, String name, Runnable action) {
		Tracer tracer = context.getBean(Tracer.class);
		Span span = tracer.nextSpan().name(name).start();
		try (Tracer.SpanInScope scope = tracer.withSpan(span)) {
			action.run();
		}
		finally {
			span.end();
		}
		return span;
	}

	/** Runs {@code action} in a new observation; returns its span. */
	private static Span inObservation(ApplicationContext context, String name, Runnable action) {
		AtomicReference<Span> span = new AtomicReference<>();
		Observation.createNotStarted(name, context.getBean(ObservationRegistry.class)).observe(() -> {
			span.set(context.getBean(Tracer.class).currentSpan());
			action.run();
		});
		return span.get();
	}

	/**
	 * The process span of the {@code attempt}-th processing of {@code item}: the parent
	 * of the span the worker starts for it.
	 */
	private static MutableSpan processSpanOf(ApplicationContext context, String item, int attempt) {
		FinishedSpans spans = context.getBean(FinishedSpans.class);
		await().atMost(TIMEOUT).until(() -> spans.named("work " + item).size() > attempt);
		MutableSpan work = spans.named("work " + item).get(attempt);
		await().atMost(TIMEOUT).until(() -> spans.byId(work.parentId()) != null);
		MutableSpan process = spans.byId(work.parentId());
		assertThat(process.name()).isEqualToIgnoringCase("orders process");
		return process;
	}

	private static List<String> linkSpanIds(MutableSpan span) {
		return span.tags()
			.entrySet()
			.stream()
			.filter((tag) -> tag.getKey().matches("links\\[\\d+]\\.spanId"))
			.map(Map.Entry::getValue)
			.toList();
	}

	/** Brave's finished spans, in memory. */
	static class FinishedSpans extends SpanHandler {

		private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

		@Override
		public boolean end(TraceContext context, MutableSpan span, Cause cause) {
			if (cause == Cause.FINISHED) {
				this.spans.add(span);
			}
			return true;
		}

		List<MutableSpan> all() {
			return this.spans;
		}

		List<MutableSpan> named(String name) {
			return this.spans.stream().filter((span) -> name.equals(span.name())).toList();
		}

		MutableSpan byId(String id) {
			return this.spans.stream().filter((span) -> span.id().equals(id)).findFirst().orElse(null);
		}

		/** Redis commands that started a trace of their own. */
		List<MutableSpan> redisRoots() {
			return this.spans.stream()
				.filter((span) -> span.kind() == brave.Span.Kind.CLIENT && span.parentId() == null)
				.toList();
		}

	}

	/**
	 * Processes the {@code orders} queue: starts a span {@code work <item>} (a child of
	 * the process span), fails {@code flaky} once, and holds {@code gate} until told.
	 */
	static class TracedWorker {

		final CountDownLatch gateEntered = new CountDownLatch(1);

		final CountDownLatch gate = new CountDownLatch(1);

		private final AtomicInteger flakyCalls = new AtomicInteger();

		private final Tracer tracer;

		TracedWorker(Tracer tracer) {
			this.tracer = tracer;
		}

		@QueueWorker(queue = "orders")
		public void process(String item) throws InterruptedException {
			this.tracer.nextSpan().name("work " + item).start().end();
			if (item.equals("gate")) {
				this.gateEntered.countDown();
				this.gate.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			}
			if (item.equals("flaky") && this.flakyCalls.getAndIncrement() == 0) {
				throw new IllegalStateException("first attempt fails");
			}
		}

	}

}

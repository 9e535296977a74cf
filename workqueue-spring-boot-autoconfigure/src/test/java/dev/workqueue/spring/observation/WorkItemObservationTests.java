package dev.workqueue.spring.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.spring.worker.WorkObservations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the {@code workqueue.process} observation: a span per work item through
 * Micrometer Tracing, its key values per outcome, the user's convention, and the switch.
 */
class WorkItemObservationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.max-retries=1",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=0ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=0ms")
		.withUserConfiguration(TracingConfiguration.class, ScriptedWorker.class);

	@Test
	void eachItemGetsASpanTaggedWithItsQueueAndOutcomeAndTheWorkersSpansAreItsChildren() {
		this.contextRunner.run((context) -> {
			SimpleTracer tracer = context.getBean(SimpleTracer.class);
			ScriptedWorker worker = context.getBean(ScriptedWorker.class);
			worker.script = (item) -> switch (item) {
				case "requeue-after" -> WorkResult.requeueAfter(Duration.ofHours(1));
				case "fails" -> throw new IllegalStateException("boom");
				default -> null;
			};
			RateLimitingQueue<String> orders = orders(context);
			orders.add("ok");
			orders.add("requeue-after");
			orders.add("fails");
			await().atMost(TIMEOUT).until(() -> processSpans(tracer).size() == 4);
			List<SimpleSpan> spans = processSpans(tracer);
			assertThat(spans).allSatisfy((span) -> {
				assertThat(span.getName()).isEqualTo("orders process");
				assertThat(span.getTags()).containsEntry("workqueue.name", "orders").doesNotContainValue("ok");
			});
			assertThat(spans).extracting((span) -> span.getTags().get("workqueue.outcome"))
				.containsExactlyInAnyOrder("done", "requeue-after", "failed", "gave-up");
			assertThat(spans).filteredOn((span) -> span.getError() != null)
				.extracting((span) -> span.getTags().get("workqueue.outcome"))
				.containsExactlyInAnyOrder("failed", "gave-up");
			SimpleSpan okSpan = spans.stream()
				.filter((span) -> "done".equals(span.getTags().get("workqueue.outcome")))
				.findFirst()
				.orElseThrow();
			SimpleSpan child = tracer.getSpans()
				.stream()
				.filter((span) -> span.getName().equals("downstream call"))
				.filter((span) -> span.getTraceId().equals(okSpan.getTraceId()))
				.findFirst()
				.orElseThrow();
			assertThat(child.getParentId()).isEqualTo(okSpan.getSpanId());
		});
	}

	@Test
	void theApplicationsConventionNamesTheObservation() {
		this.contextRunner.withBean(WorkItemObservationConvention.class, CustomConvention::new).run((context) -> {
			SimpleTracer tracer = context.getBean(SimpleTracer.class);
			orders(context).add("ok");
			await().atMost(TIMEOUT)
				.until(() -> tracer.getSpans().stream().anyMatch((span) -> span.getName().equals("custom ok")));
			SimpleSpan span = tracer.getSpans()
				.stream()
				.filter((candidate) -> candidate.getName().equals("custom ok"))
				.findFirst()
				.orElseThrow();
			assertThat(span.getTags()).containsEntry("workqueue.name", "orders")
				.containsEntry("workqueue.outcome", "done")
				.containsEntry("worker", "workItemObservationTests.ScriptedWorker#process");
		});
	}

	@Test
	void theSwitchTurnsItOff() {
		this.contextRunner.withPropertyValues("workqueue.observation.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(WorkObservations.class);
			ScriptedWorker worker = context.getBean(ScriptedWorker.class);
			orders(context).add("ok");
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 1);
			assertThat(processSpans(context.getBean(SimpleTracer.class))).isEmpty();
		});
	}

	@Test
	void withoutAnObservationRegistryNothingIsObserved() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
			.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.run((context) -> assertThat(context.getBean(WorkObservations.class)).isSameAs(WorkObservations.NONE));
	}

	@Test
	void workersRunWithoutMicrometersObservationApiOnTheClassPath() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withBean(PlainWorker.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(WorkObservations.class);
				orders(context).add("a");
				await().atMost(TIMEOUT).until(() -> context.getBean(PlainWorker.class).calls.contains("a"));
			});
	}

	private static List<SimpleSpan> processSpans(SimpleTracer tracer) {
		return tracer.getSpans().stream().filter((span) -> "orders process".equals(span.getName())).toList();
	}

	@SuppressWarnings("unchecked")
	private static RateLimitingQueue<String> orders(org.springframework.context.ApplicationContext context) {
		return (RateLimitingQueue<String>) (RateLimitingQueue<?>) context.getBean(WorkQueueRegistry.class)
			.get("orders");
	}

	@Configuration(proxyBeanMethods = false)
	static class TracingConfiguration {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		ObservationRegistry observationRegistry(SimpleTracer tracer) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
			return registry;
		}

	}

	/**
	 * Runs a script per item inside a child observation, as a downstream client would.
	 */
	static class ScriptedWorker {

		final List<String> calls = new CopyOnWriteArrayList<>();

		volatile Function<String, WorkResult> script = (item) -> null;

		private final ObservationRegistry registry;

		ScriptedWorker(ObservationRegistry registry) {
			this.registry = registry;
		}

		@QueueWorker(queue = "orders")
		WorkResult process(String item) {
			this.calls.add(item);
			return Observation.createNotStarted("downstream", this.registry)
				.contextualName("downstream call")
				.observe(() -> this.script.apply(item));
		}

	}

	/** Records each item; refers to nothing of Micrometer, so it loads without it. */
	static class PlainWorker {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		void process(String item) {
			this.calls.add(item);
		}

	}

	static class CustomConvention extends DefaultWorkItemObservationConvention {

		@Override
		public String getContextualName(WorkItemObservationContext context) {
			return "custom " + context.getItem();
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(WorkItemObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("worker", context.getWorker());
		}

	}

}

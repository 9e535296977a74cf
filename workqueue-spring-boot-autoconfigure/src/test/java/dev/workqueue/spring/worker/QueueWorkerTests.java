package dev.workqueue.spring.worker;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.spring.diagnostics.RecordingFailureAnalysisReporter;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link QueueWorker @QueueWorker} methods: what each outcome does to the item,
 * retries and give-up, concurrency, and the checks at start-up.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueueWorkerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/** Retries go back at once: a zero exponential backoff. */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.rate-limiter.exponential.base-delay=0ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=0ms")
		.withBean(GivenUpEvents.class);

	@Test
	void workerProcessesEveryItemAddedToItsQueue() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class).run((context) -> {
			ScriptedWorker worker = context.getBean(ScriptedWorker.class);
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add("a");
			orders.add("b");
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 2);
			assertThat(worker.calls).containsExactly("a", "b");
			await().atMost(TIMEOUT).until(() -> orders.stats().processing() == 0);
			assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
		});
	}

	@Test
	void failedItemIsRetriedUntilItSucceedsAndItsFailuresAreForgotten() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class).run((context) -> {
			ScriptedWorker worker = context.getBean(ScriptedWorker.class);
			worker.script = failTimes(2);
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add("a");
			await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
			assertThat(worker.calls).containsExactly("a", "a", "a");
			assertThat(worker.numRequeuesSeen).containsExactly(0, 1, 2);
			await().atMost(TIMEOUT).until(() -> orders.stats().processing() == 0);
			assertThat(orders.numRequeues("a")).isZero();
			assertThat(context.getBean(WorkerContainerRegistry.class).failures("orders", "a")).isZero();
			assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
		});
	}

	@ParameterizedTest(name = "max-retries {0}")
	@ValueSource(ints = { 0, 1, 3 })
	void workerGivesUpAfterMaxRetriesAndPublishesAnEvent(int maxRetries, CapturedOutput output) {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=" + maxRetries)
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				worker.script = failTimes(Integer.MAX_VALUE);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("a");
				List<WorkItemGivenUpEvent> events = context.getBean(GivenUpEvents.class).events;
				await().atMost(TIMEOUT).until(() -> !events.isEmpty());
				WorkItemGivenUpEvent event = events.get(0);
				assertThat(event.getQueueName()).isEqualTo("orders");
				assertThat(event.getQueue()).isSameAs(orders);
				assertThat(event.getItem()).isEqualTo("a");
				assertThat(event.getAttempts()).isEqualTo(maxRetries + 1);
				assertThat(event.getLastException()).hasMessage("failure " + (maxRetries + 1) + " of a");
				// The worker moves on; the item given up on is not tried again.
				worker.script = (item) -> null;
				orders.add("b");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("b"));
				assertThat(worker.calls).filteredOn("a"::equals).hasSize(maxRetries + 1);
				assertThat(events).hasSize(1);
				assertThat(orders.numRequeues("a")).isZero();
				assertThat(context.getBean(WorkerContainerRegistry.class).failures("orders", "a")).isZero();
				assertThat(output)
					.contains("Gave up on item a of queue 'orders' after " + (maxRetries + 1) + " failed attempt(s)")
					.contains("failure " + (maxRetries + 1) + " of a");
			});
	}

	@Test
	void giveUpLineCutsTheItemTo200CharactersAndEscapesControlCharacters(CapturedOutput output) {
		String forged = "x\n2026-01-01T00:00:00Z  INFO forged line\r\u0007" + "y".repeat(300);
		givesUp(forged, output, "workqueue.queues.orders.max-retries=0");
		String shown = "x\\n2026-01-01T00:00:00Z  INFO forged line\\r\\u0007" + "y".repeat(200 - 42) + "... ("
				+ forged.length() + " characters)";
		assertThat(output).contains("Gave up on item " + shown + " of queue 'orders' after 1 failed attempt(s)")
			.doesNotContain("y".repeat(201))
			.doesNotContain("\n2026-01-01T00:00:00Z  INFO forged line");
	}

	@Test
	void logItemsFalseLogsAShortHashOfTheItemInstead(CapturedOutput output) {
		givesUp("alice@example.com", output, "workqueue.queues.orders.max-retries=0", "workqueue.log-items=false");
		assertThat(output).containsPattern("Gave up on item #[0-9a-f]{12} of queue 'orders' after 1 failed attempt")
			.doesNotContain("Gave up on item alice@example.com");
	}

	private void givesUp(String item, CapturedOutput output, String... properties) {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues(properties)
			.run((context) -> {
				context.getBean(ScriptedWorker.class).script = (failing) -> {
					throw new IllegalStateException("failed");
				};
				context.getBean(WorkQueueRegistry.class).get("orders").add(item);
				await().atMost(TIMEOUT).until(() -> output.toString().contains("Gave up on item"));
			});
	}

	@Test
	void maxRetriesMinusOneRetriesForever() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=-1")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				worker.script = failTimes(30);
				context.getBean(WorkQueueRegistry.class).get("orders").add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				assertThat(worker.calls).hasSize(31);
				assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
			});
	}

	@Test
	void failuresAreCountedSinceTheItemsLastSuccess() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=2")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				worker.script = failTimes(2);
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.size() == 1);
				worker.script = failTimes(2);
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.size() == 2);
				assertThat(worker.calls).hasSize(6);
				assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
			});
	}

	@Test
	void requeueAddsTheItemRateLimitedAndIsNotAFailure() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=0")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				AtomicInteger calls = new AtomicInteger();
				worker.script = (item) -> (calls.incrementAndGet() <= 3) ? WorkResult.requeue() : WorkResult.done();
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				// Each call saw one more requeue; done() forgot them.
				assertThat(worker.numRequeuesSeen).containsExactly(0, 1, 2, 3);
				await().atMost(TIMEOUT).until(() -> orders.stats().processing() == 0);
				assertThat(orders.numRequeues("a")).isZero();
				assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
			});
	}

	@Test
	void requeueAfterForgetsTheItemThenAddsItAfterTheDelay() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withBean(FakeClock.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=0")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				FakeClock clock = context.getBean(FakeClock.class);
				AtomicInteger calls = new AtomicInteger();
				worker.script = (item) -> switch (calls.incrementAndGet()) {
					case 1 -> WorkResult.requeue();
					case 2 -> WorkResult.requeueAfter(Duration.ofSeconds(10));
					default -> null;
				};
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> orders.stats().waiting() == 1 && clock.hasWaiters());
				assertThat(worker.numRequeuesSeen).containsExactly(0, 1);
				assertThat(orders.numRequeues("a")).isZero();
				clock.step(Duration.ofSeconds(9));
				assertThat(orders.stats().waiting()).isOne();
				clock.step(Duration.ofSeconds(1));
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				assertThat(worker.calls).hasSize(3);
				assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
			});
	}

	@Test
	void requeueAfterEndsTheItemsRunOfFailures() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=1")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				AtomicInteger calls = new AtomicInteger();
				worker.script = (item) -> switch (calls.incrementAndGet()) {
					case 1, 3 -> throw new IllegalStateException("failure");
					case 2 -> WorkResult.requeueAfter(Duration.ZERO);
					default -> WorkResult.done();
				};
				context.getBean(WorkQueueRegistry.class).get("orders").add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				assertThat(worker.calls).hasSize(4);
				assertThat(context.getBean(GivenUpEvents.class).events).isEmpty();
			});
	}

	@Test
	void concurrencyRunsThatManyThreadsAtOnceNamedAfterTheQueue() {
		this.contextRunner.withBean(GatedWorker.class)
			.withPropertyValues("workqueue.queues.orders.concurrency=3")
			.run((context) -> {
				GatedWorker worker = context.getBean(GatedWorker.class);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				try {
					for (int i = 0; i < 5; i++) {
						orders.add("item-" + i);
					}
					await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 3);
					assertThat(orders.size()).isEqualTo(2);
					assertThat(worker.threadNames).hasSize(3)
						.allSatisfy((name) -> assertThat(name).matches("workqueue-orders-[1-3]"));
				}
				finally {
					worker.openGate();
				}
				await().atMost(TIMEOUT).until(() -> worker.calls.size() == 5);
				assertThat(worker.maxInFlight).hasValue(3);
			});
	}

	@Test
	void annotationConcurrencyOverridesTheQueueAndResolvesPlaceholders() {
		this.contextRunner.withBean("placeholderWorker", PlaceholderWorker.class)
			.withPropertyValues("workqueue.queues.orders.concurrency=5", "test.workers=2")
			.run((context) -> {
				assertThat(context.getBean(WorkerContainerRegistry.class).containers()).containsExactly(
						new WorkerContainerStatus("orders", "placeholderWorker#process", 2, 2, true, false));
			});
	}

	@Test
	void poolsReportEveryWorkerMethodAndStopRunningOnClose() {
		this.contextRunner.withBean("scripted", ScriptedWorker.class)
			.withBean("blocking", GatedWorker.class)
			.withPropertyValues("workqueue.defaults.concurrency=2")
			.run((context) -> {
				WorkerContainerRegistry registry = context.getBean(WorkerContainerRegistry.class);
				assertThat(registry.isRunning()).isTrue();
				assertThat(registry.containers()).containsExactlyInAnyOrder(
						new WorkerContainerStatus("orders", "scripted#process", 2, 2, true, false),
						new WorkerContainerStatus("orders", "blocking#process", 2, 2, true, false));
				context.close();
				assertThat(registry.isRunning()).isFalse();
				assertThat(registry.containers()).allSatisfy((pool) -> {
					assertThat(pool.running()).isFalse();
					assertThat(pool.aliveThreads()).isZero();
				});
			});
	}

	@Test
	void poolStopsRunningWhenItsQueueIsShutDownWhileTheApplicationRuns(CapturedOutput output) {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class).run((context) -> {
			WorkerContainerRegistry registry = context.getBean(WorkerContainerRegistry.class);
			context.getBean(WorkQueueRegistry.class).get("orders").shutDown();
			await().atMost(TIMEOUT)
				.until(() -> registry.containers()
					.equals(List
						.of(new WorkerContainerStatus("orders", "scriptedWorker#process", 1, 0, false, false))));
			assertThat(output).contains("Worker thread workqueue-orders-1 of scriptedWorker#process ended while the "
					+ "application is running");
		});
	}

	@Test
	void aPriorityWorkerStartsOnAPriorityQueueBeanDeclaredAsARateLimitingQueueAfterIt() {
		this.contextRunner.withUserConfiguration(WorkerBeforeItsPriorityQueueConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			RateLimitingQueue<String> orders = context.getBean("orders", RateLimitingQueue.class);
			((PriorityQueue<String>) orders).add("urgent", 7);
			PriorityWorker worker = context.getBean(PriorityWorker.class);
			await().atMost(TIMEOUT).until(() -> worker.seen.contains("urgent@7"));
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("wrongWorkers")
	void wrongWorkerFailsStartUpNamingTheMethod(Class<?> worker, String message) {
		this.contextRunner.withBean(worker).run((context) -> {
			assertThat(context).getFailure().rootCause().isInstanceOf(InvalidQueueWorkerException.class);
			assertThat(context.getStartupFailure()).rootCause().hasMessage(message);
		});
	}

	static Stream<Arguments> wrongWorkers() {
		String prefix = "@QueueWorker method " + QueueWorkerTests.class.getName() + "$";
		return Stream.of(
				Arguments.of(NoParameterWorker.class,
						prefix + "NoParameterWorker.process() must take the item, and on a priority queue maybe "
								+ "an int priority, but takes 0 parameters"),
				Arguments.of(TwoParameterWorker.class, prefix
						+ "TwoParameterWorker.process(String, int) takes the priority as its second parameter, but queue "
						+ "'orders' is not a priority queue (set workqueue.queues.orders.priority.enabled=true, or take "
						+ "the item only)"),
				Arguments.of(LongPriorityWorker.class,
						prefix + "LongPriorityWorker.process(String, long) must take "
								+ "an int priority as its second parameter, but takes long"),
				Arguments.of(BoxedPriorityWorker.class,
						prefix + "BoxedPriorityWorker.process(String, Integer) must "
								+ "take an int priority as its second parameter, but takes java.lang.Integer"),
				Arguments.of(ThreeParameterWorker.class,
						prefix + "ThreeParameterWorker.process(String, int, int) must take the item, and on a "
								+ "priority queue maybe an int priority, but takes 3 parameters"),
				Arguments.of(StringReturningWorker.class,
						prefix + "StringReturningWorker.process(String) must return void or WorkResult, but returns "
								+ "java.lang.String"),
				Arguments.of(ZeroConcurrencyWorker.class,
						prefix + "ZeroConcurrencyWorker.process(String) has concurrency '0', which must resolve to an "
								+ "integer from 1 to 1024, was '0'"),
				Arguments.of(HugeConcurrencyWorker.class, prefix
						+ "HugeConcurrencyWorker.process(String) has concurrency '${test.workers:100000}', which "
						+ "must resolve to an integer from 1 to 1024, was '100000'"),
				Arguments.of(TextConcurrencyWorker.class,
						prefix + "TextConcurrencyWorker.process(String) has concurrency '${test.workers:many}', which "
								+ "must resolve to an integer from 1 to 1024, was 'many'"),
				Arguments.of(UnresolvableConcurrencyWorker.class,
						prefix + "UnresolvableConcurrencyWorker.process(String) has concurrency '${test.nowhere}', "
								+ "which cannot be resolved: Could not resolve placeholder 'test.nowhere' in value "
								+ "\"${test.nowhere}\""),
				Arguments.of(UnknownQueueWorker.class,
						prefix + "UnknownQueueWorker.process(String) names queue 'invoices', which does not exist; "
								+ "known queues: [orders] (configure it under workqueue.queues.invoices or "
								+ "define a RateLimitingQueue bean named 'invoices')"));
	}

	@Test
	void workerBeanMustBeASingleton() {
		this.contextRunner.withUserConfiguration(PrototypeWorkerConfiguration.class).run((context) -> {
			context.getBean(WorkQueueRegistry.class);
			assertThatException().isThrownBy(() -> context.getBean("prototypeWorker"))
				.havingRootCause()
				.isInstanceOf(InvalidQueueWorkerException.class)
				.withMessageContaining("is on bean 'prototypeWorker', which is not a singleton");
		});
	}

	@Test
	void workerOfALazyBeanStartsWhenTheBeanIsCreated() {
		this.contextRunner.withUserConfiguration(LazyWorkerConfiguration.class).run((context) -> {
			WorkerContainerRegistry registry = context.getBean(WorkerContainerRegistry.class);
			assertThat(registry.containers()).isEmpty();
			ScriptedWorker worker = context.getBean("lazyWorker", ScriptedWorker.class);
			assertThat(registry.containers()).extracting(WorkerContainerStatus::worker)
				.containsExactly("lazyWorker#process");
			context.getBean(WorkQueueRegistry.class).get("orders").add("a");
			await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
		});
	}

	@Test
	void adviceOfAClassProxiedWorkerApplies() {
		this.contextRunner.withUserConfiguration(ClassProxyConfiguration.class).run((context) -> {
			ClassProxyConfiguration configuration = context.getBean(ClassProxyConfiguration.class);
			context.getBean(WorkQueueRegistry.class).get("orders").add("a");
			await().atMost(TIMEOUT).until(() -> configuration.target.successes.contains("a"));
			assertThat(configuration.advised).containsExactly("a");
		});
	}

	@Test
	void adviceOfAnInterfaceProxiedWorkerApplies() {
		this.contextRunner.withUserConfiguration(InterfaceProxyConfiguration.class).run((context) -> {
			InterfaceProxyConfiguration configuration = context.getBean(InterfaceProxyConfiguration.class);
			context.getBean(WorkQueueRegistry.class).get("orders").add("a");
			await().atMost(TIMEOUT).until(() -> configuration.target.items.contains("a"));
			assertThat(configuration.advised).containsExactly("a");
		});
	}

	@Test
	void itemOfTheWrongTypeIsGivenUpWithoutCallingTheMethod(CapturedOutput output) {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class).run((context) -> {
			ScriptedWorker worker = context.getBean(ScriptedWorker.class);
			RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add(42);
			List<WorkItemGivenUpEvent> events = context.getBean(GivenUpEvents.class).events;
			await().atMost(TIMEOUT).until(() -> !events.isEmpty());
			assertThat(events.get(0).getItem()).isEqualTo(42);
			assertThat(events.get(0).getAttempts()).isOne();
			assertThat(events.get(0).getLastException()).isInstanceOf(IllegalArgumentException.class)
				.hasMessage("Item of java.lang.Integer does not fit the parameter of worker scriptedWorker#process, "
						+ "a java.lang.String");
			orders.add("a");
			await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
			assertThat(worker.calls).containsExactly("a");
			assertThat(output).contains("Gave up on item 42 of queue 'orders' after 1 failed attempt(s)");
		});
	}

	@Test
	void errorsAndCheckedExceptionsDoNotKillTheWorkerThread() {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=0")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				worker.script = (item) -> switch ((String) item) {
					case "error" -> throw new AssertionError("an error");
					case "checked" -> sneaky(new IOException("checked"));
					default -> null;
				};
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("error");
				orders.add("checked");
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				assertThat(context.getBean(GivenUpEvents.class).events)
					.extracting((event) -> event.getLastException().getMessage())
					.containsExactly("an error", "checked");
				assertThat(context.getBean(WorkerContainerRegistry.class).containers())
					.containsExactly(new WorkerContainerStatus("orders", "scriptedWorker#process", 1, 1, true, false));
			});
	}

	@Test
	void failingGivenUpListenerDoesNotKillTheWorkerThread(CapturedOutput output) {
		this.contextRunner.withBean("scriptedWorker", ScriptedWorker.class)
			.withBean(FailingListener.class)
			.withPropertyValues("workqueue.queues.orders.max-retries=0")
			.run((context) -> {
				ScriptedWorker worker = context.getBean(ScriptedWorker.class);
				worker.script = (item) -> "bad".equals(item) ? sneaky(new IllegalStateException("bad item")) : null;
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("bad");
				orders.add("a");
				await().atMost(TIMEOUT).until(() -> worker.successes.contains("a"));
				assertThat(output).contains("A listener of WorkItemGivenUpEvent failed for queue 'orders'");
			});
	}

	@Test
	void wrongWorkerFailsTheApplicationWithACleanReport(CapturedOutput output) {
		SpringApplication application = new SpringApplication(UnknownQueueApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		List<FailureAnalysis> reports = RecordingFailureAnalysisReporter
			.reportedWhile(() -> assertThatException().isThrownBy(() -> application.run("--workqueue.queues.orders=",
					"--spring.main.banner-mode=off", RecordingFailureAnalysisReporter.SILENCE_LOGGING_REPORTER)));
		assertThat(reports).singleElement().satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("@QueueWorker method " + UnknownQueueWorker.class.getName()
					+ ".process(String) names queue 'invoices', which does not exist; known queues: [orders]");
			assertThat(analysis.getAction())
				.contains("Fix the method " + UnknownQueueWorker.class.getName() + ".process(String)");
		});
		assertThat(output).doesNotContain("APPLICATION FAILED TO START");
	}

	private static Function<Object, WorkResult> failTimes(int failures) {
		AtomicInteger calls = new AtomicInteger();
		return (item) -> {
			int call = calls.incrementAndGet();
			if (call <= failures) {
				throw new IllegalStateException("failure " + call + " of " + item);
			}
			return null;
		};
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> WorkResult sneaky(Throwable ex) throws E {
		throw (E) ex;
	}

	/**
	 * Runs a script per item and records what it saw.
	 */
	static class ScriptedWorker {

		final List<Object> calls = new CopyOnWriteArrayList<>();

		final List<Integer> numRequeuesSeen = new CopyOnWriteArrayList<>();

		final List<Object> successes = new CopyOnWriteArrayList<>();

		volatile Function<Object, WorkResult> script = (item) -> null;

		private final WorkQueueRegistry queues;

		ScriptedWorker(WorkQueueRegistry queues) {
			this.queues = queues;
		}

		@QueueWorker(queue = "orders")
		public WorkResult process(String item) {
			this.calls.add(item);
			this.numRequeuesSeen.add(this.queues.get("orders").numRequeues(item));
			WorkResult result = this.script.apply(item);
			if (result == null || result instanceof WorkResult.Done) {
				this.successes.add(item);
			}
			return result;
		}

	}

	static class PlaceholderWorker {

		@QueueWorker(queue = "orders", concurrency = "${test.workers}")
		void process(String item) {
		}

	}

	static class NoParameterWorker {

		@QueueWorker(queue = "orders")
		void process() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WorkerBeforeItsPriorityQueueConfiguration {

		@Bean
		PriorityWorker priorityWorker() {
			return new PriorityWorker();
		}

		@Bean
		RateLimitingQueue<String> orders() {
			return WorkQueues.<String>builder()
				.name("orders")
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		}

	}

	static class PriorityWorker {

		final List<String> seen = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		void process(String item, int priority) {
			this.seen.add(item + "@" + priority);
		}

	}

	static class TwoParameterWorker {

		@QueueWorker(queue = "orders")
		void process(String item, int other) {
		}

	}

	static class LongPriorityWorker {

		@QueueWorker(queue = "orders")
		void process(String item, long priority) {
		}

	}

	static class BoxedPriorityWorker {

		@QueueWorker(queue = "orders")
		void process(String item, Integer priority) {
		}

	}

	static class ThreeParameterWorker {

		@QueueWorker(queue = "orders")
		void process(String item, int priority, int other) {
		}

	}

	static class StringReturningWorker {

		@QueueWorker(queue = "orders")
		String process(String item) {
			return item;
		}

	}

	static class ZeroConcurrencyWorker {

		@QueueWorker(queue = "orders", concurrency = "0")
		void process(String item) {
		}

	}

	static class HugeConcurrencyWorker {

		@QueueWorker(queue = "orders", concurrency = "${test.workers:100000}")
		void process(String item) {
		}

	}

	static class TextConcurrencyWorker {

		@QueueWorker(queue = "orders", concurrency = "${test.workers:many}")
		void process(String item) {
		}

	}

	static class UnresolvableConcurrencyWorker {

		@QueueWorker(queue = "orders", concurrency = "${test.nowhere}")
		void process(String item) {
		}

	}

	static class UnknownQueueWorker {

		UnknownQueueWorker(WorkQueueRegistry queues) {
		}

		@QueueWorker(queue = "invoices")
		void process(String item) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(WorkQueueAutoConfiguration.class)
	static class UnknownQueueApplication {

		@Bean
		UnknownQueueWorker unknownQueueWorker(WorkQueueRegistry queues) {
			return new UnknownQueueWorker(queues);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrototypeWorkerConfiguration {

		@Bean
		@Scope("prototype")
		ScriptedWorker prototypeWorker(WorkQueueRegistry queues) {
			return new ScriptedWorker(queues);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LazyWorkerConfiguration {

		@Bean
		@Lazy
		ScriptedWorker lazyWorker(WorkQueueRegistry queues) {
			return new ScriptedWorker(queues);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClassProxyConfiguration {

		final List<Object> advised = new CopyOnWriteArrayList<>();

		ScriptedWorker target;

		@Bean
		Object proxiedWorker(WorkQueueRegistry queues) {
			this.target = new ScriptedWorker(queues);
			ProxyFactory factory = new ProxyFactory(this.target);
			factory.setProxyTargetClass(true);
			factory.addAdvice((MethodInterceptor) (invocation) -> {
				this.advised.add(invocation.getArguments()[0]);
				return invocation.proceed();
			});
			return factory.getProxy();
		}

	}

	interface ItemHandler {

		void process(String item);

	}

	static class InterfaceWorker implements ItemHandler {

		final List<String> items = new CopyOnWriteArrayList<>();

		@Override
		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.items.add(item);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InterfaceProxyConfiguration {

		final List<Object> advised = new CopyOnWriteArrayList<>();

		final InterfaceWorker target = new InterfaceWorker();

		@Bean
		ItemHandler proxiedWorker() {
			ProxyFactory factory = new ProxyFactory(this.target);
			factory.addInterface(ItemHandler.class);
			factory.addAdvice((MethodInterceptor) (invocation) -> {
				this.advised.add(invocation.getArguments()[0]);
				return invocation.proceed();
			});
			return (ItemHandler) factory.getProxy();
		}

	}

	static class FailingListener implements org.springframework.context.ApplicationListener<WorkItemGivenUpEvent> {

		@Override
		public void onApplicationEvent(WorkItemGivenUpEvent event) {
			throw new IllegalStateException("listener failure");
		}

	}

}

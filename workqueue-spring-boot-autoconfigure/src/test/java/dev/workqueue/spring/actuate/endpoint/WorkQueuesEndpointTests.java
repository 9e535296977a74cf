package dev.workqueue.spring.actuate.endpoint;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.FakeInspector;
import dev.workqueue.spring.InspectableQueues;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint.WorkQueueDescriptor;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint.WorkerDescriptor;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerContainerStatus;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.BDDMockito.willThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;

/**
 * Tests for {@link WorkQueuesEndpoint}.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkQueuesEndpointTests {

	private final FakeClock clock = new FakeClock();

	private final RateLimiter<Object> ordersLimiter = RateLimiters.defaultControllerRateLimiter(this.clock);

	/** Timed: any hook but {@code NOOP} makes the queue track its ages. */
	private final RateLimitingQueue<String> orders = WorkQueues.<String>builder()
		.name("orders")
		.clock(this.clock)
		.metrics(new WorkQueueMetrics() {
		})
		.buildRateLimitingQueue(this.ordersLimiter);

	private final RateLimitingQueue<String> invoices = WorkQueues.<String>builder()
		.name("invoices")
		.clock(this.clock)
		.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter(this.clock));

	private final RateLimitingQueue<Object> shipments = WorkQueues.builder()
		.name("shipments")
		.clock(this.clock)
		.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter(this.clock));

	private final WorkQueueRegistry registry = mock(WorkQueueRegistry.class);

	private final WorkerContainerRegistry workers = mock(WorkerContainerRegistry.class);

	private final WorkQueuesEndpoint endpoint = new WorkQueuesEndpoint(this.registry, this.workers,
			(name) -> name.equals("orders") ? Optional.of(this.ordersLimiter) : Optional.empty());

	WorkQueuesEndpointTests() {
		given(this.registry.names()).willReturn(Set.of("orders", "invoices"));
		given(this.registry.<String>get("orders")).willReturn(this.orders);
		given(this.registry.<String>get("invoices")).willReturn(this.invoices);
		given(this.workers.containers())
			.willReturn(List.of(new WorkerContainerStatus("orders", "orderWorker#ship", 4, 4, true, false),
					new WorkerContainerStatus("invoices", "invoiceWorker#send", 1, 0, false, false),
					new WorkerContainerStatus("orders", "auditWorker#record", 2, 1, false, false)));
	}

	@AfterEach
	void shutDownQueues() {
		this.orders.shutDown();
		this.invoices.shutDown();
		this.shipments.shutDown();
	}

	@Test
	void queuesAreDescribedSortedByName() {
		assertThat(this.endpoint.queues().queues()).extracting(WorkQueueDescriptor::name)
			.containsExactly("invoices", "orders");
	}

	@Test
	void queueIsDescribedFromItsStatsAndWorkerPools() throws InterruptedException {
		this.orders.add("a");
		this.clock.step(Duration.ofSeconds(1));
		this.orders.add("b");
		this.orders.add("c");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(this.orders.get()).isEqualTo("a");
		this.orders.addAfter("d", Duration.ofHours(1));
		this.clock.step(Duration.ofSeconds(3));

		WorkQueueDescriptor descriptor = this.endpoint.queue("orders");

		assertThat(descriptor).isNotNull();
		assertThat(descriptor.name()).isEqualTo("orders");
		assertThat(descriptor.depth()).isEqualTo(2);
		assertThat(descriptor.processing()).isEqualTo(1);
		assertThat(descriptor.waiting()).isEqualTo(1);
		assertThat(descriptor.retries()).isEqualTo(1);
		assertThat(descriptor.concurrency()).isEqualTo(6);
		assertThat(descriptor.workersAlive()).isEqualTo(5);
		assertThat(descriptor.nextItemAgeSeconds()).isEqualTo(4.0);
		assertThat(descriptor.longestRunningSeconds()).isEqualTo(3.0);
		assertThat(descriptor.rateLimiter()).isEqualTo(this.ordersLimiter.toString());
		assertThat(descriptor.shuttingDown()).isFalse();
		assertThat(descriptor.workers()).containsExactly(new WorkerDescriptor("orderWorker#ship", 4, 4, true, false),
				new WorkerDescriptor("auditWorker#record", 2, 1, false, false));
	}

	@Test
	void queueWithoutWorkersOrKnownLimiterHasZeroConcurrencyAndNoLimiter() {
		given(this.workers.containers()).willReturn(List.of());
		this.invoices.shutDown();

		WorkQueueDescriptor descriptor = this.endpoint.queue("invoices");

		assertThat(descriptor).isNotNull();
		assertThat(descriptor.concurrency()).isZero();
		assertThat(descriptor.workersAlive()).isZero();
		assertThat(descriptor.workers()).isEmpty();
		assertThat(descriptor.rateLimiter()).isNull();
		assertThat(descriptor.shuttingDown()).isTrue();
	}

	@Test
	void withoutWorkerRegistryEveryQueueHasZeroConcurrency() {
		WorkQueuesEndpoint endpoint = new WorkQueuesEndpoint(this.registry, null, (name) -> Optional.empty());
		assertThat(endpoint.queues().queues()).allSatisfy((queue) -> assertThat(queue.concurrency()).isZero());
	}

	@Test
	void priorityQueueCarriesItsReadyItemsAndOldestReadyAgePerPriorityHighestFirst() {
		// With metrics, as the starter builds it where Micrometer is: the queue tracks
		// ages.
		try (PriorityQueue<String> alerts = WorkQueues.<String>builder()
			.name("alerts")
			.clock(this.clock)
			.metrics(new WorkQueueMetrics() {
			})
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock))) {
			given(this.registry.names()).willReturn(Set.of("alerts"));
			given(this.registry.<String>get("alerts")).willReturn(alerts);
			alerts.add("a", 5);
			this.clock.step(Duration.ofSeconds(2));
			alerts.add("b", 5);
			alerts.add("c", -3);
			alerts.add("d");
			this.clock.step(Duration.ofMillis(1500));

			WorkQueueDescriptor descriptor = this.endpoint.queue("alerts");

			assertThat(descriptor).isNotNull();
			assertThat(descriptor.depth()).isEqualTo(4);
			assertThat(descriptor.priorities()).containsExactly(entry("5", 2), entry("0", 1), entry("-3", 1));
			assertThat(descriptor.oldestReadySeconds()).containsExactly(entry("5", 3.5), entry("0", 1.5),
					entry("-3", 1.5));
		}
	}

	@Test
	void queueWithoutPrioritiesHasNoPriorityFigures() {
		this.orders.add("a");
		WorkQueueDescriptor descriptor = this.endpoint.queue("orders");
		assertThat(descriptor).isNotNull();
		assertThat(descriptor.priorities()).isNull();
		assertThat(descriptor.oldestReadySeconds()).isNull();
	}

	@Test
	void queueWithAnInspectorShowsHowManyGivenUpItemsItKeeps() {
		FakeInspector inspector = new FakeInspector();
		inspector.keepGivenUp("a", 3, "java.lang.IllegalStateException: a");
		inspector.keepGivenUp("b", 3, "java.lang.IllegalStateException: b");
		inspected(inspector);

		assertThat(this.endpoint.queue("shipments").givenUp()).isEqualTo(2);
		assertThat(this.endpoint.queue("orders").givenUp()).as("a memory queue's own inspector").isZero();
	}

	@Test
	void queuePausedInItsStoreIsPausedThoughItsWorkersHereAreNot() {
		FakeInspector inspector = new FakeInspector();
		inspected(inspector);
		assertThat(this.endpoint.queue("shipments").paused()).isFalse();

		inspector.paused = true;
		assertThat(this.endpoint.queue("shipments").paused()).isTrue();

		inspector.paused = false;
		given(this.workers.isPaused("shipments")).willReturn(true);
		assertThat(this.endpoint.queue("shipments").paused()).isTrue();
	}

	/**
	 * The endpoint shows a queue paused in its store (by the console) as paused, so its
	 * resume lifts that pause too, as the console's resume lifts the workers' pause.
	 */
	@Test
	void controlResumingAQueuePausedInItsStoreLiftsThatPauseToo(CapturedOutput output) {
		FakeInspector inspector = new FakeInspector();
		inspector.paused = true;
		inspected(inspector);
		WorkQueueDescriptor descriptor = this.endpoint.control("shipments", false, null, SecurityContext.NONE);
		then(this.workers).should().setPaused("shipments", false);
		assertThat(inspector.paused).isFalse();
		assertThat(descriptor).isNotNull();
		assertThat(descriptor.paused()).isFalse();
		assertThat(output).contains("Queue 'shipments': workers resumed, and the queue's pause in its store lifted, "
				+ "by an unauthenticated caller");
		this.endpoint.control("shipments", true, null, SecurityContext.NONE);
		assertThat(inspector.paused).as("a pause stays this instance's").isFalse();
	}

	@Test
	void controlResumingWhileTheStoreIsOutOfReachResumesTheWorkersAndSaysSo(CapturedOutput output) {
		FakeInspector inspector = new FakeInspector();
		inspector.failure = new IllegalStateException("store down");
		inspected(inspector);
		WorkQueueDescriptor descriptor = this.endpoint.control("shipments", false, null, SecurityContext.NONE);
		then(this.workers).should().setPaused("shipments", false);
		assertThat(descriptor).isNotNull();
		assertThat(descriptor.error()).isEqualTo("cannot read the queue: store down");
		assertThat(output).contains("Queue 'shipments': workers resumed by an unauthenticated caller",
				"Queue 'shipments': a pause in its store, if any, not lifted: store down");
	}

	@Test
	void queueWhoseInspectorCannotBeReadIsDescribedAsUnreadable() {
		FakeInspector inspector = new FakeInspector();
		inspector.failure = new IllegalStateException("store down");
		inspected(inspector);

		WorkQueueDescriptor descriptor = this.endpoint.queue("shipments");

		assertThat(descriptor).isNotNull();
		assertThat(descriptor.givenUp()).isNull();
		assertThat(descriptor.depth()).isNull();
		assertThat(descriptor.paused()).isFalse();
		assertThat(descriptor.error()).isEqualTo("cannot read the queue: store down");
	}

	/** Registers queue {@code shipments}, which has {@code inspector}. */
	private void inspected(FakeInspector inspector) {
		given(this.registry.names()).willReturn(Set.of("orders", "invoices", "shipments"));
		given(this.registry.get("shipments")).willReturn(InspectableQueues.of(this.shipments, inspector));
	}

	@Test
	void unknownQueueIsNull() {
		assertThat(this.endpoint.queue("nope")).isNull();
	}

	@Test
	void itemValuesAreNeverShown() throws InterruptedException {
		this.orders.add("alice@example.com");
		this.orders.add("bob@example.com");
		this.orders.get();
		this.orders.addAfter("carol@example.com", Duration.ofHours(1));
		assertThat(this.endpoint.queues().toString()).doesNotContain("alice", "bob", "carol");
	}

	@Test
	void controlAppliesTheChangeAndLogsWhoAskedIt(CapturedOutput output) {
		SecurityContext alice = new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return () -> "alice";
			}

			@Override
			public boolean isUserInRole(String role) {
				return false;
			}

		};
		given(this.workers.isPaused("orders")).willReturn(true);
		WorkQueueDescriptor descriptor = this.endpoint.control("orders", true, 3, alice);
		then(this.workers).should().setConcurrency("orders", 3);
		then(this.workers).should().setPaused("orders", true);
		assertThat(descriptor).isNotNull();
		assertThat(descriptor.paused()).isTrue();
		assertThat(output).contains("Queue 'orders': concurrency set to 3 by 'alice'",
				"Queue 'orders': workers paused by 'alice'");
		this.endpoint.control("orders", false, null, SecurityContext.NONE);
		assertThat(output).contains("Queue 'orders': workers resumed by an unauthenticated caller");
	}

	@Test
	void controlRefusesBadRequestsAndUnknownQueues() {
		assertThat(this.endpoint.control("nope", true, null, SecurityContext.NONE)).isNull();
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.control("orders", null, null, SecurityContext.NONE))
			.withMessageContaining("\"paused\"");
		for (int concurrency : new int[] { 0, WorkQueuesEndpoint.MAX_CONCURRENCY + 1 }) {
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> this.endpoint.control("orders", null, concurrency, SecurityContext.NONE))
				.withMessage("concurrency must be between 1 and 1024, was " + concurrency);
		}
		willThrow(new IllegalArgumentException("No work queue named 'invoices'")).given(this.workers)
			.setPaused("invoices", true);
		assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> this.endpoint.control("invoices", true, null, SecurityContext.NONE))
			.withMessage("No work queue named 'invoices'");
		then(this.workers).should(never()).setConcurrency(anyString(), anyInt());
	}

}

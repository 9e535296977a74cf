package dev.workqueue.spring.actuate.health;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.workqueue.DelayingQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerContainerStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.withSettings;

/**
 * Tests for {@link WorkQueuesHealthIndicator}.
 */
class WorkQueuesHealthIndicatorTests {

	private final RateLimitingQueue<String> orders = queue("orders");

	private final RateLimitingQueue<String> invoices = queue("invoices");

	private final WorkQueueRegistry registry = mock(WorkQueueRegistry.class);

	private final WorkerContainerRegistry workers = mock(WorkerContainerRegistry.class);

	private final AtomicBoolean shuttingDown = new AtomicBoolean();

	private final WorkQueuesHealthIndicator indicator = new WorkQueuesHealthIndicator(this.registry, this.workers,
			this.shuttingDown::get);

	WorkQueuesHealthIndicatorTests() {
		given(this.registry.names()).willReturn(Set.of("orders", "invoices"));
		given(this.registry.<String>get("orders")).willReturn(this.orders);
		given(this.registry.<String>get("invoices")).willReturn(this.invoices);
		pools(running("orders"), running("invoices"));
	}

	@AfterEach
	void shutDownQueues() {
		this.orders.shutDown();
		this.invoices.shutDown();
	}

	@Test
	@SuppressWarnings("unchecked")
	void downWhileASharedQueueCannotReachItsBackend() {
		RateLimitingQueue<String> shared = mock(RateLimitingQueue.class,
				withSettings().extraInterfaces(SharedWorkQueue.class));
		// A mock answers every method, the default ones too, with an empty value.
		given(shared.capability(any())).willCallRealMethod();
		given(shared.size()).willThrow(new IllegalStateException("Queue 'invoices' on Redis: could not connect"));
		given(this.registry.<String>get("invoices")).willReturn(shared);
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("invoices",
				"unreachable: Queue 'invoices' on Redis: could not connect");
		assertThat(health.getDetails()).containsEntry("orders", "running");
	}

	@Test
	void upWhileEveryPoolRuns() {
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).isEqualTo(Map.of("orders", "running", "invoices", "running"));
	}

	@Test
	void upWithoutWorkers() {
		WorkQueuesHealthIndicator indicator = new WorkQueuesHealthIndicator(this.registry, null, () -> false);
		assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void aPausedPoolIsUpAndShownPaused() {
		pools(running("orders"), new WorkerContainerStatus("invoices", "invoiceWorker#send", 2, 2, true, true));
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).isEqualTo(Map.of("orders", "running", "invoices", "paused"));
	}

	@Test
	void downNamingTheQueueWhenAPoolDied() {
		pools(running("orders"), new WorkerContainerStatus("invoices", "invoiceWorker#send", 2, 1, false, false));
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("orders", "running")
			.containsEntry("invoices", "worker invoiceWorker#send not running, 1 of 2 threads alive");
	}

	@Test
	void downNamingTheQueueWhenAQueueIsShutDown() {
		this.orders.shutDown();
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("orders", "shut down").containsEntry("invoices", "running");
	}

	@Test
	void everyProblemOfAQueueIsListed() {
		this.orders.shutDown();
		pools(new WorkerContainerStatus("orders", "orderWorker#ship", 1, 0, false, false),
				new WorkerContainerStatus("orders", "auditWorker#record", 1, 0, false, false), running("invoices"));
		assertThat(this.indicator.health().getDetails()).containsEntry("orders",
				"shut down, worker orderWorker#ship not running, 0 of 1 threads alive, "
						+ "worker auditWorker#record not running, 0 of 1 threads alive");
	}

	@Test
	void upWhenPoolsStopAndQueuesShutDownBecauseTheApplicationIsShuttingDown() {
		this.shuttingDown.set(true);
		this.orders.shutDown();
		this.invoices.shutDown();
		pools(new WorkerContainerStatus("orders", "orderWorker#ship", 1, 0, false, false),
				new WorkerContainerStatus("invoices", "invoiceWorker#send", 1, 0, false, false));
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("orders",
				"shut down, worker orderWorker#ship not running, 0 of 1 threads alive");
	}

	@Test
	@SuppressWarnings("unchecked")
	void downWhileASharedQueueBehindARateLimitingQueueReportsItCannotReachItsBackend() {
		DelayingQueue<String> shared = mock(DelayingQueue.class, withSettings().extraInterfaces(SharedWorkQueue.class));
		given(shared.capability(any())).willCallRealMethod();
		given(this.registry.<String>get("invoices"))
			.willReturn(WorkQueues.rateLimiting(shared, RateLimiters.defaultControllerRateLimiter()));
		given(((SharedWorkQueue) shared).reachable()).willReturn(false);
		given(((SharedWorkQueue) shared).failure()).willCallRealMethod();
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("invoices", "unreachable");
		given(((SharedWorkQueue) shared).reachable()).willReturn(true);
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	@SuppressWarnings("unchecked")
	void downWithTheStoresOwnReasonWhileItsDatabaseIsReadOnly() {
		RateLimitingQueue<String> shared = mock(RateLimitingQueue.class,
				withSettings().extraInterfaces(SharedWorkQueue.class));
		given(shared.capability(any())).willCallRealMethod();
		given(this.registry.<String>get("invoices")).willReturn(shared);
		given(((SharedWorkQueue) shared).failure()).willReturn("read-only: the database is read-only");
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("invoices", "read-only: the database is read-only");
	}

	@Test
	@SuppressWarnings("unchecked")
	void upWithTheStoresWarningWhileAnotherSessionHoldsBackItsCleanup() {
		RateLimitingQueue<String> shared = mock(RateLimitingQueue.class,
				withSettings().extraInterfaces(SharedWorkQueue.class));
		given(shared.capability(any())).willCallRealMethod();
		given(this.registry.<String>get("invoices")).willReturn(shared);
		given(((SharedWorkQueue) shared).warning()).willReturn("cleanup held back: session pid 42");
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("invoices", "running, cleanup held back: session pid 42");
	}

	private void pools(WorkerContainerStatus... pools) {
		given(this.workers.containers()).willReturn(List.of(pools));
	}

	private static WorkerContainerStatus running(String queue) {
		return new WorkerContainerStatus(queue, queue + "Worker#handle", 1, 1, true, false);
	}

	private static RateLimitingQueue<String> queue(String name) {
		return WorkQueues.<String>builder()
			.name(name)
			.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
	}

}

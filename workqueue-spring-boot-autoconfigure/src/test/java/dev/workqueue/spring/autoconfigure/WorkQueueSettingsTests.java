package dev.workqueue.spring.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spring.worker.WorkerSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WorkQueueSettings}: each queue's settings resolved once, from its own
 * keys, else the defaults'.
 */
class WorkQueueSettingsTests {

	@Test
	void aQueueTakesEachKeyItLeavesOutFromTheDefaults() {
		WorkQueueProperties properties = new WorkQueueProperties();
		properties.getDefaults().setConcurrency(3);
		properties.getDefaults().setBackend("redis");
		properties.getDefaults().setLatencyTimers(false);
		properties.getDefaults().getPriority().setStarvationTimeout(Duration.ofMinutes(1));
		properties.getDefaults().getGivenUp().setKeep(5);
		WorkQueueProperties.Queue orders = new WorkQueueProperties.Queue();
		orders.setMaxRetries(2);
		orders.getGivenUp().setRetention(Duration.ofHours(1));
		orders.setBackend("MEMORY");
		orders.getPriority().setEnabled(true);
		properties.getQueues().put("orders", orders);
		assertThat(WorkQueueSettings.of(properties).get("orders"))
			.isEqualTo(new QueueSettings("orders", WorkQueueProperties.Backend.MEMORY,
					RateLimiterSettings.DEFAULT_CONTROLLER, new QueuePriority(true, Duration.ofMinutes(1)), false,
					new WorkerSettings(3, 2, Duration.ofSeconds(30), Duration.ofSeconds(1)),
					new GivenUpBound(5, Duration.ofHours(1))));
	}

	@Test
	void aQueueTakesItsRateLimiterAsAWholeAndKeepsItWhateverThePropertiesDoLater() {
		WorkQueueProperties properties = new WorkQueueProperties();
		WorkQueueProperties.RateLimit defaults = new WorkQueueProperties.RateLimit();
		defaults.setExponential(new WorkQueueProperties.Exponential());
		defaults.setMaxWait(Duration.ofMinutes(1));
		properties.getDefaults().setRateLimiter(defaults);
		WorkQueueProperties.RateLimit own = new WorkQueueProperties.RateLimit();
		own.setBucket(new WorkQueueProperties.Bucket());
		WorkQueueProperties.Queue orders = new WorkQueueProperties.Queue();
		orders.setRateLimiter(own);
		properties.getQueues().put("orders", orders);
		properties.getQueues().put("emails", new WorkQueueProperties.Queue());
		WorkQueueSettings settings = WorkQueueSettings.of(properties);
		own.getBucket().setQps(1);
		defaults.getExponential().setJitter(0.5);
		assertThat(settings.get("orders").rateLimiter()).as("no exponential section, no max-wait")
			.isEqualTo(new RateLimiterSettings(null, null, new RateLimiterSettings.Bucket(10, 100), null, null));
		assertThat(settings.get("emails").rateLimiter()).isEqualTo(new RateLimiterSettings(
				new RateLimiterSettings.Exponential(Duration.ofMillis(5), Duration.ofSeconds(1000), 0), null, null,
				null, Duration.ofMinutes(1)));
	}

	@Test
	void aQueueWithoutPropertiesTakesTheDefaultsUnderItsName() {
		WorkQueueProperties properties = new WorkQueueProperties();
		properties.getDefaults().setPollTimeout(Duration.ofMillis(250));
		properties.getQueues().put("orders", new WorkQueueProperties.Queue());
		WorkQueueSettings settings = WorkQueueSettings.of(properties);
		assertThat(settings.queues()).extracting(QueueSettings::name).containsExactly("orders");
		assertThat(settings.get("invoices")).isEqualTo(settings.get("orders").named("invoices"));
		assertThat(settings.get("invoices").workers())
			.isEqualTo(new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofMillis(250)));
		assertThat(settings.get("invoices").backend()).isEqualTo(WorkQueueProperties.Backend.MEMORY);
		assertThat(settings.get("invoices").latencyTimers()).isTrue();
		assertThat(settings.get("invoices").priority()).isEqualTo(new QueuePriority(false, null));
		assertThat(settings.get("invoices").givenUp()).isEqualTo(GivenUpBound.DEFAULT);
	}

	@Test
	void aQueueTakesEachGivenUpKeyItLeavesOutFromTheDefaults() {
		WorkQueueProperties properties = new WorkQueueProperties();
		properties.getDefaults().getGivenUp().setRetention(Duration.ofDays(1));
		WorkQueueProperties.Queue orders = new WorkQueueProperties.Queue();
		orders.getGivenUp().setKeep(0);
		properties.getQueues().put("orders", orders);
		WorkQueueProperties.Queue emails = new WorkQueueProperties.Queue();
		emails.getGivenUp().setRetention(Duration.ofSeconds(1));
		properties.getQueues().put("emails", emails);
		WorkQueueSettings settings = WorkQueueSettings.of(properties);
		assertThat(settings.get("orders").givenUp()).isEqualTo(new GivenUpBound(0, Duration.ofDays(1)));
		assertThat(settings.get("emails").givenUp()).isEqualTo(new GivenUpBound(1000, Duration.ofSeconds(1)));
	}

}

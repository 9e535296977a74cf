package dev.workqueue.spring.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WorkQueueMeters} scraped by Prometheus: the series names and histogram
 * buckets of Kubernetes client-go's workqueue metrics.
 */
class WorkQueueMetersPrometheusTests {

	/** component-base's {@code ExponentialBuckets(10e-9, 10, 10)}, then {@code +Inf}. */
	private static final List<Double> CLIENT_GO_BUCKETS = List.of(1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0,
			10.0, Double.POSITIVE_INFINITY);

	private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)(?:\\{([^}]*)\\})? (\\S+)$");

	private static final Pattern LE = Pattern.compile("le=\"([^\"]+)\"");

	private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

	@Test
	void seriesAreNamedAsClientGoWithTheQueueNameAsTheOnlyLabel() throws InterruptedException {
		String scrape = scrapeAfterOneItem();
		Set<String> names = new TreeSet<>();
		for (String line : scrape.lines().filter((line) -> !line.startsWith("#") && !line.isBlank()).toList()) {
			Matcher sample = SAMPLE.matcher(line);
			assertThat(sample.matches()).as(line).isTrue();
			names.add(sample.group(1));
			assertThat(sample.group(2)).as(line).startsWith("name=\"orders\"");
			assertThat(sample.group(2).replaceFirst(",le=\"[^\"]+\"$", "")).as(line).isEqualTo("name=\"orders\"");
		}
		assertThat(names).containsExactlyInAnyOrder("workqueue_depth", "workqueue_adds_total",
				"workqueue_stalled_total", "workqueue_queue_duration_seconds_bucket",
				"workqueue_queue_duration_seconds_count", "workqueue_queue_duration_seconds_sum",
				"workqueue_queue_duration_seconds_max", "workqueue_work_duration_seconds_bucket",
				"workqueue_work_duration_seconds_count", "workqueue_work_duration_seconds_sum",
				"workqueue_work_duration_seconds_max", "workqueue_unfinished_work_seconds",
				"workqueue_longest_running_processor_seconds", "workqueue_retries_total", "workqueue_delayed_items");
		assertThat(scrape).contains("# TYPE workqueue_queue_duration_seconds histogram",
				"# TYPE workqueue_work_duration_seconds histogram", "# TYPE workqueue_adds_total counter",
				"# TYPE workqueue_retries_total counter", "# TYPE workqueue_depth gauge",
				"# TYPE workqueue_unfinished_work_seconds gauge",
				"# TYPE workqueue_longest_running_processor_seconds gauge", "# TYPE workqueue_delayed_items gauge");
	}

	@Test
	void timersPublishClientGoBuckets() throws InterruptedException {
		String scrape = scrapeAfterOneItem();
		assertThat(bucketBounds(scrape, "workqueue_queue_duration_seconds_bucket")).isEqualTo(CLIENT_GO_BUCKETS);
		assertThat(bucketBounds(scrape, "workqueue_work_duration_seconds_bucket")).isEqualTo(CLIENT_GO_BUCKETS);
	}

	@Test
	void valuesAreInSecondsAndBucketsAreCumulative() throws InterruptedException {
		String scrape = scrapeAfterOneItem();
		assertThat(scrape).contains("workqueue_adds_total{name=\"orders\"} 1.0",
				"workqueue_retries_total{name=\"orders\"} 1.0", "workqueue_delayed_items{name=\"orders\"} 1.0",
				"workqueue_depth{name=\"orders\"} 0.0", "workqueue_queue_duration_seconds_count{name=\"orders\"} 1",
				"workqueue_queue_duration_seconds_sum{name=\"orders\"} 0.002",
				"workqueue_queue_duration_seconds_bucket{name=\"orders\",le=\"0.001\"} 0",
				"workqueue_queue_duration_seconds_bucket{name=\"orders\",le=\"0.01\"} 1",
				"workqueue_queue_duration_seconds_bucket{name=\"orders\",le=\"+Inf\"} 1",
				"workqueue_work_duration_seconds_sum{name=\"orders\"} 3.0",
				"workqueue_work_duration_seconds_bucket{name=\"orders\",le=\"1.0\"} 0",
				"workqueue_work_duration_seconds_bucket{name=\"orders\",le=\"10.0\"} 1",
				"workqueue_unfinished_work_seconds{name=\"orders\"} 0.0",
				"workqueue_longest_running_processor_seconds{name=\"orders\"} 0.0");
	}

	/** Add, wait 2 ms, get, work 3 s, done; one item left waiting for a delay. */
	private String scrapeAfterOneItem() throws InterruptedException {
		WorkQueueMeters meters = new WorkQueueMeters(this.registry);
		FakeClock clock = new FakeClock();
		try (DelayingQueue<String> queue = WorkQueues.<String>builder()
			.name("orders")
			.clock(clock)
			.metrics(meters.metrics("orders"))
			.buildDelayingQueue()) {
			meters.bindGauges("orders", queue);
			queue.add("a");
			clock.step(Duration.ofMillis(2));
			assertThat(queue.get()).isEqualTo("a");
			clock.step(Duration.ofSeconds(3));
			queue.done("a");
			queue.addAfter("b", Duration.ofHours(1));
			return this.registry.scrape();
		}
	}

	private static List<Double> bucketBounds(String scrape, String series) {
		return scrape.lines().filter((line) -> line.startsWith(series + "{")).map((line) -> {
			Matcher le = LE.matcher(line);
			assertThat(le.find()).as(line).isTrue();
			return le.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le.group(1));
		}).toList();
	}

}

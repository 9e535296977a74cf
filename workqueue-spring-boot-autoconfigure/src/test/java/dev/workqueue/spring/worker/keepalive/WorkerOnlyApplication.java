package dev.workqueue.spring.worker.keepalive;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.awaitility.Awaitility.await;

/**
 * A worker-only application, as a reconciler is: no web server, one {@code @QueueWorker}.
 * Run in a child JVM by {@link WorkerKeepAliveTests}. It queues {@code quick}, and
 * {@code held} when started with {@code --hold=true}: a worker that holds its item until
 * its queue shuts down, so that the test sees the drain finish it. Each step prints a
 * line the test waits for.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration(WorkQueueAutoConfiguration.class)
public class WorkerOnlyApplication {

	static final String PROCESSED = "processed quick";

	static final String HOLDING = "holding held";

	static final String DRAINED = "finished held while draining";

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(WorkerOnlyApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.run(args);
	}

	@Bean
	Jobs jobsWorker(@Qualifier("jobs") RateLimitingQueue<String> queue) {
		return new Jobs(queue);
	}

	@Bean
	ApplicationRunner enqueue(@Qualifier("jobs") RateLimitingQueue<String> queue) {
		return (args) -> {
			queue.add("quick");
			if (args.containsOption("hold")) {
				queue.add("held");
			}
		};
	}

	static class Jobs {

		private final RateLimitingQueue<String> queue;

		Jobs(RateLimitingQueue<String> queue) {
			this.queue = queue;
		}

		@QueueWorker(queue = "jobs")
		void process(String item) {
			if (item.equals("held")) {
				System.out.println(HOLDING);
				// Held until SIGTERM closes the context, which shuts the queue down and
				// waits for this item (the drain).
				await().forever().pollInterval(Duration.ofMillis(50)).until(this.queue::isShuttingDown);
				System.out.println(DRAINED);
			}
			else {
				System.out.println("processed " + item);
			}
		}

	}

}

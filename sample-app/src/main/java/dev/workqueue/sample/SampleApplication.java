package dev.workqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Webhook delivery on workqueue: {@code POST /webhooks} queues a delivery to a target, a
 * {@code @QueueWorker} delivers it to a simulated downstream that fails now and then, and
 * a second queue polls for the delivery receipt with delayed requeues.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}

package dev.workqueue.postgres;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

/**
 * A JVM for {@link PostgresKillTests}: {@code consumers} threads each take one item of a
 * shared queue (built with the defaults on a pool of its own) and hold it until the JVM
 * is killed. It prints {@code waiting} once every consumer waits for a notice, so that
 * one claim leases for all of them.
 * <p>
 * Arguments: JDBC URL, queue table, queue name, lease in milliseconds, consumers.
 */
public final class PostgresHoldingProcess {

	private PostgresHoldingProcess() {
	}

	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setMaximumPoolSize(4);
		WorkQueue<String> queue = PostgresWorkQueues.builder(new HikariDataSource(config), ItemCodec.strings())
			.table(args[1])
			.name(args[2])
			.lease(Duration.ofMillis(Long.parseLong(args[3])))
			.pollInterval(Duration.ofHours(1))
			.buildQueue();
		int consumers = Integer.parseInt(args[4]);
		CountDownLatch killed = new CountDownLatch(1);
		for (int i = 0; i < consumers; i++) {
			Thread consumer = new Thread(() -> {
				try {
					queue.get();
					killed.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			consumer.start();
		}
		PostgresWorkQueue<?> handle = EngineFixture.handle(queue);
		while (handle.waitingConsumers() < consumers) {
			Thread.onSpinWait();
		}
		System.out.println("waiting");
		System.out.flush();
		killed.await();
	}

}

package dev.workqueue.console.browser;

import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.workqueue.ItemCodec;
import dev.workqueue.spring.QueueWorker;

/**
 * The application the browser tests open: one queue, {@code jobs}, whose backend the test
 * chooses, served by {@link Worker}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ConsoleTestApplication {

	static final String QUEUE = "jobs";

	/**
	 * The codec of {@code jobs}: its items are their own text, which an operator may
	 * type.
	 */
	@Bean
	ItemCodec<String> jobsItemCodec() {
		return ItemCodec.strings();
	}

	@Bean
	Worker worker() {
		return new Worker();
	}

	/**
	 * Works {@code jobs} by the item's text: {@code hold:…} stays processing until the
	 * test releases it, {@code fail-once:…} fails its first attempt (the queue gives up
	 * at once with {@code max-retries: 0}) and succeeds after, anything else succeeds.
	 */
	static final class Worker {

		/**
		 * The {@code fail-once:…} items that have failed, in any instance of this JVM: an
		 * item re-added on a shared queue may run on the other instance.
		 */
		private static final Set<String> failed = ConcurrentHashMap.newKeySet();

		private final Queue<String> calls = new ConcurrentLinkedQueue<>();

		private final Map<String, CountDownLatch> holds = new ConcurrentHashMap<>();

		private volatile boolean released;

		@QueueWorker(queue = QUEUE)
		void work(String item) throws InterruptedException {
			this.calls.add(item);
			if (item.startsWith("hold:") && !this.released) {
				this.holds.computeIfAbsent(item, (key) -> new CountDownLatch(1)).await();
			}
			if (item.startsWith("fail-once:") && failed.add(item)) {
				throw new IllegalStateException("the first attempt of " + item + " fails");
			}
		}

		/** How many times the item was handed to this instance's worker. */
		long calls(String item) {
			return this.calls.stream().filter(item::equals).count();
		}

		/** Lets every held item finish, and holds none from now on. */
		void releaseAll() {
			this.released = true;
			this.holds.values().forEach(CountDownLatch::countDown);
		}

		/** Holds {@code hold:…} items again. */
		void holdAgain() {
			this.holds.clear();
			this.released = false;
		}

	}

}

package dev.workqueue.spring.worker;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workqueue.spring.QueueWorker;

/**
 * A worker of queue {@code orders} that holds each item until the test releases a permit
 * of its gate, tracking what is in flight and on which threads.
 */
class GatedWorker {

	final Semaphore gate = new Semaphore(0);

	final List<String> calls = new CopyOnWriteArrayList<>();

	final AtomicInteger inFlight = new AtomicInteger();

	final AtomicInteger maxInFlight = new AtomicInteger();

	final Set<String> threadNames = ConcurrentHashMap.newKeySet();

	@QueueWorker(queue = "orders")
	void process(String item) throws InterruptedException {
		this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
		this.threadNames.add(Thread.currentThread().getName());
		try {
			this.gate.acquire();
			this.calls.add(item);
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	/** Lets every item through from now on. */
	void openGate() {
		this.gate.release(Integer.MAX_VALUE / 2);
	}

}

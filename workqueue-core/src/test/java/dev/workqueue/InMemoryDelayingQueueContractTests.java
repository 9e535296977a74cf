package dev.workqueue;

/**
 * The shared {@link DelayingQueueContract} on the in-memory delaying queue.
 */
class InMemoryDelayingQueueContractTests extends DelayingQueueContract {

	@Override
	protected DelayingQueue<String> newQueue() {
		return WorkQueues.<String>builder().name("contract").clock(this.clock).buildDelayingQueue();
	}

	@Override
	protected boolean drainsAfterShutDown() {
		return true;
	}

}

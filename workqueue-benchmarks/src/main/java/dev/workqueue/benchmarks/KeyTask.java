package dev.workqueue.benchmarks;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * A Netty timer task that knows its key, as a real one must to act on the right item when
 * it fires; it does nothing here (these timers never fire).
 */
final class KeyTask implements TimerTask {

	final String key;

	KeyTask(String key) {
		this.key = key;
	}

	@Override
	public void run(Timeout timeout) {
	}

}

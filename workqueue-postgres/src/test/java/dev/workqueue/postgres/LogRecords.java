package dev.workqueue.postgres;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what a class logs (System.Logger goes to java.util.logging here), for as long
 * as it is open.
 */
final class LogRecords extends Handler implements AutoCloseable {

	private final Logger logger;

	private final List<LogRecord> records = new CopyOnWriteArrayList<>();

	LogRecords(Class<?> type) {
		this.logger = Logger.getLogger(type.getName());
		this.logger.addHandler(this);
	}

	/** How many records at {@code level} came. */
	long count(Level level) {
		return this.records.stream().filter((record) -> record.getLevel().equals(level)).count();
	}

	/** The messages at {@code level}. */
	List<String> messages(Level level) {
		return this.records.stream()
			.filter((record) -> record.getLevel().equals(level))
			.map(LogRecord::getMessage)
			.toList();
	}

	@Override
	public void publish(LogRecord record) {
		this.records.add(record);
	}

	@Override
	public void flush() {
	}

	@Override
	public void close() {
		this.logger.removeHandler(this);
	}

}

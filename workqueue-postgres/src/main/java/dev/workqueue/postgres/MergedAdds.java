package dev.workqueue.postgres;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.postgres.AddGroup.Request;

/**
 * The adds of a batch as the statements that write them, one after the other in one
 * transaction: an upsert may not change one row twice, so each statement holds an item
 * once, and the outcome is that of the adds made one after the other (client-go's).
 * <p>
 * Adds of an item of one kind, all now or all after a delay, merge into one
 * ({@link Request#merge}: the highest priority, the earliest due time), which is their
 * outcome whatever the item's row. An add now and an add after a delay do not: made one
 * after the other, on a FIFO queue they leave the item ready and keep the wait (it runs
 * once more when the wait ends, if it was processed by then), and on a priority queue the
 * delayed add of a ready item changes nothing; merged, the wait would be lost, or the
 * delayed add's priority would raise the ready item. So an add of the other kind than the
 * item's adds in the statement so far starts the next statement, and every add after it
 * goes there too: the items keep the order of their adds (the line-up of an
 * {@code addAll} among them).
 * <p>
 * Not thread-safe: one batch's, on the thread that writes it.
 */
final class MergedAdds {

	private final List<Request> requests;

	private final List<Map<String, Request>> statements = new ArrayList<>();

	/**
	 * For each add, the statement (from 1) whose outcome it takes, or 0 when it merged
	 * into an earlier add of its item there (it changed nothing more).
	 */
	private final int[] outcomeOf;

	/**
	 * Merges the adds.
	 * @param requests the adds, in the order made
	 */
	MergedAdds(List<Request> requests) {
		this.requests = requests;
		this.outcomeOf = new int[requests.size()];
		Map<String, Request> statement = new LinkedHashMap<>();
		this.statements.add(statement);
		for (int i = 0; i < requests.size(); i++) {
			Request request = requests.get(i);
			String item = request.encoded();
			Request earlier = statement.get(item);
			if (earlier != null && (earlier.delayMicros() == 0) != (request.delayMicros() == 0)) {
				statement = new LinkedHashMap<>();
				this.statements.add(statement);
				earlier = null;
			}
			if (earlier == null) {
				statement.put(item, request);
				this.outcomeOf[i] = this.statements.size();
			}
			else {
				statement.put(item, earlier.merge(request));
			}
		}
	}

	/**
	 * The statements to run, in order: one, unless an item was added both now and after a
	 * delay.
	 * @return the adds of each statement, each item once in the order of its first add
	 * there
	 */
	List<Collection<Request>> statements() {
		List<Collection<Request>> adds = new ArrayList<>(this.statements.size());
		for (Map<String, Request> statement : this.statements) {
			adds.add(statement.values());
		}
		return adds;
	}

	/**
	 * What each add did.
	 * @param results what each statement did to each item it changed, in the order of
	 * {@link #statements()}
	 * @return each add's outcome, in the order made
	 */
	List<Added> outcomes(List<Map<String, Added>> results) {
		List<Added> outcomes = new ArrayList<>(this.requests.size());
		for (int i = 0; i < this.requests.size(); i++) {
			Added result = (this.outcomeOf[i] == 0) ? null
					: results.get(this.outcomeOf[i] - 1).get(this.requests.get(i).encoded());
			outcomes.add((result != null) ? result : Added.UNCHANGED);
		}
		return outcomes;
	}

}

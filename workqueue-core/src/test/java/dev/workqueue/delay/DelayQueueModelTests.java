package dev.workqueue.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import dev.workqueue.delay.DelayQueue.Entry;
import dev.workqueue.time.FakeClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs random sequences of pushes, cancels, reschedules, polls and clock steps against a
 * {@link DelayQueue} and against a model: a plain list searched for the smallest due
 * time, then push order. Every answer must agree.
 */
class DelayQueueModelTests {

	@Property(tries = 500)
	void queueAgreesWithASortedListModel(@ForAll("operations") List<Operation> operations) throws Exception {
		FakeClock clock = new FakeClock();
		DelayQueue<Integer> queue = new DelayQueue<>(clock);
		List<Entry<Integer>> entries = new ArrayList<>();
		List<ModelValue> model = new ArrayList<>();
		long nowMillis = 0;
		long sequence = 0;
		for (Operation operation : operations) {
			switch (operation.kind()) {
				case PUSH -> {
					int id = entries.size();
					entries.add(queue.push(id, Duration.ofMillis(operation.millis())));
					model.add(new ModelValue(id, nowMillis + Math.max(0, operation.millis()), sequence++));
				}
				case CANCEL -> {
					if (!entries.isEmpty()) {
						int id = operation.index() % entries.size();
						assertThat(entries.get(id).cancel()).as("%s", operation)
							.isEqualTo(model.removeIf((v) -> v.id == id));
					}
				}
				case RESCHEDULE -> {
					if (!entries.isEmpty()) {
						int id = operation.index() % entries.size();
						boolean pending = model.removeIf((v) -> v.id == id);
						if (pending) {
							model.add(new ModelValue(id, nowMillis + Math.max(0, operation.millis()), sequence++));
						}
						assertThat(entries.get(id).reschedule(Duration.ofMillis(operation.millis())))
							.as("%s", operation)
							.isEqualTo(pending);
					}
				}
				case POLL -> {
					long now = nowMillis;
					Optional<ModelValue> first = model.stream()
						.filter((v) -> v.dueMillis <= now)
						.min(Comparator.comparingLong(ModelValue::dueMillis).thenComparingLong(ModelValue::sequence));
					first.ifPresent(model::remove);
					assertThat(queue.poll(Duration.ZERO)).as("%s", operation)
						.isEqualTo(first.map(ModelValue::id).orElse(null));
				}
				case STEP -> {
					clock.step(Duration.ofMillis(operation.millis()));
					nowMillis += operation.millis();
				}
			}
			assertThat(queue.size()).as("size after %s", operation).isEqualTo(model.size());
		}
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<Operation> operation = Combinators
			.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(-2, 5),
					Arbitraries.integers().between(0, 50))
			.as((kind, millis, index) -> new Operation(kind, (kind == Kind.STEP) ? Math.abs(millis) : millis, index));
		return operation.list().ofMaxSize(60);
	}

	enum Kind {

		PUSH, CANCEL, RESCHEDULE, POLL, STEP

	}

	record Operation(Kind kind, int millis, int index) {

	}

	record ModelValue(int id, long dueMillis, long sequence) {

	}

}

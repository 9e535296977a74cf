package dev.workqueue.postgres;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.workqueue.postgres.AddGroup.Request;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch's adds as statements: each holds an item once; adds of an item merge, but an
 * add of the other kind (now, after a delay) than the item's adds in the statement so far
 * starts the next statement, with every add after it; each add takes the outcome of the
 * statement where it was its item's first, or none.
 */
class MergedAddsTests {

	private static final Added CHANGED = new Added(true, true, true, true, true, 0, 0);

	private static Request now(String item) {
		return new Request(item, 0, 0, null);
	}

	private static Request later(String item, long delayMicros) {
		return new Request(item, 0, delayMicros, null);
	}

	@Test
	void addsOfOneKindMergeIntoOneStatementAndTheFirstTakesTheOutcome() {
		MergedAdds merged = new MergedAdds(
				List.of(now("a"), later("b", 5), now("a"), later("b", 3), new Request("a", 7, 0, null)));
		assertThat(merged.statements()).hasSize(1);
		assertThat(merged.statements().get(0)).containsExactly(new Request("a", 7, 0, null), later("b", 3));
		assertThat(merged.outcomes(List.of(Map.of("a", CHANGED, "b", CHANGED)))).containsExactly(CHANGED, CHANGED,
				Added.UNCHANGED, Added.UNCHANGED, Added.UNCHANGED);
	}

	@Test
	void anAddOfTheOtherKindStartsTheNextStatementAndTheAddsAfterItGoThereToo() {
		MergedAdds merged = new MergedAdds(
				List.of(later("x", 5), now("y"), now("x"), now("w"), now("x"), later("y", 2)));
		// y's delayed add changes no kind within the second statement: y is not in it.
		assertThat(merged.statements()).hasSize(2);
		assertThat(merged.statements().get(0)).containsExactly(later("x", 5), now("y"));
		assertThat(merged.statements().get(1)).containsExactly(now("x"), now("w"), later("y", 2));
		Added waits = new Added(true, true, true, true, false, 5, 0);
		assertThat(merged
			.outcomes(List.of(Map.of("x", waits, "y", CHANGED), Map.of("x", CHANGED, "w", CHANGED, "y", waits))))
			.containsExactly(waits, CHANGED, CHANGED, CHANGED, Added.UNCHANGED, waits);
	}

	@Test
	void anItemTheStatementLeftAloneTakesNoOutcome() {
		MergedAdds merged = new MergedAdds(List.of(now("a"), now("b")));
		assertThat(merged.outcomes(List.of(Map.of("b", CHANGED)))).containsExactly(Added.UNCHANGED, CHANGED);
	}

}

package dev.workqueue.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LeaseTokens}: the scripts end a lease's token at its first
 * {@code ".@"}, so no token may hold an {@code '@'}.
 */
class LeaseTokensTests {

	@Test
	void tokensCountUpUnderTheHandlesIdAndTheNthItemsAddItsPlace() {
		LeaseTokens tokens = new LeaseTokens("S1x");
		String first = tokens.next();
		assertThat(first).isEqualTo("S1x:1");
		assertThat(tokens.next()).isEqualTo("S1x:2");
		assertThat(LeaseTokens.nth(first, 1)).isEqualTo("S1x:1");
		assertThat(LeaseTokens.nth(first, 3)).isEqualTo("S1x:1.3");
	}

	@Test
	void handleIdsHoldNoAt() {
		for (ClockKind kind : ClockKind.values()) {
			String id = kind.newHandleId();
			assertThat(new LeaseTokens(id).next()).doesNotContain("@");
		}
	}

	@Test
	void anIdWithAnAtIsRefusedByName() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTokens("S1@x"))
			.withMessageContaining("id")
			.withMessageContaining("'S1@x'");
	}

}

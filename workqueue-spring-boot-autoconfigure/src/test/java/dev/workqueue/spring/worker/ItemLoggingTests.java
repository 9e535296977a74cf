package dev.workqueue.spring.worker;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ItemLogging}: how an item appears in a log line.
 */
class ItemLoggingTests {

	@Test
	void textEscapesEveryControlCharacterAndTheUnicodeLineSeparators() {
		assertThat(ItemLogging.TEXT.describe("a\nb\rc\td\u0000e\u001bf\u2028g\u2029h"))
			.isEqualTo("a\\nb\\rc\\td\\u0000e\\u001bf\\u2028g\\u2029h");
	}

	@Test
	void textCutsAt200CharactersWithoutSplittingASurrogatePair() {
		String item = "x".repeat(199) + "\uD83D\uDE00" + "y";
		assertThat(ItemLogging.TEXT.describe(item)).isEqualTo("x".repeat(199) + "... (202 characters)");
		assertThat(ItemLogging.TEXT.describe("z".repeat(200))).isEqualTo("z".repeat(200));
	}

	@Test
	void hashIsShortStableAndTellsItemsApart() {
		String hash = ItemLogging.HASH.describe("alice@example.com");
		assertThat(hash).matches("#[0-9a-f]{12}").isEqualTo(ItemLogging.HASH.describe("alice@example.com"));
		assertThat(ItemLogging.HASH.describe("bob@example.com")).isNotEqualTo(hash);
		assertThat(ItemLogging.of(false)).isSameAs(ItemLogging.HASH);
		assertThat(ItemLogging.of(true)).isSameAs(ItemLogging.TEXT);
	}

	@Test
	void anItemWhoseToStringThrowsIsDescribedByItsClass() {
		Object item = new Object() {

			@Override
			public String toString() {
				throw new IllegalStateException("no");
			}

		};
		assertThat(ItemLogging.TEXT.describe(item)).startsWith("(an item of ")
			.endsWith("whose toString threw java.lang.IllegalStateException)");
	}

}

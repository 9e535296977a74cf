package dev.workqueue.console;

import java.security.SecureRandom;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Item ids: opaque, the same for the same text, turned back into the text only by the
 * instance that issued them.
 */
class ItemIdsTests {

	private final ItemIds ids = new ItemIds(new SecureRandom());

	@Test
	void idTurnsBackIntoItsText() {
		for (String text : new String[] { "order-1", "", "ünïcødé 🚀", "x".repeat(10_000) }) {
			assertThat(this.ids.text(this.ids.id(text))).contains(text);
		}
	}

	@Test
	void sameTextKeepsItsIdAndOtherTextsGetOthers() {
		assertThat(this.ids.id("order-1")).isEqualTo(this.ids.id("order-1"))
			.isNotEqualTo(this.ids.id("order-2"))
			.matches("[A-Za-z0-9_-]+");
	}

	@Test
	void idTellsNothingOfTheText() {
		String id = this.ids.id("order-1");
		assertThat(id).doesNotContain("order");
		assertThat(new String(Base64.getUrlDecoder().decode(id), java.nio.charset.StandardCharsets.ISO_8859_1))
			.doesNotContain("order");
	}

	@Test
	void textThatIsNotWellFormedKeepsIdsOfItsOwn() {
		// A lone surrogate, as a cut through an emoji leaves: UTF-8 cannot hold it, and
		// the JDK's encoder writes '?' instead.
		for (String text : new String[] { "x\uD83D", "x\uDE00", "\uDE00\uD83Dy" }) {
			assertThat(this.ids.id(text)).as(text).isNotEqualTo(this.ids.id(text.replaceAll("[\\uD800-\\uDFFF]", "?")));
			assertThat(this.ids.text(this.ids.id(text))).as(text).contains(text);
		}
	}

	@Test
	void idNotIssuedHereNamesNothing() {
		String id = this.ids.id("order-1");
		byte[] bytes = Base64.getUrlDecoder().decode(id);
		for (int i = 0; i < bytes.length; i++) {
			byte[] forged = bytes.clone();
			forged[i] ^= 1;
			assertThat(this.ids.text(Base64.getUrlEncoder().withoutPadding().encodeToString(forged))).as("byte %d", i)
				.isEmpty();
		}
		assertThat(new ItemIds(new SecureRandom()).text(id)).isEmpty();
		assertThat(this.ids.text(id.substring(0, id.length() - 2))).isEmpty();
		assertThat(this.ids.text("not base64!")).isEmpty();
		assertThat(this.ids.text("")).isEmpty();
	}

	@Test
	void onlyTheIssuedSpellingOfAnIdNamesItsItem() {
		// 35 bytes take 47 characters, the last with two bits to spare: the other three
		// spellings of those bits decode to the same bytes, and are no id this instance
		// issued.
		String id = this.ids.id("order-1");
		byte[] bytes = Base64.getUrlDecoder().decode(id);
		String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
		int last = alphabet.indexOf(id.charAt(id.length() - 1));
		assertThat(id).hasSize(47);
		for (int spare = 1; spare < 4; spare++) {
			String respelled = id.substring(0, id.length() - 1) + alphabet.charAt(last ^ spare);
			assertThat(Base64.getUrlDecoder().decode(respelled)).isEqualTo(bytes);
			assertThat(this.ids.text(respelled)).as(respelled).isEmpty();
		}
		assertThat(this.ids.text(id)).contains("order-1");
	}

}

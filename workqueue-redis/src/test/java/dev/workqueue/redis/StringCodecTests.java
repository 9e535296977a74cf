package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link ItemCodec#strings()} through a real Redis: every string of valid UTF-16 comes
 * back exactly as it went in, and a string with a lone surrogate, which UTF-8 cannot hold
 * and which would come back as another string, is refused naming the index before
 * anything reaches Redis.
 */
@RequiresRedis
class StringCodecTests {

	private final RedisFixture redis = new RedisFixture();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private WorkQueue<String> queue() {
		return this.redis.track(this.redis.builder("strings").buildQueue());
	}

	/** Adds each item (all distinct), then takes them all back in order. */
	private static List<String> roundTrip(WorkQueue<String> queue, List<String> items) throws Exception {
		for (String item : items) {
			queue.add(item);
		}
		List<String> out = new ArrayList<>();
		for (int i = 0; i < items.size(); i++) {
			String item = queue.poll(Duration.ZERO);
			out.add(item);
			if (item != null) {
				queue.done(item);
			}
		}
		assertThat(queue.poll(Duration.ZERO)).as("nothing more").isNull();
		return out;
	}

	@Test
	void awkwardButValidStringsComeBackExactly() throws Exception {
		List<String> items = List.of("nul\u0000in\u0000the\u0000middle", "\u0000",
				"emoji \uD83D\uDE00\uD83D\uDC4D\uD83C\uDFFD", "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67",
				"\u4E2D\u6587\u65E5\u672C\u8A9E\uD55C\uAD6D\uC5B4", "e\u0301 vs \u00E9", "a\u0308\u0323\u0301",
				"\uD800\uDC00 and \uDBFF\uDFFF", "\uFFFD", "?", "x".repeat(10_000), "\uD83D\uDE00".repeat(5_000));
		assertThat(roundTrip(queue(), items)).containsExactlyElementsOf(items);
	}

	@Test
	@SuppressWarnings("deprecation")
	void theFirstReleasesCodecStillBuildsAQueue() throws Exception {
		dev.workqueue.redis.ItemCodec<String> legacy = dev.workqueue.redis.ItemCodec.strings();
		WorkQueue<String> queue = this.redis.track(RedisWorkQueues.builder(this.redis.client, legacy)
			.name("legacy-codec")
			.keyPrefix(this.redis.prefix)
			.buildQueue());
		assertThat(roundTrip(queue, List.of("a", "b"))).containsExactly("a", "b");
		assertThatIllegalArgumentException().isThrownBy(() -> legacy.encode("\uD800"))
			.withMessageContaining("lone surrogate");
	}

	@Test
	void theEmptyStringIsAnItemToo() throws Exception {
		assertThat(roundTrip(queue(), List.of(""))).containsExactly("");
	}

	@Test
	void thousandsOfRandomValidStringsComeBackExactly() throws Exception {
		Random random = new Random(20261125L);
		WorkQueue<String> queue = queue();
		for (int batch = 0; batch < 30; batch++) {
			Set<String> items = new LinkedHashSet<>();
			while (items.size() < 100) {
				String item = randomValidString(random);
				assertThat(ItemCodec.strings().encode(item)).isSameAs(item);
				items.add(item);
			}
			List<String> in = new ArrayList<>(items);
			assertThat(roundTrip(queue, in)).as("batch %d", batch).containsExactlyElementsOf(in);
		}
	}

	/** Up to 40 code points: ASCII with controls and NUL, CJK, combining marks, emoji. */
	private static String randomValidString(Random random) {
		StringBuilder out = new StringBuilder();
		int length = random.nextInt(41);
		for (int i = 0; i < length; i++) {
			int codePoint = switch (random.nextInt(6)) {
				case 0 -> random.nextInt(0x80);
				case 1 -> 0x4E00 + random.nextInt(0x9FFF - 0x4E00);
				case 2 -> 0x0300 + random.nextInt(0x70);
				case 3 -> 0x1F300 + random.nextInt(0x300);
				case 4 -> 0x10000 + random.nextInt(0x10FFFF - 0x10000 + 1);
				default -> {
					int any = random.nextInt(0xFFFF + 1 - 0x800);
					// Every BMP code point but the surrogates.
					yield (any < 0xD800) ? any : any + 0x800;
				}
			};
			out.appendCodePoint(codePoint);
		}
		return out.toString();
	}

	@Test
	void aLoneSurrogateIsRefusedNamingItsIndexAndNothingReachesRedis() throws Exception {
		WorkQueue<String> queue = queue();
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("a\uD800b"))
			.withMessageContaining("U+D800")
			.withMessageContaining("index 1");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("ab\uD83D")).withMessageContaining("index 2");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("\uDE00x"))
			.withMessageContaining("U+DE00")
			.withMessageContaining("index 0");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("\uD83D\uDE00\uDE00\uD83D"))
			.as("a valid pair, then a low and a high surrogate in the wrong order")
			.withMessageContaining("index 2");
		assertThat(this.redis.redis()
			.exists(this.redis.key("strings", "queue"), this.redis.key("strings", "dirty"),
					this.redis.key("strings", "waiting")))
			.as("nothing reached Redis")
			.isZero();

		// The string a lone surrogate would have become is an item of its own.
		queue.add("a?b");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("a\uDC00b"));
		assertThat(queue.size()).isOne();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a?b");
		queue.done("a?b");
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

}

package dev.workqueue.postgres;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Odd items: text PostgreSQL refuses is refused before any SQL, long and non-ASCII text
 * comes back as it went in, and a codec that throws loses nothing.
 */
@RequiresPostgres
class PostgresItemTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle() {
		return this.fixture.track(this.fixture.builder("items").buildDelayingQueue());
	}

	@Test
	void anItemWithANulCharacterIsRefusedNamingTheItemAndNothingIsWritten() {
		DelayingQueue<String> queue = handle();
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("a\u0000b"))
			.withMessageContaining("item")
			.withMessageContaining("NUL");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.addAfter("a\u0000b", Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.addAll(List.of("fine", "bad\u0000")));
		assertThat(TestSql.count(this.fixture.table())).as("not even the fine one of the burst").isZero();
	}

	@Test
	void longAndNonAsciiItemsComeBackAsTheyWentIn() throws Exception {
		DelayingQueue<String> queue = handle();
		String longItem = "x".repeat(100_000);
		String unicode = "Grüße, 世界 🌍 \t\n\"'\\";
		queue.add(longItem);
		queue.add(unicode);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo(longItem);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo(unicode);
		queue.done(longItem);
		queue.done(unicode);
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aCodecThatCannotEncodeAnItemFailsTheAddAndWritesNothing() {
		ItemCodec<String> codec = new PickyCodec();
		DelayingQueue<String> queue = this.fixture
			.track(PostgresWorkQueues.builder(this.fixture.tableFixture().dataSource(), codec)
				.table(this.fixture.table())
				.name("items")
				.listen(false)
				.vacuum(false)
				.buildDelayingQueue());
		assertThatIllegalStateException().isThrownBy(() -> queue.add("unwritable"));
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aPayloadTheCodecCannotDecodeIsMovedAsideAndTheNextItemIsHandedOut() throws Exception {
		DelayingQueue<String> writer = handle();
		writer.add("unreadable");
		writer.add("fine");
		DelayingQueue<String> reader = this.fixture
			.track(PostgresWorkQueues.builder(this.fixture.tableFixture().dataSource(), new PickyCodec())
				.table(this.fixture.table())
				.name("items")
				.listen(false)
				.vacuum(false)
				.buildDelayingQueue());
		assertThat(reader.poll(Duration.ZERO)).isEqualTo("fine");
		assertThat(EngineFixture.handle(reader).deadLettered()).isOne();
		assertThat(TestSql.queryString(
				"SELECT item FROM " + this.fixture.table() + "_limit WHERE queue = 'items' AND kind = 'dead-letter'"))
			.as("kept, not lost")
			.isEqualTo("unreadable");
		assertThat(TestSql.queryString(
				"SELECT holder FROM " + this.fixture.table() + "_limit WHERE queue = 'items' AND kind = 'dead-letter'"))
			.contains("cannot read");
		reader.done("fine");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	/** Strings, but it cannot write "unwritable" nor read "unreadable". */
	private static final class PickyCodec implements ItemCodec<String> {

		@Override
		public String encode(String item) {
			if (item.equals("unwritable")) {
				throw new IllegalStateException("cannot write " + item);
			}
			return item;
		}

		@Override
		public String decode(String encoded) {
			if (encoded.equals("unreadable")) {
				throw new IllegalStateException("cannot read " + encoded);
			}
			return encoded;
		}

	}

}

package dev.workqueue.postgres;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.postgres.PostgresQueueException.Reason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Odd items: text PostgreSQL cannot hold (NUL) is refused before any SQL, text too long
 * for the table's index is refused as a bad item, long and non-ASCII text comes back as
 * it went in, and a codec that throws loses nothing.
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
	void anItemTooLongForTheTablesIndexIsRefusedAsABadItemAndTheQueueCarriesOn() throws Exception {
		DelayingQueue<String> queue = handle();
		String tooLong = incompressible(8_000);
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add(tooLong))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.BAD_ITEM))
			.withMessageContaining("add to queue 'items' (table " + this.fixture.table() + ")")
			.withMessageContaining("too long")
			.withMessageContaining("54000");
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.addAll(List.of("fine", tooLong)))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.BAD_ITEM));
		assertThat(TestSql.count(this.fixture.table())).as("not even the fine one of the burst").isZero();
		queue.add("fine");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("fine");
		queue.done("fine");
	}

	/** Text of {@code length} characters that compression cannot shorten much. */
	static String incompressible(int length) {
		StringBuilder text = new StringBuilder(length);
		Random random = new Random(length);
		while (text.length() < length) {
			text.append(Long.toString(random.nextLong() & Long.MAX_VALUE, 36));
		}
		return text.substring(0, length);
	}

	@Test
	void aCodecThatCannotEncodeAnItemFailsTheAddAndWritesNothing() {
		ItemCodec<String> codec = new PickyCodec();
		DelayingQueue<String> queue = this.fixture
			.track(PostgresWorkQueues.builder(this.fixture.tableFixture().dataSource(), codec)
				.table(this.fixture.table())
				.name("items")
				.listen(false)
				.vacuum(VacuumPolicy.NEVER)
				.buildDelayingQueue());
		assertThatIllegalStateException().isThrownBy(() -> queue.add("unwritable"));
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aPayloadTheCodecCannotDecodeIsMovedAsideAndTheNextItemIsHandedOut() throws Exception {
		DelayingQueue<String> writer = handle();
		writer.add("unreadable");
		writer.add("fine");
		DelayingQueue<String> reader = this.fixture.track(pickyReader().buildDelayingQueue());
		assertThat(reader.poll(Duration.ZERO)).isEqualTo("fine");
		assertThat(EngineFixture.handle(reader).deadLettered()).isOne();
		String record = " FROM " + this.fixture.table() + "_given_up WHERE queue = 'items'";
		assertThat(TestSql.queryString("SELECT item" + record)).as("kept, not lost").isEqualTo("unreadable");
		assertThat(TestSql.queryString("SELECT reason" + record)).contains("cannot read");
		assertThat(TestSql.queryLong("SELECT attempts" + record)).isZero();
		assertThat(TestSql.queryString("SELECT holder" + record))
			.isEqualTo(EngineFixture.statements(reader).inspection().instance());
		assertThat(EngineFixture.statements(reader).inspection().find("unreadable")).singleElement()
			.satisfies((view) -> assertThat(view.state()).isEqualTo(ItemState.GIVEN_UP));
		assertThat(
				TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_lease WHERE item = 'unreadable'"))
			.as("its lease ended")
			.isZero();
		reader.done("fine");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aPayloadMovedAsideByAnInstanceThatKeepsNoRecordsLeavesTheRecordsOthersKeep() throws Exception {
		DelayingQueue<String> writer = handle();
		EngineFixture.statements(writer).inspection().keepGivenUp("other", 1, "kept by the writer");
		writer.add("unreadable");
		DelayingQueue<String> reader = this.fixture
			.track(pickyReader().givenUp(0, Duration.ofDays(1)).buildDelayingQueue());
		assertThat(reader.poll(Duration.ZERO)).isNull();
		assertThat(EngineFixture.handle(reader).deadLettered()).isOne();
		assertThat(TestSql.queryString("SELECT string_agg(item, ',') FROM " + this.fixture.table() + "_given_up"))
			.as("no record of its own, the writer's kept")
			.isEqualTo("other");
		assertThat(TestSql.count(this.fixture.table())).as("taken out of the queue").isZero();
		assertThat(TestSql.count(this.fixture.table() + "_lease")).as("its lease ended").isZero();
	}

	@Test
	void aPayloadWhoseDecodeFailureNamesANulIsMovedAsideAllTheSame() throws Exception {
		DelayingQueue<String> writer = handle();
		writer.add("unreadable-nul");
		writer.add("fine");
		DelayingQueue<String> reader = this.fixture.track(pickyReader().buildDelayingQueue());
		assertThat(reader.poll(Duration.ZERO)).isEqualTo("fine");
		assertThat(EngineFixture.handle(reader).deadLettered()).isOne();
		String record = " FROM " + this.fixture.table() + "_given_up WHERE queue = 'items'";
		assertThat(TestSql.queryString("SELECT reason" + record)).as("the NUL replaced, the record kept")
			.contains("cannot read unreadable-nul: \uFFFD");
		reader.done("fine");
		assertThat(TestSql.count(this.fixture.table())).as("taken out of the queue").isZero();
	}

	/** A handle of the test's queue that reads it with a {@link PickyCodec}. */
	private PostgresWorkQueues.Builder<String> pickyReader() {
		return PostgresWorkQueues.builder(this.fixture.tableFixture().dataSource(), new PickyCodec())
			.table(this.fixture.table())
			.name("items")
			.listen(false)
			.vacuum(VacuumPolicy.NEVER);
	}

	/**
	 * Strings, but it cannot write "unwritable" nor read "unreadable" (nor
	 * "unreadable-nul", with a NUL in its message).
	 */
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
			if (encoded.equals("unreadable-nul")) {
				throw new IllegalStateException("cannot read " + encoded + ": \0");
			}
			return encoded;
		}

	}

}

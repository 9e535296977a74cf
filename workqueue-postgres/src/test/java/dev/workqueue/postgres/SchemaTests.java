package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link PostgresWorkQueues#schema(String)}: runs twice without error, qualifies names,
 * refuses what is not an identifier.
 */
@RequiresPostgres
class SchemaTests {

	@Test
	void schemaRunsTwiceAndCreatesTheTableItsIndexesAndTheSequence() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			assertThat(PostgresWorkQueues.schema(fixture.table())).contains(fixture.table() + "_token")
				.contains(fixture.table() + "_ready")
				.contains(fixture.table() + "_limit");
		}
	}

	@Test
	void aSchemaQualifiedTableNamesItsIndexesWithoutTheSchema() {
		PostgresDatabase.execute("CREATE SCHEMA IF NOT EXISTS wq_schema_test");
		try {
			PostgresDatabase.execute(PostgresWorkQueues.schema("wq_schema_test.items"));
			assertThat(PostgresWorkQueues.schema("wq_schema_test.items"))
				.contains("CREATE INDEX IF NOT EXISTS items_ready ON wq_schema_test.items");
		}
		finally {
			PostgresDatabase.execute("DROP SCHEMA wq_schema_test CASCADE");
		}
	}

	@Test
	void aSecondRunDoesNotWaitForATransactionThatAddedToTheTable() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture();
				Connection adding = PostgresDatabase.connect();
				Connection starting = PostgresDatabase.connect()) {
			adding.setAutoCommit(false);
			try (Statement add = adding.createStatement(); Statement schema = starting.createStatement()) {
				add.execute("INSERT INTO " + fixture.table()
						+ " (queue, item, state, priority, ready_at, seq) VALUES ('q', 'a', 0, 0, now(), 1)");
				// CREATE INDEX would wait for that transaction before finding its index
				// exists.
				schema.execute("SET lock_timeout = '2s'");
				schema.execute(PostgresWorkQueues.schema(fixture.table()));
			}
			finally {
				adding.rollback();
			}
		}
	}

	@Test
	void aTableThatIsNotAnIdentifierIsRefusedNamingTheArgument() {
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("items; DROP TABLE x"))
			.withMessageContaining("table");
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("a.b.c"))
			.withMessageContaining("table");
	}

}

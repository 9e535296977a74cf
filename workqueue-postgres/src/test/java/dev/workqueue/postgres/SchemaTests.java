package dev.workqueue.postgres;

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
	void aTableThatIsNotAnIdentifierIsRefusedNamingTheArgument() {
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("items; DROP TABLE x"))
			.withMessageContaining("table");
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("a.b.c"))
			.withMessageContaining("table");
	}

}

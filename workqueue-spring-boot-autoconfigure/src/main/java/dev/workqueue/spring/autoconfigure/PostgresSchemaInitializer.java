package dev.workqueue.spring.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.workqueue.postgres.PostgresWorkQueues;

/**
 * Creates what the postgres queues' table needs at start-up
 * ({@code workqueue.postgres.initialize-schema=always}): runs
 * {@link PostgresWorkQueues#schema(String)}, which creates only what is missing.
 * <p>
 * Being a {@link DataSourceScriptDatabaseInitializer}, it is a database initializer to
 * Spring Boot, as Quartz's schema initializer is: it runs after the application's Flyway
 * or Liquibase migrations, and before every bean that depends on database initialization,
 * the postgres queues among them. Its script location is workqueue-postgres's schema
 * template; what runs is that template filled in for the table, as one statement (the
 * script is written to be run that way).
 */
class PostgresSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	/** The template {@link PostgresWorkQueues#schema(String)} fills in. */
	static final String SCHEMA_LOCATION = "classpath:dev/workqueue/postgres/schema.sql";

	private final String table;

	/**
	 * Creates the initializer.
	 * @param dataSource the application's data source
	 * @param table the queues' table
	 */
	PostgresSchemaInitializer(DataSource dataSource, String table) {
		super(dataSource, settings());
		this.table = table;
	}

	private static DatabaseInitializationSettings settings() {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(List.of(SCHEMA_LOCATION));
		settings.setMode(DatabaseInitializationMode.ALWAYS);
		return settings;
	}

	@Override
	protected void runScripts(Scripts scripts) {
		try {
			new JdbcTemplate(getDataSource()).execute(PostgresWorkQueues.schema(this.table));
		}
		catch (RuntimeException ex) {
			throw new PostgresSchemaInitializationException(this.table, ex);
		}
	}

	/**
	 * Returns the table this initializer creates.
	 * @return the table
	 */
	String table() {
		return this.table;
	}

}

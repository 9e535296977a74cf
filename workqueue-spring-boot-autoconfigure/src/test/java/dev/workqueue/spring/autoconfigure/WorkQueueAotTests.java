package dev.workqueue.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.InputStreamSource;
import org.springframework.javapoet.ClassName;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.workqueue.spring.QueueWorker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for Spring AOT: the runtime hints of what the starter uses reflectively, and the
 * code AOT generates for an application with a queue and a worker.
 */
class WorkQueueAotTests {

	@Test
	void hintsCoverBindingTheFactoryMethodAndTheScripts() throws Exception {
		RuntimeHints hints = new RuntimeHints();
		new WorkQueueRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WorkQueueFactory.class, "create"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WorkQueueProperties.class, "setEnabled"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(WorkQueueProperties.Exponential.class, "setJitter")).accepts(hints);
		for (String script : List.of("check_types", "list/get", "priority/get", "limiter/bucket",
				"includes/queue_keys")) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/workqueue/redis/" + script + ".lua"))
				.as(script)
				.accepts(hints);
		}
	}

	@Test
	void aotProcessingRegistersTheWorkerMethodAndLeavesTheQueuesToStartUp() {
		GenericApplicationContext context = new GenericApplicationContext();
		AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
		TestPropertyValues.of("workqueue.queues.orders.concurrency=2").applyTo(context);
		context.registerBean(WorkQueueAutoConfiguration.class);
		context.registerBean("orderWorker", OrderWorker.class);
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "TestApplication")), files);
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		generation.writeGeneratedContent();

		RuntimeHints hints = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderWorker.class, "ship"))
			.as("@QueueWorker is @Reflective")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WorkQueueFactory.class, "create"))
			.accepts(hints);
		String sources = files.getGeneratedFiles(Kind.SOURCE)
			.values()
			.stream()
			.map(WorkQueueAotTests::read)
			.collect(Collectors.joining("\n"));
		assertThat(sources).as("the registrar's beans are registered again at start-up, not generated")
			.doesNotContain("\"orders\"")
			.doesNotContain("getWorkQueuePropertiesBeanDefinition")
			.doesNotContain("getWorkQueueSettingsBeanDefinition")
			.contains("getWorkQueueBeanRegistrarBeanDefinition", "getOrderWorkerBeanDefinition");
	}

	@Test
	void thePostgresBackendsSchemaTemplateIsAResourceHint() {
		RuntimeHints hints = new RuntimeHints();
		new QueueBackendConfigurations.Postgres.SchemaRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/workqueue/postgres/schema.sql")).accepts(hints);
	}

	@Test
	void aotProcessingKeepsThePostgresBackendAfterTheDatabaseInitialization() {
		GenericApplicationContext context = new GenericApplicationContext();
		AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
		TestPropertyValues.of("workqueue.queues.orders.backend=postgres").applyTo(context);
		context.registerBean(WorkQueueAutoConfiguration.class);
		context.registerBean("dataSource", DriverManagerDataSource.class);
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "TestApplication")), files);
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		generation.writeGeneratedContent();

		String sources = files.getGeneratedFiles(Kind.SOURCE)
			.values()
			.stream()
			.map(WorkQueueAotTests::read)
			.collect(Collectors.joining("\n"));
		// Boot's ordering is computed before AOT and generated as depends-on: the
		// backend, which every postgres queue depends on at start-up, comes after the
		// schema initializer.
		assertThat(sources).contains("getWorkQueuePostgresBackendBeanDefinition",
				"getWorkQueuePostgresSchemaInitializerBeanDefinition",
				"setDependsOn(\"workQueuePostgresSchemaInitializer\")");
	}

	private static String read(InputStreamSource source) {
		try (InputStream in = source.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static class OrderWorker {

		@QueueWorker(queue = "orders")
		void ship(String order) {
		}

	}

}

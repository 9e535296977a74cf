package dev.workqueue.console;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When the console's auto-configuration adds its beans, and how it checks its path.
 */
class WorkQueueConsoleAutoConfigurationTests {

	/** Every type of the module that is a bean when the console is on. */
	static final List<Class<?>> CONSOLE_TYPES = List.of(WorkQueueConsoleProperties.class, RateSampler.class,
			ItemIds.class, ConsoleQueues.class, ConsoleFigures.class, ConsoleActions.class, ConsoleApiController.class,
			ConsolePageController.class, ConsoleAssets.class);

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(WorkQueueAutoConfiguration.class, WorkQueueConsoleAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=1");

	@Test
	void consoleIsOffUnlessEnabled() {
		this.contextRunner.run((context) -> assertNoConsole(context));
		this.contextRunner.withPropertyValues("workqueue.console.enabled=false")
			.run((context) -> assertNoConsole(context));
	}

	@Test
	void enabledConsoleHasItsBeans() {
		this.contextRunner.withPropertyValues("workqueue.console.enabled=true").run((context) -> {
			for (Class<?> type : CONSOLE_TYPES) {
				assertThat(context).hasSingleBean(type);
			}
		});
	}

	@Test
	void figuresAreRefreshedUntilTheContextCloses() {
		Set<Thread> before = ConsoleFiguresTests.refreshers();
		Set<Thread> started = new HashSet<>();
		this.contextRunner.withPropertyValues("workqueue.console.enabled=true").run((context) -> {
			assertThat(context.getBean(ConsoleFigures.class).isRunning()).isTrue();
			started.addAll(ConsoleFiguresTests.refreshers());
			started.removeAll(before);
			assertThat(started).hasSize(1);
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> started.stream().noneMatch(Thread::isAlive));
	}

	@Test
	void consoleNeedsAServletWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(WorkQueueAutoConfiguration.class, WorkQueueConsoleAutoConfiguration.class))
			.withPropertyValues("workqueue.console.enabled=true", "workqueue.queues.orders.concurrency=1")
			.run((context) -> assertNoConsole(context));
	}

	@Test
	void consoleNeedsWorkQueues() {
		this.contextRunner.withPropertyValues("workqueue.console.enabled=true", "workqueue.enabled=false")
			.run((context) -> assertNoConsole(context));
	}

	@Test
	void pathMustStartWithASlashAndNotEndWithOne() {
		for (String path : new String[] { "workqueue", "/workqueue/", "/" }) {
			this.contextRunner.withPropertyValues("workqueue.console.enabled=true", "workqueue.console.path=" + path)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("workqueue.console.path"));
		}
	}

	private static void assertNoConsole(ApplicationContext context) {
		for (Class<?> type : CONSOLE_TYPES) {
			assertThat(context.getBeansOfType(type)).as(type.getSimpleName()).isEmpty();
		}
	}

}

package dev.workqueue.console;

import java.security.SecureRandom;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;

import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueDetails;
import dev.workqueue.spring.autoconfigure.WorkQueueProperties;
import dev.workqueue.spring.worker.ItemLogging;
import dev.workqueue.time.Clock;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the work-queue console: its page, assets and JSON API under
 * {@code workqueue.console.path}, served by the application's Spring MVC.
 * <p>
 * Off unless {@code workqueue.console.enabled=true}, and only in a servlet web
 * application with work queues. The times it shows come from the application's
 * {@link Clock} bean if it has one, as the memory queues' do; its readings and rates are
 * paced in real time whatever that clock is (a {@code FakeClock} that a test never steps
 * would otherwise freeze the page's figures). It adds no security of its own: the console
 * is behind the application's filter chain, so its rules and CSRF protection apply.
 */
@AutoConfiguration(afterName = "dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("workqueue.console.enabled")
@ConditionalOnBean(WorkQueueRegistry.class)
@EnableConfigurationProperties(WorkQueueConsoleProperties.class)
public final class WorkQueueConsoleAutoConfiguration {

	private static final boolean MICROMETER_PRESENT = ClassUtils.isPresent(
			"io.micrometer.core.instrument.MeterRegistry", WorkQueueConsoleAutoConfiguration.class.getClassLoader());

	@Bean
	RateSampler workQueueConsoleRateSampler(WorkQueueRegistry workQueueRegistry, BeanFactory beanFactory) {
		QueueCounters counters = new StatsQueueCounters(workQueueRegistry);
		if (MICROMETER_PRESENT) {
			counters = MeterQueueCounters.orElse(beanFactory, counters);
		}
		return new RateSampler(workQueueRegistry, counters, Clock.system());
	}

	@Bean
	ItemIds workQueueConsoleItemIds() {
		return new ItemIds(new SecureRandom());
	}

	@Bean
	ConsoleQueues workQueueConsoleQueues(WorkQueueRegistry workQueueRegistry,
			ObjectProvider<WorkQueueOperations> workQueueOperations, ObjectProvider<WorkQueueDetails> details,
			RateSampler workQueueConsoleRateSampler, ItemIds workQueueConsoleItemIds,
			WorkQueueConsoleProperties properties, ObjectProvider<Clock> clock) {
		return new ConsoleQueues(workQueueRegistry, workQueueOperations.getIfAvailable(),
				details.orderedStream().toList(), workQueueConsoleRateSampler, workQueueConsoleItemIds, properties,
				clock.getIfAvailable(Clock::system));
	}

	@Bean
	ConsoleFigures workQueueConsoleFigures(ConsoleQueues workQueueConsoleQueues) {
		return new ConsoleFigures(workQueueConsoleQueues, Clock.system());
	}

	@Bean
	ConsoleActions workQueueConsoleActions(ObjectProvider<WorkQueueOperations> workQueueOperations,
			ItemIds workQueueConsoleItemIds, WorkQueueConsoleProperties properties,
			ObjectProvider<WorkQueueProperties> workQueueProperties) {
		WorkQueueProperties starter = workQueueProperties.getIfAvailable();
		return new ConsoleActions(workQueueOperations.getIfAvailable(), workQueueConsoleItemIds,
				properties.isShowItems(), ItemLogging.of(starter == null || starter.isLogItems()));
	}

	@Bean
	ConsoleApiController workQueueConsoleApiController(ConsoleQueues workQueueConsoleQueues,
			ConsoleFigures workQueueConsoleFigures, ConsoleActions workQueueConsoleActions,
			WorkQueueConsoleProperties properties) {
		return new ConsoleApiController(workQueueConsoleQueues, workQueueConsoleFigures, workQueueConsoleActions,
				properties.isReadOnly());
	}

	@Bean
	ConsolePageController workQueueConsolePageController(WorkQueueConsoleProperties properties,
			ObjectProvider<DispatcherServletPath> dispatcherServletPath) {
		DispatcherServletPath dispatcher = dispatcherServletPath.getIfAvailable();
		return new ConsolePageController((dispatcher != null) ? dispatcher.getPrefix() : "", properties.getPath());
	}

	@Bean
	ConsoleAssets workQueueConsoleAssets(WorkQueueConsoleProperties properties) {
		return new ConsoleAssets(properties.getPath());
	}

}

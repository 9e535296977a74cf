package dev.workqueue.spring.autoconfigure.endpoint;

import java.util.List;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesControlFieldsAdvisor;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpointBodyAdvice;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpointWebExtension;
import dev.workqueue.spring.autoconfigure.WorkQueueDetails;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link WorkQueuesEndpoint workqueues} endpoint, and of its
 * web extension when it is exposed over HTTP.
 * <p>
 * Active when the Actuator is on the class path, the work queues are configured and the
 * endpoint is enabled and exposed. The rate limiter of a queue is shown when a
 * {@link WorkQueueDetails} bean knows it, as for every queue the starter built. Over
 * HTTP, a {@link WorkQueuesControlFieldsAdvisor} refuses runtime-control requests with
 * fields the endpoint does not take and, over Spring MVC, a
 * {@link WorkQueuesEndpointBodyAdvice} answers those whose body cannot be read.
 */
@AutoConfiguration(afterName = "dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration")
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(WorkQueueRegistry.class)
@ConditionalOnAvailableEndpoint(WorkQueuesEndpoint.class)
public final class WorkQueuesEndpointAutoConfiguration {

	private static final EndpointId WORKQUEUES = EndpointId.of("workqueues");

	@Bean
	@ConditionalOnMissingBean
	WorkQueuesEndpoint workQueuesEndpoint(WorkQueueRegistry workQueueRegistry,
			ObjectProvider<WorkerContainerRegistry> workerContainerRegistry, ObjectProvider<WorkQueueDetails> details) {
		List<WorkQueueDetails> sources = details.orderedStream().toList();
		return new WorkQueuesEndpoint(workQueueRegistry, workerContainerRegistry.getIfAvailable(),
				(name) -> sources.stream()
					.map((source) -> source.rateLimiter(name))
					.flatMap(Optional::stream)
					.findFirst(),
				(name) -> sources.stream()
					.map((source) -> source.backend(name))
					.filter((backend) -> !"unknown".equals(backend))
					.findFirst()
					.orElse("unknown"));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(WorkQueuesEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	WorkQueuesEndpointWebExtension workQueuesEndpointWebExtension(WorkQueuesEndpoint workQueuesEndpoint) {
		return new WorkQueuesEndpointWebExtension(workQueuesEndpoint);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(WorkQueuesEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = WorkQueuesEndpoint.class, exposure = EndpointExposure.WEB)
	WorkQueuesControlFieldsAdvisor workQueuesControlFieldsAdvisor() {
		return new WorkQueuesControlFieldsAdvisor();
	}

	/**
	 * The answer to an unreadable runtime-control body, over Spring MVC.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = { "org.springframework.web.servlet.DispatcherServlet",
			"org.springframework.boot.webmvc.actuate.endpoint.web.WebMvcEndpointHandlerMapping" })
	@ConditionalOnAvailableEndpoint(endpoint = WorkQueuesEndpoint.class, exposure = EndpointExposure.WEB)
	static class ServletBodyConfiguration {

		@Bean
		@ConditionalOnMissingBean
		WorkQueuesEndpointBodyAdvice workQueuesEndpointBodyAdvice(ObjectProvider<PathMappedEndpoints> endpoints) {
			return new WorkQueuesEndpointBodyAdvice(() -> {
				PathMappedEndpoints paths = endpoints.getIfAvailable();
				return (paths != null) ? paths.getPath(WORKQUEUES) : null;
			});
		}

	}

}

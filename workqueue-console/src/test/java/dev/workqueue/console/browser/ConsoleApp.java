package dev.workqueue.console.browser;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;

/**
 * One running instance of {@link ConsoleTestApplication} on a port of its own, with the
 * console on at {@code /workqueue} and the Actuator's {@code workqueues} endpoint
 * exposed.
 */
final class ConsoleApp implements AutoCloseable {

	/**
	 * Spring Security's auto-configurations: off unless the test asks for
	 * {@link #secured}.
	 */
	private static final List<String> SECURITY = List.of(
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration");

	/** Boot's {@code DataSource}: off unless the test gives it a URL. */
	private static final String DATA_SOURCE = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private static final JsonMapper json = JsonMapper.builder().build();

	private final ConfigurableApplicationContext context;

	private ConsoleApp(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts an instance without Spring Security.
	 * @param properties more properties ({@code key=value}), such as the queue's backend
	 * @return the running instance
	 */
	static ConsoleApp start(String... properties) {
		return start(false, properties);
	}

	/**
	 * Starts an instance behind {@link SecuredConsole}'s rules.
	 * @param properties more properties
	 * @return the running instance
	 */
	static ConsoleApp secured(String... properties) {
		return start(true, properties);
	}

	private static ConsoleApp start(boolean secured, String[] properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off",
				"workqueue.console.enabled=true", "management.endpoints.web.exposure.include=workqueues",
				"workqueue.defaults.shutdown-timeout=2s", "workqueue.queues.jobs.max-retries=0",
				"workqueue.queues.jobs.rate-limiter.exponential.base-delay=1ms",
				"workqueue.queues.jobs.rate-limiter.exponential.max-delay=10ms"));
		all.addAll(List.of(properties));
		List<String> excluded = new ArrayList<>(secured ? List.of() : SECURITY);
		if (all.stream().noneMatch((property) -> property.startsWith("spring.datasource.url="))) {
			excluded.add(DATA_SOURCE);
		}
		all.add("spring.autoconfigure.exclude=" + String.join(",", excluded));
		List<Class<?>> sources = secured ? List.of(ConsoleTestApplication.class, SecuredConsole.class)
				: List.of(ConsoleTestApplication.class);
		return new ConsoleApp(
				new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).properties(all.toArray(String[]::new))
					.run());
	}

	/** The address of a path of this instance, such as {@code /workqueue}. */
	String url(String path) {
		int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		return "http://localhost:" + port + path;
	}

	/** The queue {@code jobs} of this instance. */
	RateLimitingQueue<String> queue() {
		return queue(ConsoleTestApplication.QUEUE);
	}

	/** A queue of this instance. */
	RateLimitingQueue<String> queue(String name) {
		return this.context.getBean(WorkQueueRegistry.class).get(name);
	}

	ConsoleTestApplication.Worker worker() {
		return this.context.getBean(ConsoleTestApplication.Worker.class);
	}

	/** The Actuator's object for {@code jobs}, read without credentials. */
	JsonNode actuator() {
		return getJson("/actuator/workqueues/" + ConsoleTestApplication.QUEUE);
	}

	/** A {@code GET} of this instance's JSON, without credentials. */
	JsonNode getJson(String path) {
		try {
			HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url(path))).build(),
					HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("GET " + path + ": " + response.statusCode() + " " + response.body());
			}
			return json.readTree(response.body());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Lets the held items finish, then stops the instance. */
	@Override
	public void close() {
		worker().releaseAll();
		this.context.close();
	}

}

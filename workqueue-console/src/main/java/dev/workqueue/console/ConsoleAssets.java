package dev.workqueue.console;

import java.time.Duration;

import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the page's scripts, styles and images at {@code {path}/assets/**} from the jar,
 * cached by the browser for an hour (they change only with the application).
 */
final class ConsoleAssets implements WebMvcConfigurer {

	static final String LOCATION = "classpath:/dev/workqueue/console/static/assets/";

	private final String path;

	ConsoleAssets(String path) {
		this.path = path;
	}

	@Override
	public void addResourceHandlers(ResourceHandlerRegistry registry) {
		registry.addResourceHandler(this.path + "/assets/**")
			.addResourceLocations(LOCATION)
			.setCacheControl(CacheControl.maxAge(Duration.ofHours(1)).cachePrivate());
	}

}

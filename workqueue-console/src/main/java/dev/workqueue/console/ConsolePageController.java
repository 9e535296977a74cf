package dev.workqueue.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.util.HtmlUtils;

/**
 * Serves the console's page at {@code {path}} and {@code {path}/queues/{name}}: the jar's
 * {@code index.html} with the console's base path and, when Spring Security has put a
 * CSRF token in the request, that token filled in, each HTML-escaped. The page is never
 * cached (it carries the token).
 */
@Controller
@RequestMapping("${workqueue.console.path:/workqueue}")
final class ConsolePageController {

	static final String INDEX = "dev/workqueue/console/static/index.html";

	private static final boolean SECURITY_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", ConsolePageController.class.getClassLoader());

	/** The console's path under the context path: the dispatcher's prefix and its own. */
	private final String path;

	private final String template;

	/**
	 * Creates the page's controller.
	 * @param dispatcherPrefix the prefix of the dispatcher servlet's mapping
	 * ({@code spring.mvc.servlet.path}), empty for the root
	 * @param path the console's path ({@code workqueue.console.path})
	 */
	ConsolePageController(String dispatcherPrefix, String path) {
		this.path = dispatcherPrefix + path;
		this.template = read(INDEX);
	}

	@GetMapping(path = { "", "/queues/{name}" }, produces = MediaType.TEXT_HTML_VALUE)
	ResponseEntity<String> page(HttpServletRequest request) {
		String header = "";
		String token = "";
		if (SECURITY_PRESENT) {
			CsrfTokens.Token csrf = CsrfTokens.of(request);
			if (csrf != null) {
				header = csrf.header();
				token = csrf.token();
			}
		}
		String page = this.template.replace("{{base}}", HtmlUtils.htmlEscape(request.getContextPath() + this.path))
			.replace("{{csrfHeader}}", HtmlUtils.htmlEscape(header))
			.replace("{{csrfToken}}", HtmlUtils.htmlEscape(token));
		return ResponseEntity.ok()
			.cacheControl(CacheControl.noStore())
			.contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.body(page);
	}

	private static String read(String location) {
		try (InputStream in = new ClassPathResource(location, ConsolePageController.class.getClassLoader())
			.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the console's page " + location, ex);
		}
	}

}

package dev.workqueue.console;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Under {@code spring.mvc.servlet.path} the console's page names its assets and API under
 * the dispatcher's path too: they are served there.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "spring.mvc.servlet.path=/app" })
@AutoConfigureMockMvc(addFilters = false)
class ConsoleServletPathTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void pageBaseIncludesTheDispatchersPath() throws Exception {
		this.mvc
			.perform(get("/shop/app/workqueue").contextPath("/shop").servletPath("/app").accept(MediaType.TEXT_HTML))
			.andExpect(status().isOk())
			.andExpect(
					content().string(containsString("<meta name=\"workqueue-base\" content=\"/shop/app/workqueue\">")));
	}

}

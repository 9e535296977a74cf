package dev.workqueue.console;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Without {@code workqueue.console.enabled=true} the application serves no console path
 * and has none of the console's beans.
 */
@SpringBootTest(classes = ConsoleTestApplication.class)
@AutoConfigureMockMvc(addFilters = false)
class ConsoleDisabledTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private ApplicationContext context;

	@Test
	void noConsolePathIsServed() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues")).andExpect(status().isNotFound());
		this.mvc.perform(get("/workqueue/api/queues/orders")).andExpect(status().isNotFound());
		this.mvc.perform(get("/workqueue").accept(MediaType.TEXT_HTML)).andExpect(status().isNotFound());
		this.mvc.perform(post("/workqueue/api/queues/orders/actions/pause")).andExpect(status().isNotFound());
	}

	@Test
	void noConsoleBeanExists() {
		for (Class<?> type : WorkQueueConsoleAutoConfigurationTests.CONSOLE_TYPES) {
			assertThat(this.context.getBeansOfType(type)).as(type.getSimpleName()).isEmpty();
		}
	}

}

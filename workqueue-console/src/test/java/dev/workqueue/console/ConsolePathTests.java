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
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console at a path of the application's choosing: its page, API and assets move
 * there, and nothing is left at the default path.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "workqueue.console.path=/ops/queues" })
@AutoConfigureMockMvc(addFilters = false)
class ConsolePathTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void everythingIsServedUnderThePath() throws Exception {
		this.mvc.perform(get("/ops/queues/api/queues"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.queues[0].name").value("opaque"));
		this.mvc.perform(get("/ops/queues/queues/orders").accept(MediaType.TEXT_HTML))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("content=\"/ops/queues\"")));
		this.mvc.perform(get("/workqueue/api/queues")).andExpect(status().isNotFound());
	}

	@Test
	void assetsComeFromTheJarWithCacheHeaders() throws Exception {
		this.mvc.perform(get("/ops/queues/assets/probe.txt"))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("console asset probe")))
			.andExpect(header().string("Cache-Control", containsString("max-age=3600")));
		this.mvc.perform(get("/ops/queues/assets/../index.html")).andExpect(status().isNotFound());
	}

}

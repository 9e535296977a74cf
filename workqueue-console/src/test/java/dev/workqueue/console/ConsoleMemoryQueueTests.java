package dev.workqueue.console;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.MockMvc;

import dev.workqueue.spring.WorkQueueRegistry;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console on a queue the starter builds on the memory backend, through core's own
 * in-memory inspector.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "workqueue.console.read-only=false",
				"workqueue.queues.live.concurrency=1" })
@AutoConfigureMockMvc(addFilters = false)
@DirtiesContext
class ConsoleMemoryQueueTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private WorkQueueRegistry queues;

	@Test
	void memoryQueueShowsItsItemsAndPauses() throws Exception {
		this.queues.get("live").add("first");
		this.queues.get("live").add("second");
		this.mvc.perform(get("/workqueue/api/queues/live"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.backend").value("memory"))
			.andExpect(jsonPath("$.inspect").value(true))
			.andExpect(jsonPath("$.depth").value(2))
			.andExpect(jsonPath("$.givenUp").value(0))
			.andExpect(jsonPath("$.items.ready[*].text", contains("first", "second")))
			.andExpect(jsonPath("$.items.ready[0].state").value("ready"));
		act("pause", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(true));
		act("resume", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(false));
		act("forget", "{\"item\":\"first\"}").andExpect(status().isOk());
		act("add", "{\"item\":\"third\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("codec")));
	}

	private org.springframework.test.web.servlet.ResultActions act(String action, String body) throws Exception {
		return this.mvc
			.perform(post("/workqueue/api/queues/live/actions/" + action).contentType(MediaType.APPLICATION_JSON)
				.content(body));
	}

}

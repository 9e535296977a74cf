package dev.workqueue.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.MockMvc;

import dev.workqueue.spring.WorkQueueRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
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
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
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
	}

	/**
	 * A memory queue without a codec bean takes an operator's text as a {@code String}
	 * item, as the starter's Redis and PostgreSQL queues do without one.
	 */
	@Test
	void aMemoryQueueWithoutACodecAddsTheTextAsAString() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/live")).andExpect(jsonPath("$.readsText").value(true));
		act("add", "{\"item\":\"third\"}").andExpect(status().isOk());
		this.mvc.perform(get("/workqueue/api/queues/live"))
			.andExpect(jsonPath("$.items.ready[*].text", hasItem("third")));
		List<Object> taken = new ArrayList<>();
		for (Object item = this.queues.get("live").poll(Duration.ZERO); item != null; item = this.queues.get("live")
			.poll(Duration.ZERO)) {
			taken.add(item);
		}
		assertThat(taken).contains("third");
	}

	private org.springframework.test.web.servlet.ResultActions act(String action, String body) throws Exception {
		return this.mvc
			.perform(post("/workqueue/api/queues/live/actions/" + action).contentType(MediaType.APPLICATION_JSON)
				.content(body));
	}

}

package dev.workqueue.console;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.test.web.servlet.MockMvc;

import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.FakeClock;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;

/**
 * The console of an application whose {@link dev.workqueue.time.Clock} bean is a
 * {@link FakeClock} that nobody steps: that clock times the memory queues only, and the
 * page's figures still follow the queues in real time.
 */
@SpringBootTest(classes = { ConsoleTestApplication.class, ConsoleOnAFakeClockTests.Clocks.class },
		properties = { "workqueue.console.enabled=true", "workqueue.queues.live.concurrency=1" })
@AutoConfigureMockMvc(addFilters = false)
class ConsoleOnAFakeClockTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private WorkQueueRegistry queues;

	@Test
	void theOverviewFollowsTheQueuesWhileTheApplicationsClockStandsStill() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues"))
			.andExpect(jsonPath("$.queues[?(@.name == 'live')].depth", contains(0)));
		this.queues.get("live").add("a");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> this.mvc.perform(get("/workqueue/api/queues"))
				.andExpect(jsonPath("$.queues[?(@.name == 'live')].depth", contains(1))));
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Clocks {

		@Bean
		FakeClock clock() {
			return new FakeClock();
		}

	}

}

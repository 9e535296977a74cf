package dev.workqueue.console;

import java.security.Principal;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.MockMvc;

import dev.workqueue.spring.worker.ItemLogging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * With {@code workqueue.log-items=false} the console's log lines name an item by the hash
 * the starter's own log lines use, even where the console shows items: the application
 * said its items stay out of the logs.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "workqueue.console.read-only=false",
				"workqueue.log-items=false" })
@AutoConfigureMockMvc(addFilters = false)
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class ConsoleItemLoggingTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void anActionLogsTheItemsHashNotItsText(CapturedOutput output) throws Exception {
		Principal ops = () -> "ops";
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/add").principal(ops)
				.contentType(MediaType.APPLICATION_JSON)
				.content("{\"item\":\"alice@example.com\"}"))
			.andExpect(status().isOk());
		assertThat(output.getOut().lines().filter((line) -> line.contains("Console:")))
			.singleElement(InstanceOfAssertFactories.STRING)
			.endsWith("Console: item " + ItemLogging.HASH.describe("alice@example.com")
					+ " added to queue 'orders' by 'ops'")
			.doesNotContain("alice");
	}

}

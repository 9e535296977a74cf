package dev.workqueue.console;

import java.security.Principal;
import java.security.SecureRandom;

import com.jayway.jsonpath.JsonPath;
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
import org.springframework.test.web.servlet.ResultActions;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * With {@code workqueue.console.show-items=false} no item text leaves the server: not in
 * the lists, not in what {@code find} returns, not in the page, not in an action's
 * answer, its errors or its log line; ids name any item, however deep in its list.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "workqueue.console.show-items=false",
				"workqueue.console.read-only=false" })
@AutoConfigureMockMvc(addFilters = false)
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class ConsoleHiddenItemsTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private InspectedQueue orders;

	@Autowired
	private ItemIds ids;

	@Test
	void noReadSendsAnItemText() throws Exception {
		for (String path : new String[] { "/workqueue/api/queues", "/workqueue/api/queues/orders",
				"/workqueue/api/queues/orders?find=order-5", "/workqueue/api/queues/opaque?state=given-up",
				"/workqueue", "/workqueue/queues/orders" }) {
			String body = this.mvc.perform(get(path))
				.andExpect(status().isOk())
				.andReturn()
				.getResponse()
				.getContentAsString();
			assertThat(body).as(path).doesNotContain("order-", "secret-", "<script>");
		}
	}

	@Test
	void itemsHaveIdsAndFindWorksOnTheServer() throws Exception {
		String body = this.mvc.perform(get("/workqueue/api/queues/orders?find=order-5"))
			.andReturn()
			.getResponse()
			.getContentAsString();
		assertThat(JsonPath.<Integer>read(body, "$.found.length()")).isOne();
		assertThat(JsonPath.<String>read(body, "$.found[0].state")).isEqualTo("given-up");
		assertThat(JsonPath.<String>read(body, "$.found[0].id")).isNotBlank();
		assertThat(JsonPath.<java.util.Map<String, Object>>read(body, "$.found[0]")).doesNotContainKey("text");
		String overview = this.mvc.perform(get("/workqueue/api/queues")).andReturn().getResponse().getContentAsString();
		assertThat(JsonPath.<Boolean>read(overview, "$.showItems")).isFalse();
	}

	@Test
	void itemDeepInAListIsActedOnByItsId() throws Exception {
		for (int i = 0; i <= QueueInspector.MAX_LIMIT; i++) {
			this.orders.put("deep-" + i, ItemState.WAITING);
		}
		String body = this.mvc
			.perform(get("/workqueue/api/queues/orders?state=waiting&limit=1&offset=" + (QueueInspector.MAX_LIMIT + 1)))
			.andReturn()
			.getResponse()
			.getContentAsString();
		String id = JsonPath.read(body, "$.items.waiting[0].id");
		assertThat(id).doesNotContain("deep");
		act("forget", "{\"id\":\"" + id + "\"}").andExpect(status().isOk());
		assertThat(this.orders.forgotten()).endsWith("deep-" + QueueInspector.MAX_LIMIT);
	}

	@Test
	void idThisInstanceDidNotIssueIsABadRequest() throws Exception {
		String id = JsonPath.read(this.mvc.perform(get("/workqueue/api/queues/orders?state=given-up"))
			.andReturn()
			.getResponse()
			.getContentAsString(), "$.items['given-up'][0].id");
		int givenUp = this.orders.givenUpCount();
		// The first character is six bits of the nonce: any change to it is a forgery.
		String forged = ((id.charAt(0) == 'A') ? 'B' : 'A') + id.substring(1);
		String other = new ItemIds(new SecureRandom()).id("order-5");
		for (String bad : new String[] { forged, other, "order-5", "" }) {
			act("delete", "{\"id\":\"" + bad + "\"}").andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.error", containsString("id")));
		}
		assertThat(this.orders.givenUpCount()).isEqualTo(givenUp);
	}

	@Test
	void errorsNameTheItemByItsIdOnly() throws Exception {
		String text = InspectedQueue.UNREADABLE + "secret-payload-123";
		String id = this.ids.id(text);
		for (String action : new String[] { "forget", "add" }) {
			act(action, "{\"item\":\"" + text + "\"}").andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.error")
					.value("item id " + id + " cannot be read by queue 'orders' (java.lang.NumberFormatException)"));
		}
		act("add", "{\"item\": secret-payload-123}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value("The body must be a JSON object"));
		this.orders.addsFail(true);
		try {
			act("readd", "{\"item\":\"order-6\"}").andExpect(status().isServiceUnavailable())
				.andExpect(jsonPath("$.error")
					.value("cannot run readd on queue 'orders': java.lang.IllegalStateException"));
		}
		finally {
			this.orders.addsFail(false);
		}
		this.orders.itemsUnreachable(true);
		try {
			this.mvc.perform(get("/workqueue/api/queues/orders?find=order-6"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(jsonPath("$.error")
					.value("cannot read the items of queue 'orders': java.lang.IllegalStateException"));
		}
		finally {
			this.orders.itemsUnreachable(false);
		}
	}

	@Test
	void actionByIdSendsNoTextAndLogsNone(CapturedOutput output) throws Exception {
		String body = this.mvc.perform(get("/workqueue/api/queues/orders?state=given-up"))
			.andReturn()
			.getResponse()
			.getContentAsString();
		String id = JsonPath.read(body, "$.items['given-up'][0].id");
		Principal ops = () -> "ops";
		String answer = this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/readd").principal(ops)
				.contentType(MediaType.APPLICATION_JSON)
				.content("{\"id\":\"" + id + "\"}"))
			.andExpect(status().isOk())
			.andReturn()
			.getResponse()
			.getContentAsString();
		assertThat(answer).doesNotContain("order-");
		assertThat(this.orders.texts(ItemState.READY)).contains("order-5");
		assertThat(output.getOut().lines().filter((line) -> line.contains("Console:")))
			.singleElement(InstanceOfAssertFactories.STRING)
			.endsWith("Console: given-up item id " + id + " added again to queue 'orders' by 'ops'");
	}

	private ResultActions act(String action, String body) throws Exception {
		return this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/" + action).contentType(MediaType.APPLICATION_JSON)
				.content(body));
	}

}

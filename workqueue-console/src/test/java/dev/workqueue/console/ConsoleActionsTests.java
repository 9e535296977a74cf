package dev.workqueue.console;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.spring.WorkQueueOperations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.mockito.BDDMockito.then;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console's actions when it is not read-only, without the application's security
 * filters. Each test changes the queues, so each has an application of its own.
 */
@SpringBootTest(classes = ConsoleTestApplication.class,
		properties = { "workqueue.console.enabled=true", "workqueue.console.read-only=false" })
@AutoConfigureMockMvc(addFilters = false)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
class ConsoleActionsTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private InspectedQueue orders;

	@MockitoSpyBean
	private WorkQueueOperations operations;

	@Test
	void pauseAndResumeTheQueue() throws Exception {
		act("orders", "pause", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(true));
		assertThat(this.orders.paused()).isTrue();
		this.mvc.perform(get("/workqueue/api/queues")).andExpect(jsonPath("$.queues[1].paused").value(true));
		act("orders", "resume", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(false));
		assertThat(this.orders.paused()).isFalse();
	}

	@Test
	void resumeAlsoResumesThisInstancesWorkersPausedThroughTheActuator() throws Exception {
		this.operations.setPaused("orders", true);
		this.operations.setPaused("plain", true);
		this.mvc.perform(get("/workqueue/api/queues"))
			.andExpect(jsonPath("$.queues[1].paused").value(true))
			.andExpect(jsonPath("$.queues[2].paused").value(true));
		act("orders", "resume", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(false));
		assertThat(this.operations.workers("orders").paused()).isFalse();
		// A queue without an inspector has only its workers to resume.
		act("plain", "resume", "").andExpect(status().isOk()).andExpect(jsonPath("$.paused").value(false));
		assertThat(this.operations.workers("plain").paused()).isFalse();
	}

	@Test
	void pauseNeedsAnInspector() throws Exception {
		act("plain", "pause", "").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("QueueInspector")));
	}

	@Test
	void concurrencySetsThisInstancesWorkers() throws Exception {
		act("plain", "concurrency", "{\"concurrency\":3}").andExpect(status().isOk())
			.andExpect(jsonPath("$.concurrency").value(3))
			.andExpect(jsonPath("$.instance").isString());
		this.mvc.perform(get("/workqueue/api/queues")).andExpect(jsonPath("$.queues[2].concurrency").value(3));
		act("plain", "concurrency", "{\"concurrency\":0}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("concurrency")));
		act("plain", "concurrency", "{\"concurrency\":\"many\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("concurrency")));
		act("orders", "concurrency", "{\"concurrency\":2}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("No worker serves queue 'orders'")));
	}

	@Test
	void addTurnsTextIntoAnItem() throws Exception {
		act("orders", "add", "{\"item\":\"order-new\"}").andExpect(status().isOk())
			.andExpect(jsonPath("$.depth").value(6));
		assertThat(this.orders.texts(ItemState.READY)).contains("order-new");
		act("opaque", "add", "{\"item\":\"x\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("codec")));
		act("orders", "add", "{}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("item")));
	}

	@Test
	void readdSendsAGivenUpItemThroughAgain() throws Exception {
		act("orders", "readd", "{\"item\":\"order-5\"}").andExpect(status().isOk())
			.andExpect(jsonPath("$.givenUp").value(1))
			.andExpect(jsonPath("$.depth").value(6));
		assertThat(this.orders.texts(ItemState.READY)).endsWith("order-5");
		assertThat(this.orders.forgotten()).containsExactly("order-5");
		then(this.operations).should().forget("orders", "order-5");
		act("orders", "readd", "{\"item\":\"order-5\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("no given-up item")));
	}

	@Test
	void readdLeavesTheRecordOfAGiveUpThatCameAfterItsAdd() throws Exception {
		this.orders.givesUpOnAdd(true);
		act("orders", "readd", "{\"item\":\"order-5\"}").andExpect(status().isOk())
			.andExpect(jsonPath("$.givenUp").value(2));
		assertThat(this.orders.find("order-5")).filteredOn((view) -> view.state() == ItemState.GIVEN_UP)
			.singleElement()
			.satisfies((view) -> assertThat(view.attempts()).isEqualTo(12));
	}

	@Test
	void readdFindsTheItemByItsId() throws Exception {
		String id = idOf("order-6");
		act("orders", "readd", "{\"id\":\"" + id + "\"}").andExpect(status().isOk());
		assertThat(this.orders.texts(ItemState.GIVEN_UP)).containsExactly("order-5");
		assertThat(this.orders.texts(ItemState.READY)).endsWith("order-6");
		act("orders", "readd", "{\"id\":\"nothing\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("id")));
	}

	@Test
	void deleteRemovesAGivenUpRecord() throws Exception {
		act("orders", "delete", "{\"id\":\"" + idOf("order-6") + "\"}").andExpect(status().isOk())
			.andExpect(jsonPath("$.givenUp").value(1));
		act("orders", "delete", "{\"item\":\"order-1\"}").andExpect(status().isBadRequest());
		act("orders", "delete", "{\"item\":\"order-5\",\"id\":\"x\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("one of item")));
	}

	@Test
	void forgetClearsAnItemsHistory() throws Exception {
		act("orders", "forget", "{\"item\":\"order-1\"}").andExpect(status().isOk());
		act("orders", "forget", "{\"id\":\"" + idOf("order-9") + "\"}").andExpect(status().isOk());
		assertThat(this.orders.forgotten()).containsExactly("order-1", "order-9");
		then(this.operations).should().forget("orders", "order-1");
		then(this.operations).should().forget("orders", "order-9");
	}

	@Test
	void anItemWhoseTextIsEmptyIsActedOnByItsText() throws Exception {
		this.orders.put("", ItemState.GIVEN_UP);
		act("orders", "forget", "{\"item\":\"\"}").andExpect(status().isOk());
		act("orders", "readd", "{\"item\":\"\"}").andExpect(status().isOk());
		assertThat(this.orders.texts(ItemState.READY)).endsWith("");
		assertThat(this.orders.forgotten()).containsExactly("", "");
		this.orders.put("", ItemState.GIVEN_UP);
		act("orders", "delete", "{\"item\":\"\"}").andExpect(status().isOk());
		assertThat(this.orders.texts(ItemState.GIVEN_UP)).doesNotContain("");
		// Adding takes what an operator types: an empty box adds nothing.
		act("orders", "add", "{\"item\":\"\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("item must be a non-empty string")));
	}

	@Test
	void readdThatCannotAddKeepsTheRecordAndAnswersServiceUnavailable() throws Exception {
		this.orders.addsFail(true);
		act("orders", "readd", "{\"item\":\"order-5\"}").andExpect(status().isServiceUnavailable())
			.andExpect(header().string("Cache-Control", "no-store"))
			.andExpect(jsonPath("$.error")
				.value("cannot run readd on queue 'orders': store out of reach while adding order-5"));
		assertThat(this.orders.texts(ItemState.GIVEN_UP)).containsExactly("order-5", "order-6");
		act("orders", "add", "{\"item\":\"order-new\"}").andExpect(status().isServiceUnavailable())
			.andExpect(jsonPath("$.error", containsString("cannot run add on queue 'orders'")));
		this.orders.addsFail(false);
		act("orders", "readd", "{\"item\":\"order-5\"}").andExpect(status().isOk());
		assertThat(this.orders.texts(ItemState.GIVEN_UP)).containsExactly("order-6");
		assertThat(this.orders.texts(ItemState.READY)).endsWith("order-5");
	}

	@Test
	void textTheCodecCannotReadIsABadRequestSayingWhy() throws Exception {
		act("orders", "forget", "{\"item\":\"unreadable-7\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value("item 'unreadable-7' cannot be read by queue 'orders': "
					+ "text cannot be decoded by the queue's codec: For input string: \"unreadable-7\""));
	}

	@Test
	void textThatCouldForgeALogLineIsEscapedWhereAnAnswerNamesIt() throws Exception {
		act("orders", "forget", "{\"item\":\"unreadable-\\nline\\u2028end\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value(startsWith("item 'unreadable-\\nline\\u2028end' cannot be read")));
	}

	@Test
	void anItemTheQueueRefusesIsABadRequestSayingWhy() throws Exception {
		act("orders", "add", "{\"item\":\"a\\u0000b\"}").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error").value(
					"queue 'orders' refused add: " + "item must not encode to text holding a NUL character (U+0000)"));
		assertThat(this.orders.texts(ItemState.READY)).noneMatch((text) -> text.contains("\0"));
	}

	@Test
	void actionWithoutAJsonContentTypeIsRefused() throws Exception {
		// A cross-site form or a body-less request that a browser sends without asking:
		// a browser names the page's origin.
		this.mvc.perform(post("/workqueue/api/queues/orders/actions/pause").header("Origin", "https://other.example"))
			.andExpect(status().isUnsupportedMediaType())
			.andExpect(header().string("Cache-Control", "no-store"))
			.andExpect(jsonPath("$.error", containsString("Content-Type: application/json")));
		this.mvc.perform(post("/workqueue/api/queues/orders/actions/add").content("{\"item\":\"order-new\"}"))
			.andExpect(status().isUnsupportedMediaType());
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/add").contentType(MediaType.TEXT_PLAIN)
				.content("{\"item\":\"order-new\"}"))
			.andExpect(status().isUnsupportedMediaType());
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/add").contentType(MediaType.APPLICATION_FORM_URLENCODED)
				.content("item=order-new"))
			.andExpect(status().isUnsupportedMediaType());
		assertThat(this.orders.paused()).isFalse();
		assertThat(this.orders.texts(ItemState.READY)).doesNotContain("order-new");
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/pause").contentType("application/json;charset=UTF-8"))
			.andExpect(status().isOk());
	}

	/** As curl or a test's client sends an action that takes no value. */
	@Test
	void actionWithNeitherBodyNorContentTypeNorOriginRuns() throws Exception {
		this.mvc.perform(post("/workqueue/api/queues/orders/actions/pause"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.paused").value(true));
		assertThat(this.orders.paused()).isTrue();
	}

	@Test
	void aBodyOverAMebibyteIsRefusedUnread() throws Exception {
		String item = "x".repeat(1 << 20);
		act("orders", "add", "{\"item\":\"" + item + "\"}").andExpect(status().isPayloadTooLarge())
			.andExpect(jsonPath("$.error", containsString("at most 1 MiB")));
		assertThat(this.orders.texts(ItemState.READY)).doesNotContain(item);
		String fits = "x".repeat((1 << 20) - 12);
		act("orders", "add", "{\"item\":\"" + fits + "\"}").andExpect(status().isOk());
	}

	@Test
	void unknownActionOrQueueIsNotFound() throws Exception {
		act("orders", "explode", "").andExpect(status().isNotFound())
			.andExpect(header().string("Cache-Control", "no-store"))
			.andExpect(jsonPath("$.error", containsString("explode")));
		act("nope", "pause", "").andExpect(status().isNotFound())
			.andExpect(jsonPath("$.error", containsString("nope")));
	}

	@Test
	void bodyThatIsNotAnObjectIsABadRequest() throws Exception {
		act("orders", "add", "[1,").andExpect(status().isBadRequest())
			.andExpect(header().string("Cache-Control", "no-store"))
			.andExpect(jsonPath("$.error", containsString("JSON object")));
		act("orders", "add", "[\"order-new\"]").andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString("JSON object")));
	}

	@Test
	void overviewShowsAnActionAtOnce() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues")).andExpect(jsonPath("$.queues[1].depth").value(5));
		act("orders", "add", "{\"item\":\"order-new\"}").andExpect(status().isOk());
		this.mvc.perform(get("/workqueue/api/queues"))
			.andExpect(jsonPath("$.queues[1].depth").value(6))
			.andExpect(jsonPath("$.queues[*].name", hasItem("orders")))
			.andExpect(jsonPath("$.queues[1]", not(hasKey("instance"))));
	}

	private String idOf(String text) throws Exception {
		String body = this.mvc.perform(get("/workqueue/api/queues/orders?find=" + text))
			.andReturn()
			.getResponse()
			.getContentAsString();
		return JsonPath.read(body, "$.found[0].id");
	}

	private ResultActions act(String queue, String action, String body) throws Exception {
		return this.mvc.perform(
				post("/workqueue/api/queues/" + queue + "/actions/" + action).contentType(MediaType.APPLICATION_JSON)
					.content(body));
	}

}

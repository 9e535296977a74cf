package dev.workqueue.console;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console's JSON API and page on a read-only console, without the application's
 * security filters.
 */
@SpringBootTest(classes = ConsoleTestApplication.class, properties = { "workqueue.console.enabled=true" })
@AutoConfigureMockMvc(addFilters = false)
class ConsoleApiTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private InspectedQueue orders;

	@Test
	void overviewListsEveryQueueWithItsFigures() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues"))
			.andExpect(status().isOk())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_JSON))
			.andExpect(header().string("Cache-Control", "no-store"))
			.andExpect(jsonPath("$.instance").value("host-1"))
			.andExpect(jsonPath("$.readOnly").value(true))
			.andExpect(jsonPath("$.showItems").value(true))
			.andExpect(jsonPath("$.time").isString())
			.andExpect(jsonPath("$.queues[*].name", contains("opaque", "orders", "plain")))
			.andExpect(jsonPath("$.queues[1].backend").value("memory"))
			.andExpect(jsonPath("$.queues[1].inspect").value(true))
			.andExpect(jsonPath("$.queues[1].depth").value(5))
			.andExpect(jsonPath("$.queues[1].processing").value(1))
			.andExpect(jsonPath("$.queues[1].waiting").value(1))
			.andExpect(jsonPath("$.queues[1].givenUp").value(2))
			.andExpect(jsonPath("$.queues[1].concurrency").value(0))
			.andExpect(jsonPath("$.queues[1].paused").value(false))
			.andExpect(jsonPath("$.queues[1].priority").value(false))
			.andExpect(jsonPath("$.queues[1].readsText").value(true))
			.andExpect(jsonPath("$.queues[1].longestRunningSeconds").value(2.5))
			.andExpect(jsonPath("$.queues[1].rates.intervalSeconds").value(10))
			.andExpect(jsonPath("$.queues[1].error").value(nullValue()))
			.andExpect(jsonPath("$.queues[1]", not(hasKey("items"))))
			.andExpect(jsonPath("$.queues[0].readsText").value(false));
	}

	@Test
	void queueWithoutInspectorShowsItsFiguresAndWorkers() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues"))
			.andExpect(jsonPath("$.queues[2].name").value("plain"))
			.andExpect(jsonPath("$.queues[2].inspect").value(false))
			.andExpect(jsonPath("$.queues[2].backend").value("unknown"))
			.andExpect(jsonPath("$.queues[2].depth").value(0))
			.andExpect(jsonPath("$.queues[2].concurrency").value(2))
			.andExpect(jsonPath("$.queues[2].givenUp").value(nullValue()));
		this.mvc.perform(get("/workqueue/api/queues/plain"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.inspect").value(false))
			.andExpect(jsonPath("$", not(hasKey("items"))));
	}

	@Test
	void queueListsItsItemsByState() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/orders"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.name").value("orders"))
			.andExpect(jsonPath("$.depth").value(5))
			.andExpect(jsonPath("$.items.ready[*].text",
					contains("order-1", "order-2", "order-3", "order-4", ConsoleTestApplication.SCRIPT)))
			.andExpect(jsonPath("$.items.ready[0].state").value("ready"))
			.andExpect(jsonPath("$.items.ready[0].at").value("2026-01-02T03:04:05Z"))
			.andExpect(jsonPath("$.items.ready[0].id").isString())
			.andExpect(jsonPath("$.items.processing[0].text").value("order-9"))
			.andExpect(jsonPath("$.items.processing[0].holder").value("host-1"))
			.andExpect(jsonPath("$.items.processing[0].leaseLeftMillis").value(3000))
			.andExpect(jsonPath("$.items.waiting[0].text").value("order-7"))
			.andExpect(jsonPath("$.items['given-up'][*].text", contains("order-5", "order-6")))
			.andExpect(jsonPath("$.items['given-up'][0].attempts").value(11))
			.andExpect(jsonPath("$.items['given-up'][0].reason").value(InspectedQueue.reason("order-5")))
			.andExpect(jsonPath("$", not(hasKey("found"))));
	}

	@Test
	void itemKeepsItsIdAcrossRequests() throws Exception {
		String first = this.mvc.perform(get("/workqueue/api/queues/orders"))
			.andReturn()
			.getResponse()
			.getContentAsString();
		String id = com.jayway.jsonpath.JsonPath.read(first, "$.items.ready[0].id");
		this.mvc.perform(get("/workqueue/api/queues/orders?find=order-1"))
			.andExpect(jsonPath("$.found[0].id").value(id))
			.andExpect(jsonPath("$.items.ready[1].id").value(not(id)));
	}

	@Test
	void stateAndOffsetPageOneList() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/orders?state=ready&offset=1&limit=2"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.items.ready[*].text", contains("order-2", "order-3")))
			.andExpect(jsonPath("$.items", not(hasKey("processing"))))
			.andExpect(jsonPath("$.items", not(hasKey("given-up"))));
		this.mvc.perform(get("/workqueue/api/queues/orders?limit=1"))
			.andExpect(jsonPath("$.items.ready", hasSize(1)))
			.andExpect(jsonPath("$.items['given-up']", hasSize(1)));
	}

	@Test
	void findLooksAnItemUpByItsText() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/orders?find=order-5"))
			.andExpect(jsonPath("$.found", hasSize(1)))
			.andExpect(jsonPath("$.found[0].text").value("order-5"))
			.andExpect(jsonPath("$.found[0].state").value("given-up"));
		this.mvc.perform(get("/workqueue/api/queues/orders?find=nothing")).andExpect(jsonPath("$.found", hasSize(0)));
	}

	@Test
	void badParametersAreRefusedNamingThem() throws Exception {
		expectBadRequest("limit=0", "limit");
		expectBadRequest("limit=501", "limit");
		expectBadRequest("limit=ten", "limit");
		expectBadRequest("offset=-1", "offset");
		expectBadRequest("state=waiting&offset=9951", "offset");
		expectBadRequest("state=done", "state");
	}

	private void expectBadRequest(String query, String parameter) throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/orders?" + query))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.error", containsString(parameter)));
	}

	@Test
	void itemsThatCannotBeReadAnswerServiceUnavailable() throws Exception {
		this.orders.itemsUnreachable(true);
		try {
			this.mvc.perform(get("/workqueue/api/queues/orders"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(jsonPath("$.error").value("cannot read the items of queue 'orders': store out of reach"));
		}
		finally {
			this.orders.itemsUnreachable(false);
		}
	}

	@Test
	void unknownQueueIsNotFound() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/nope"))
			.andExpect(status().isNotFound())
			.andExpect(jsonPath("$.error", containsString("nope")));
	}

	@Test
	void itemTextIsSentAsJsonOnly() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues/orders?state=ready"))
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_JSON))
			.andExpect(jsonPath("$.items.ready[4].text").value(ConsoleTestApplication.SCRIPT));
		this.mvc.perform(get("/workqueue/queues/orders"))
			.andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_HTML))
			.andExpect(content().string(not(containsString("<script>alert"))));
	}

	@Test
	void everyActionIsRefusedOnAReadOnlyConsole() throws Exception {
		for (String action : ConsoleActions.NAMES) {
			this.mvc
				.perform(post("/workqueue/api/queues/orders/actions/" + action).contentType(MediaType.APPLICATION_JSON)
					.content("{\"item\":\"order-5\",\"concurrency\":2}"))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.error", containsString("workqueue.console.read-only")));
		}
		this.mvc.perform(get("/workqueue/api/queues/orders"))
			.andExpect(jsonPath("$.depth").value(5))
			.andExpect(jsonPath("$.givenUp").value(2))
			.andExpect(jsonPath("$.paused").value(false));
	}

	@Test
	void everyActionIsRefusedOnAReadOnlyConsoleWhateverItsBody() throws Exception {
		for (String action : ConsoleActions.NAMES) {
			for (MockHttpServletRequestBuilder request : new MockHttpServletRequestBuilder[] {
					post("/workqueue/api/queues/orders/actions/" + action),
					post("/workqueue/api/queues/orders/actions/" + action)
						.contentType(MediaType.APPLICATION_FORM_URLENCODED)
						.content("item=order-5&concurrency=2"),
					post("/workqueue/api/queues/orders/actions/" + action).contentType(MediaType.TEXT_PLAIN)
						.content("order-5"),
					post("/workqueue/api/queues/orders/actions/" + action).contentType(MediaType.TEXT_PLAIN),
					post("/workqueue/api/queues/orders/actions/" + action).header("Content-Type", "not a type"),
					post("/workqueue/api/queues/orders/actions/" + action).contentType(MediaType.APPLICATION_JSON)
						.content("[1,") }) {
				this.mvc.perform(request)
					.andExpect(status().isForbidden())
					.andExpect(header().string("Cache-Control", "no-store"))
					.andExpect(jsonPath("$.error", containsString("workqueue.console.read-only")));
			}
		}
		this.mvc.perform(get("/workqueue/api/queues/orders"))
			.andExpect(jsonPath("$.depth").value(5))
			.andExpect(jsonPath("$.givenUp").value(2))
			.andExpect(jsonPath("$.paused").value(false));
	}

	@Test
	void pageCarriesTheBasePath() throws Exception {
		for (String page : new String[] { "/workqueue", "/workqueue/queues/orders" }) {
			this.mvc.perform(get(page).contextPath("").accept(MediaType.TEXT_HTML))
				.andExpect(status().isOk())
				.andExpect(header().string("Cache-Control", "no-store"))
				.andExpect(content().string(containsString("<meta name=\"workqueue-base\" content=\"/workqueue\">")))
				.andExpect(content().string(containsString("<meta name=\"workqueue-csrf-token\" content=\"\">")));
		}
	}

	@Test
	void pageBaseIncludesTheContextPathEscaped() throws Exception {
		this.mvc.perform(get("/a&b/workqueue").contextPath("/a&b").accept(MediaType.TEXT_HTML))
			.andExpect(status().isOk())
			.andExpect(content().string(containsString("content=\"/a&amp;b/workqueue\"")));
	}

}

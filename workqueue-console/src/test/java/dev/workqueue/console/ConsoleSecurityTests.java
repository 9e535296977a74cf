package dev.workqueue.console;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.web.util.HtmlUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The console behind Spring Security's default filter chain (Boot's auto-configuration,
 * with no rule of the console's own): the application's rules and CSRF protection apply.
 */
@SpringBootTest(classes = ConsoleTestApplication.class, properties = { "workqueue.console.enabled=true" })
@AutoConfigureMockMvc
class ConsoleSecurityTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void anonymousReadGetsNoData() throws Exception {
		for (String path : new String[] { "/workqueue/api/queues", "/workqueue/api/queues/orders", "/workqueue" }) {
			MvcResult result = this.mvc.perform(get(path)).andReturn();
			assertThat(result.getResponse().getStatus()).as(path).isIn(401, 302);
			assertThat(result.getResponse().getContentAsString()).as(path).doesNotContain("orders", "order-");
		}
	}

	@Test
	void loggedInReadGetsData() throws Exception {
		this.mvc.perform(get("/workqueue/api/queues").with(user("ops")))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.queues[1].name").value("orders"));
	}

	@Test
	void postWithoutCsrfTokenIsRefusedBySecurity() throws Exception {
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/pause").with(user("ops"))
				.contentType(MediaType.APPLICATION_JSON)
				.content("{}"))
			.andExpect(status().isForbidden())
			.andExpect(content().string(not(containsString("workqueue.console.read-only"))));
	}

	@Test
	void postWithCsrfTokenReachesTheReadOnlyConsole() throws Exception {
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/pause").with(user("ops"))
				.with(csrf())
				.contentType(MediaType.APPLICATION_JSON)
				.content("{}"))
			.andExpect(status().isForbidden())
			.andExpect(jsonPath("$.error").value(ConsoleApiController.READ_ONLY));
	}

	@Test
	void tokenInThePageIsAcceptedForAnAction() throws Exception {
		MockHttpSession session = new MockHttpSession();
		String page = this.mvc.perform(get("/workqueue").session(session).with(user("ops")).accept(MediaType.TEXT_HTML))
			.andReturn()
			.getResponse()
			.getContentAsString();
		Matcher token = Pattern.compile("<meta name=\"workqueue-csrf-token\" content=\"([^\"]+)\">").matcher(page);
		assertThat(token.find()).isTrue();
		this.mvc
			.perform(post("/workqueue/api/queues/orders/actions/pause").session(session)
				.with(user("ops"))
				.header("X-CSRF-TOKEN", HtmlUtils.htmlUnescape(token.group(1)))
				.contentType(MediaType.APPLICATION_JSON)
				.content("{}"))
			.andExpect(status().isForbidden())
			.andExpect(jsonPath("$.error").value(ConsoleApiController.READ_ONLY));
	}

	@Test
	void pageCarriesTheCsrfToken() throws Exception {
		this.mvc.perform(get("/workqueue").with(user("ops")).accept(MediaType.TEXT_HTML))
			.andExpect(status().isOk())
			.andExpect(
					content().string(containsString("<meta name=\"workqueue-csrf-header\" content=\"X-CSRF-TOKEN\">")))
			.andExpect(content().string(
					matchesPattern("(?s).*<meta name=\"workqueue-csrf-token\" content=\"[A-Za-z0-9_=-]{20,}\">.*")));
	}

}

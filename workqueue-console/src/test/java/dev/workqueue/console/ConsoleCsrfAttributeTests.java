package dev.workqueue.console;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.XorCsrfTokenRequestAttributeHandler;
import org.springframework.test.web.servlet.MockMvc;

import static org.hamcrest.Matchers.matchesPattern;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The page's CSRF token where the application's security puts it under a request
 * attribute name of its own: the console reads it under the name Spring Security always
 * sets as well.
 */
@SpringBootTest(classes = { ConsoleTestApplication.class, ConsoleCsrfAttributeTests.RenamedAttribute.class },
		properties = { "workqueue.console.enabled=true" })
@AutoConfigureMockMvc
class ConsoleCsrfAttributeTests {

	@Autowired
	private MockMvc mvc;

	@Test
	void pageCarriesTheTokenUnderARenamedAttribute() throws Exception {
		this.mvc.perform(get("/workqueue").with(user("ops")).accept(MediaType.TEXT_HTML))
			.andExpect(status().isOk())
			.andExpect(content().string(
					matchesPattern("(?s).*<meta name=\"workqueue-csrf-token\" content=\"[A-Za-z0-9_=-]{20,}\">.*")));
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class RenamedAttribute {

		@Bean
		SecurityFilterChain renamedCsrfAttribute(HttpSecurity http) throws Exception {
			XorCsrfTokenRequestAttributeHandler handler = new XorCsrfTokenRequestAttributeHandler();
			handler.setCsrfRequestAttributeName("appCsrf");
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.csrfTokenRequestHandler(handler))
				.build();
		}

	}

}

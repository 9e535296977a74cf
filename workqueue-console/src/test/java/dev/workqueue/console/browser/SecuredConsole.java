package dev.workqueue.console.browser;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * An application's own security rules, as the console meets them: every request needs a
 * signed-in user (a login form), and CSRF protection stays on.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
class SecuredConsole {

	static final String USER = "operator";

	static final String PASSWORD = "secret";

	@Bean
	SecurityFilterChain rules(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.formLogin(Customizer.withDefaults())
			.build();
	}

	@Bean
	InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(
				User.withUsername(USER).password("{noop}" + PASSWORD).roles("OPERATOR").build());
	}

}

package dev.workqueue.console;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;

/**
 * Reads the CSRF token Spring Security puts in a request. Loaded only when Spring
 * Security is on the class path.
 */
final class CsrfTokens {

	/**
	 * The request attribute under which Spring Security's filter always puts the token:
	 * the other one it sets, {@code _csrf} by default, an application may rename.
	 */
	static final String ATTRIBUTE = CsrfToken.class.getName();

	private CsrfTokens() {
	}

	/**
	 * Returns the request's CSRF token.
	 * @param request the request
	 * @return the header to send it in and its value, {@code null} without one
	 */
	static @Nullable Token of(HttpServletRequest request) {
		if (request.getAttribute(ATTRIBUTE) instanceof CsrfToken token) {
			return new Token(token.getHeaderName(), token.getToken());
		}
		return null;
	}

	/**
	 * A CSRF token.
	 *
	 * @param header the header to send it in
	 * @param token its value
	 */
	record Token(String header, String token) {

	}

}

package dev.workqueue.console.browser;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where a browser can be had ({@link Browser#available()}). Where
 * none can, the class is skipped with one loud line per run, or fails when the browser
 * tests are required ({@code -Dworkqueue.browser.required=true} or
 * {@code WORKQUEUE_BROWSER_REQUIRED=true}, as CI sets).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresBrowser.Condition.class)
@interface RequiresBrowser {

	/** The condition behind the annotation. */
	final class Condition implements ExecutionCondition {

		private static final AtomicBoolean warned = new AtomicBoolean();

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (Browser.available()) {
				return ConditionEvaluationResult.enabled("chromium and chromedriver are on the PATH");
			}
			String why = "No browser: chromium and chromedriver are not both on the PATH (Debian: apt-get install chromium chromium-driver)";
			if (Browser.required()) {
				throw new IllegalStateException(why + ", and the browser tests are required ("
						+ Browser.REQUIRED_PROPERTY + " / WORKQUEUE_BROWSER_REQUIRED)");
			}
			if (warned.compareAndSet(false, true)) {
				System.err.println("*** SKIPPING THE BROWSER TESTS: " + why + " ***");
			}
			return ConditionEvaluationResult.disabled(why);
		}

	}

}

package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidWorkQueuePropertiesException} as a start-up failure: every
 * invalid {@code workqueue.*} key, one per line, and what to do about it.
 */
class InvalidWorkQueuePropertiesFailureAnalyzer extends AbstractFailureAnalyzer<InvalidWorkQueuePropertiesException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidWorkQueuePropertiesException cause) {
		StringBuilder description = new StringBuilder("Invalid workqueue properties:\n");
		cause.getProblems().forEach((problem) -> description.append("\n    - ").append(problem));
		return new FailureAnalysis(description.toString(),
				"Update your application's configuration: give each workqueue property listed above a valid value, "
						+ "or remove it to use its default.",
				cause);
	}

}

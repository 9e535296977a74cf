package dev.workqueue.spring.diagnostics;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;

/**
 * A {@link FailureAnalysisReporter} (registered in the tests' {@code spring.factories})
 * that hands a test the failure analyses Boot reports while it starts an application, so
 * that a test expecting a start-up failure can check the report without Boot's logging
 * reporter printing an "APPLICATION FAILED TO START" banner into a passing build.
 * <p>
 * Boot reports on the thread that called {@code SpringApplication.run}, so the analyses
 * are kept per thread: tests running at the same time never see each other's.
 */
public final class RecordingFailureAnalysisReporter implements FailureAnalysisReporter {

	/**
	 * The argument that silences Boot's own reporter for one application run (its
	 * logger's level, applied when the run initializes logging).
	 */
	public static final String SILENCE_LOGGING_REPORTER = "--logging.level.org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter=off";

	private static final ThreadLocal<List<FailureAnalysis>> recording = new ThreadLocal<>();

	@Override
	public void report(FailureAnalysis analysis) {
		List<FailureAnalysis> analyses = recording.get();
		if (analyses != null) {
			analyses.add(analysis);
		}
	}

	/**
	 * Runs the action and returns the analyses reported on this thread meanwhile.
	 * @param action what starts the application
	 * @return the analyses, in the order they were reported
	 */
	public static List<FailureAnalysis> reportedWhile(Runnable action) {
		List<FailureAnalysis> analyses = new ArrayList<>();
		recording.set(analyses);
		try {
			action.run();
		}
		finally {
			recording.remove();
		}
		return analyses;
	}

}

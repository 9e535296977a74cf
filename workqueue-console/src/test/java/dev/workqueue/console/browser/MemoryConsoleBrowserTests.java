package dev.workqueue.console.browser;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The console of a memory queue, in a real browser.
 */
class MemoryConsoleBrowserTests extends ConsoleBrowserContract {

	private static ConsoleApp app;

	@BeforeAll
	static void startApp() {
		app = ConsoleApp.start("workqueue.console.read-only=false");
	}

	@AfterAll
	static void stopApp() {
		if (app != null) {
			app.close();
		}
	}

	@Override
	String backend() {
		return "memory";
	}

	@Override
	List<ConsoleApp> instances() {
		return List.of(app);
	}

}

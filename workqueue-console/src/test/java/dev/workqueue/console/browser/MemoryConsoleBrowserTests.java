package dev.workqueue.console.browser;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

	@Test
	void anAddressWithAMalformedEscapeSaysThereIsNoSuchQueue() {
		// The web server refuses such an address, so it comes through the history as a
		// proxy or another server might let it through.
		this.page.overview(app);
		this.page.script("history.pushState(null, '', arguments[0] + '/queues/%FF');"
				+ " window.dispatchEvent(new PopStateEvent('popstate'));", ConsolePage.PATH);
		assertThat(this.page.awaitAlert("404")).contains("No queue named '%FF'");
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

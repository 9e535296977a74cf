package dev.workqueue.console.browser;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.support.ui.ExpectedConditions;

import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console of a memory queue, in a real browser.
 */
class MemoryConsoleBrowserTests extends ConsoleBrowserContract {

	/** A second queue, without workers. */
	private static final String OTHER = "other";

	private static ConsoleApp app;

	@BeforeAll
	static void startApp() {
		app = ConsoleApp.start("workqueue.console.read-only=false", "workqueue.queues." + OTHER + ".concurrency=1");
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

	/**
	 * An action's answer brings the figures of the queue it ran on: it shows on that
	 * queue's page only, never on the page the operator went on to while it was under
	 * way.
	 */
	@Test
	void anActionsAnswerThatComesAfterTheOperatorMovedOnLeavesTheNewPageAlone() {
		this.page.queue(app, OTHER);
		// Answers to actions are held in the page until the test lets them through; every
		// text jobs' paused figure shows is recorded.
		this.page.script("""
				const fetched = window.fetch;
				let release;
				const held = new Promise((resolve) => release = resolve);
				window.releaseAnswers = release;
				window.fetch = (url, init) => (init?.method === 'POST')
					? fetched(url, init).then(async (response) => {
						await held;
						// Marked once the page has read the answer and done what it does with it.
						const json = response.json.bind(response);
						response.json = () => json().then((body) => {
							setTimeout(() => window.answered = true);
							return body;
						});
						return response;
					})
					: fetched(url, init);
				window.pausedShown = [];
				new MutationObserver(() => {
					const paused = document.querySelector('[data-queue="jobs"] [data-field="paused"]');
					if (paused) window.pausedShown.push(paused.textContent);
				}).observe(document.body, { subtree: true, childList: true, characterData: true });
				""");
		QueueInspector other = app.queue(OTHER).capability(QueueInspector.class).orElseThrow();
		try {
			this.page.script(
					"document.querySelector(`[data-queue='${arguments[0]}'] button[data-action='pause']`).click();",
					OTHER);
			this.page.script("history.pushState(null, '', arguments[0] + '/queues/jobs');"
					+ " window.dispatchEvent(new PopStateEvent('popstate'));", ConsolePage.PATH);
			this.page.within(Duration.ofSeconds(10))
				.until(ExpectedConditions.presenceOfElementLocated(
						By.cssSelector("html[data-loaded='true'] [data-queue='jobs'] [data-field='paused']")));
			this.page.script("window.releaseAnswers();");
			this.page.within(Duration.ofSeconds(10))
				.until((d) -> Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript("return window.answered")));
			assertThat(other.paused()).as("the action ran").isTrue();
			assertThat(this.page.<List<String>>scriptValue("return window.pausedShown"))
				.as("jobs' paused figure, each time it changed")
				.doesNotContain("true");
		}
		finally {
			other.resume();
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

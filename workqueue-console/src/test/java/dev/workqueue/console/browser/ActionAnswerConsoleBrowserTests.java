package dev.workqueue.console.browser;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;

import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An action's answer brings the figures of the queue it ran on: it shows on that queue's
 * page only, never on the page the operator went on to while it was under way.
 */
@RequiresBrowser
class ActionAnswerConsoleBrowserTests {

	private static ChromeDriver driver;

	private static ConsoleApp app;

	@BeforeAll
	static void start() {
		app = ConsoleApp.start("workqueue.console.read-only=false", "workqueue.queues.other.concurrency=1");
		driver = Browser.open();
	}

	@AfterAll
	static void stop() {
		if (driver != null) {
			driver.quit();
		}
		if (app != null) {
			app.close();
		}
	}

	@Test
	void anAnswerThatComesAfterTheOperatorMovedOnLeavesTheNewPageAlone() {
		ConsolePage page = new ConsolePage(driver).queue(app);
		// Answers to actions are held in the page until the test lets them through; every
		// text the other queue's paused figure shows is recorded.
		page.script("""
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
					const paused = document.querySelector('[data-queue="other"] [data-field="paused"]');
					if (paused) window.pausedShown.push(paused.textContent);
				}).observe(document.body, { subtree: true, childList: true, characterData: true });
				""");
		page.click("pause");
		page.script("history.pushState(null, '', arguments[0] + '/queues/other');"
				+ " window.dispatchEvent(new PopStateEvent('popstate'));", ConsolePage.PATH);
		page.within(Duration.ofSeconds(10))
			.until(ExpectedConditions.presenceOfElementLocated(
					By.cssSelector("html[data-loaded='true'] [data-queue='other'] [data-field='paused']")));
		page.script("window.releaseAnswers();");
		page.within(Duration.ofSeconds(10))
			.until((d) -> Boolean.TRUE.equals(((ChromeDriver) d).executeScript("return window.answered === true")));
		assertThat(app.queue().capability(QueueInspector.class).orElseThrow().paused()).as("the action ran").isTrue();
		@SuppressWarnings("unchecked")
		List<String> shown = (List<String>) driver.executeScript("return window.pausedShown");
		assertThat(shown).as("the other queue's paused figure, each time it changed").doesNotContain("true");
	}

}

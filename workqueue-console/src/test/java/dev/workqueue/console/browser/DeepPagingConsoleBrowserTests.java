package dev.workqueue.console.browser;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A list longer than the deepest page the console serves
 * ({@link QueueInspector#MAX_DEPTH} items in): the page goes as deep as that and no
 * deeper, where a page beyond would be refused and the page would stop following the
 * queue. An application of its own, so that its ten thousand waiting items stay out of
 * the other tests' lists.
 */
@RequiresBrowser
class DeepPagingConsoleBrowserTests {

	private static ChromeDriver driver;

	private static ConsoleApp app;

	@BeforeAll
	static void start() {
		driver = Browser.open();
		app = ConsoleApp.start();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		if (driver != null) {
			driver.quit();
		}
	}

	@Test
	void theDeepestPageServedHasNoNextPage() {
		int pageSize = 50;
		for (int i = 0; i < QueueInspector.MAX_DEPTH + pageSize; i++) {
			app.queue().addAfter("deep-" + i, Duration.ofHours(2).plusSeconds(i));
		}
		ConsolePage page = new ConsolePage(driver);
		page.queue(app);
		page.awaitItem("waiting", "deep-0");
		page.turn("next-waiting");
		page.awaitItem("waiting", "deep-50");
		// On to the page before the deepest one served, at once rather than a click a
		// page.
		page.script(
				"const next = document.querySelector(\"button[data-page='next-waiting']\");"
						+ " for (let i = 0; i < arguments[0]; i++) next.click();",
				QueueInspector.MAX_DEPTH / pageSize - 3);
		page.awaitItem("waiting", "deep-" + (QueueInspector.MAX_DEPTH - 2 * pageSize));
		page.turn("next-waiting");
		page.awaitItem("waiting", "deep-" + (QueueInspector.MAX_DEPTH - pageSize));
		page.within(Duration.ofSeconds(3))
			.withMessage("the next page, beyond the deepest served, offered")
			.until((ignored) -> !driver.findElement(By.cssSelector("button[data-page='next-waiting']")).isEnabled());
		assertThat(page.alert()).isEmpty();
	}

}

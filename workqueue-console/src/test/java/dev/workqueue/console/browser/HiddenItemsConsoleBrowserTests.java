package dev.workqueue.console.browser;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console with {@code workqueue.console.show-items=false}: items are listed by an
 * opaque id instead of their text, and an action still names its item.
 */
@RequiresBrowser
class HiddenItemsConsoleBrowserTests {

	private static final String SECRET = "fail-once:secret-customer-4711";

	private static ChromeDriver driver;

	private static ConsoleApp app;

	@BeforeAll
	static void start() {
		app = ConsoleApp.start("workqueue.console.read-only=false", "workqueue.console.show-items=false");
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
	void itemsAreListedByIdWithoutTheirTextAndAGivenUpOneIsReaddedById() {
		app.queue().add(SECRET);
		await().atMost(Duration.ofSeconds(5)).until(() -> app.worker().calls(SECRET) == 1);
		ConsolePage page = new ConsolePage(driver).queue(app);
		WebElement item = page.within(Duration.ofSeconds(5))
			.until((d) -> d.findElements(By.cssSelector("[data-state='given-up'][data-item-id]"))
				.stream()
				.findFirst()
				.orElse(null));
		assertThat(item.getDomAttribute("data-item")).isNull();
		assertThat(driver.findElements(By.cssSelector("[data-item]"))).isEmpty();
		// The reason is the worker's exception message, which names the item here: only
		// the
		// item's own cell is checked.
		assertThat(item.findElement(By.cssSelector("code.item")).getText()).doesNotContain("secret-customer")
			.isEqualTo("#" + item.getDomAttribute("data-item-id"));
		String id = item.getDomAttribute("data-item-id");
		page.find(SECRET);
		WebElement found = page.awaitFound(id);
		assertThat(found.getDomAttribute("data-item-id")).isNull();
		assertThat(driver.findElements(By.cssSelector("[data-item-id='" + id + "']"))).hasSize(1);
		item.findElement(By.cssSelector("button[data-action='readd']")).click();
		await().atMost(Duration.ofSeconds(5)).until(() -> app.worker().calls(SECRET) == 2);
		page.within(Duration.ofSeconds(3))
			.until((d) -> d.findElements(By.cssSelector("[data-item-id='" + id + "']")).isEmpty());
		assertThat(page.alert()).isEmpty();
	}

}

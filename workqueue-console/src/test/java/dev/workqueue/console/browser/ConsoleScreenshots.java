package dev.workqueue.console.browser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.awaitility.Awaitility.await;

/**
 * Takes the screenshots of {@code docs/console.md} in a real browser, into the folder
 * that {@code -Dworkqueue.console.screenshots=
 *
<dir>
 * } names; off otherwise. From the root:
 * {@code mvn -pl workqueue-console -am test -Dtest=ConsoleScreenshots
 * -Dsurefire.failIfNoSpecifiedTests=false -Dworkqueue.console.screenshots=$PWD/docs/images}.
 */
@RequiresBrowser
@EnabledIfSystemProperty(named = "workqueue.console.screenshots", matches = ".+")
class ConsoleScreenshots {

	@Test
	void takeTheScreenshotsOfTheGuide() throws IOException {
		Path folder = Path.of(System.getProperty("workqueue.console.screenshots"));
		Files.createDirectories(folder);
		ChromeDriver driver = Browser.open();
		try (ConsoleApp app = ConsoleApp.start("workqueue.console.read-only=false",
				"workqueue.queues.emails.concurrency=2", "workqueue.queues.reports.concurrency=1")) {
			driver.manage().window().setSize(new Dimension(1200, 760));
			for (int i = 1; i <= 3; i++) {
				app.queue().add("fail-once:invoice-" + i);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> app.worker().calls("fail-once:invoice-3") == 1);
			app.queue().add("hold:order-1042");
			for (int i = 1043; i <= 1046; i++) {
				app.queue().add("order-" + i);
			}
			app.queue().addAfter("order-1047", Duration.ofMinutes(5));
			app.queue().addAfter("order-1048", Duration.ofMinutes(12));
			ConsolePage page = new ConsolePage(driver);
			page.overview(app);
			page.within(Duration.ofSeconds(5)).until((d) -> page.figure("processing").equals("1"));
			save(driver, folder.resolve("console-overview.png"));
			page.queue(app);
			page.awaitItem("given-up", "fail-once:invoice-1");
			page.awaitItem("processing", "hold:order-1042");
			save(driver, folder.resolve("console-queue.png"));
			driver.findElement(By.id("find")).sendKeys("hold:order-1042");
			driver.findElement(By.cssSelector("form.find button")).click();
			page.within(Duration.ofSeconds(5))
				.until((d) -> !d.findElements(By.cssSelector(".found [data-item]")).isEmpty());
			driver.executeScript("window.scrollTo(0, 0)");
			save(driver, folder.resolve("console-find.png"));
		}
		finally {
			driver.quit();
		}
	}

	private static void save(ChromeDriver driver, Path file) throws IOException {
		Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
	}

}

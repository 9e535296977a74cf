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
				"workqueue.queues.jobs.concurrency=2", "workqueue.queues.emails.concurrency=2",
				"workqueue.queues.reports.concurrency=1")) {
			driver.manage().window().setSize(new Dimension(1200, 760));
			for (int i = 1; i <= 3; i++) {
				app.queue().add("fail-once:invoice-" + i);
			}
			ConsolePage page = new ConsolePage(driver);
			page.overview(app);
			// The rates are sampled every 10 s: a few rounds of adds and retries draw the
			// chart.
			for (int round = 1; round <= 4; round++) {
				for (int i = 0; i < round * 10; i++) {
					app.queue().addAfter("report-" + round + "-" + i, Duration.ofMillis(10 * i));
					app.queue().addRateLimited("retry-" + round + "-" + i % (5 - round));
				}
				int points = round;
				page.within(Duration.ofSeconds(15))
					.until((d) -> java.util.Arrays
						.stream(page.queueElement()
							.findElement(By.cssSelector("polyline.adds"))
							.getDomAttribute("points")
							.split(" +"))
						.filter((point) -> !point.isEmpty())
						.count() >= points);
			}
			app.queue().add("hold:order-1041");
			app.queue().add("hold:order-1042");
			await().atMost(Duration.ofSeconds(5)).until(() -> app.worker().calls("hold:order-1042") == 1);
			for (int i = 1043; i <= 1046; i++) {
				app.queue().add("order-" + i);
			}
			app.queue().addAfter("order-1047", Duration.ofMinutes(5));
			app.queue().addAfter("order-1048", Duration.ofMinutes(12));
			page.within(Duration.ofSeconds(5)).until((d) -> page.figure("depth").equals("4"));
			save(driver, folder.resolve("console-overview.png"));
			driver.manage().window().setSize(new Dimension(1200, 1400));
			page.queue(app);
			page.awaitItem("given-up", "fail-once:invoice-1");
			page.awaitItem("processing", "hold:order-1042");
			save(driver, folder.resolve("console-queue.png"));
			driver.manage().window().setSize(new Dimension(1200, 760));
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

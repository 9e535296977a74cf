package dev.workqueue.console.browser;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console of an application with Spring Security, left read-only (the default): a
 * signed-in user's every action is refused by the console itself (the page holds a valid
 * CSRF token), and an anonymous browser gets no data.
 */
@RequiresBrowser
class ReadOnlyConsoleBrowserTests {

	private static final String GIVEN_UP = "fail-once:read-only";

	private static ChromeDriver driver;

	private static ConsoleApp app;

	private final ConsolePage page = new ConsolePage(driver);

	@BeforeAll
	static void start() {
		app = ConsoleApp.secured();
		driver = Browser.open();
		app.queue().add(GIVEN_UP);
		await().atMost(Duration.ofSeconds(5)).until(() -> app.worker().calls(GIVEN_UP) == 1);
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
	void everyActionIsRefusedNamingTheProperty() {
		signIn();
		this.page.queue(app);
		this.page.awaitItem("given-up", GIVEN_UP);
		assertThat(driver.findElement(By.cssSelector("meta[name='workqueue-csrf-token']")).getDomAttribute("content"))
			.isNotBlank();
		refused("pause", () -> this.page.click("pause"));
		refused("resume", () -> this.page.click("resume"));
		refused("concurrency", () -> this.page.enterAndClick("concurrency", "3"));
		refused("add", () -> this.page.enterAndClick("add", "added-while-read-only"));
		for (String action : new String[] { "readd", "delete", "forget" }) {
			refused(action, () -> this.page.clickItem("given-up", GIVEN_UP, action));
		}
		assertThat(this.page.figure("paused")).isEqualTo("false");
		assertThat(this.page.figure("concurrency")).isEqualTo("1");
		assertThat(this.page.items("given-up", GIVEN_UP)).hasSize(1);
		assertThat(app.worker().calls(GIVEN_UP)).isEqualTo(1);
		assertThat(app.worker().calls("added-while-read-only")).isZero();
	}

	private void refused(String action, Runnable click) {
		click.run();
		String alert = this.page.awaitAlert(action + " on jobs refused");
		assertThat(alert).contains("403").contains("workqueue.console.read-only");
	}

	@Test
	void anAnonymousBrowserGetsNoData() throws Exception {
		driver.manage().deleteAllCookies();
		driver.get(app.url(ConsolePage.PATH + "/api/queues"));
		assertThat(driver.getCurrentUrl()).endsWith("/login");
		assertThat(driver.getPageSource()).doesNotContain("\"queues\"").doesNotContain(GIVEN_UP);
		driver.get(app.url(ConsolePage.PATH));
		assertThat(driver.getCurrentUrl()).endsWith("/login");
		assertThat(driver.findElements(By.cssSelector("[data-queue]"))).isEmpty();
		HttpResponse<String> api = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create(app.url(ConsolePage.PATH + "/api/queues/jobs"))).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(api.statusCode()).isNotEqualTo(200);
		assertThat(api.body()).doesNotContain(GIVEN_UP);
	}

	private void signIn() {
		driver.manage().deleteAllCookies();
		driver.get(app.url("/login"));
		driver.findElement(By.name("username")).sendKeys(SecuredConsole.USER);
		driver.findElement(By.name("password")).sendKeys(SecuredConsole.PASSWORD);
		driver.findElement(By.cssSelector("button[type='submit']")).click();
		this.page.within(Duration.ofSeconds(5)).until((driver) -> !driver.getCurrentUrl().endsWith("/login"));
	}

}

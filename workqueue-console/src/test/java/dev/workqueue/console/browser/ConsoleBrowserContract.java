package dev.workqueue.console.browser;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a person sees and does in the console, in a real browser, on one backend: a
 * subclass starts the instances (two of a shared queue where the backend shares one). One
 * browser serves every test of a class.
 */
@RequiresBrowser
abstract class ConsoleBrowserContract {

	/** The page's figures and the Actuator's names for them. */
	private static final Map<String, String> FIGURES = Map.of("depth", "depth", "processing", "processing", "waiting",
			"waiting", "given-up", "givenUp", "concurrency", "concurrency", "paused", "paused");

	private static ChromeDriver driver;

	ConsolePage page;

	@BeforeAll
	static void openBrowser() {
		driver = Browser.open();
	}

	@AfterAll
	static void closeBrowser() {
		if (driver != null) {
			driver.quit();
		}
	}

	/** The backend's name as the page shows it. */
	abstract String backend();

	/** The running instances of the queue: one, or two that share it. */
	abstract List<ConsoleApp> instances();

	ConsoleApp app() {
		return instances().get(0);
	}

	@org.junit.jupiter.api.BeforeEach
	void newPage() {
		this.page = new ConsolePage(driver);
	}

	@AfterEach
	void releaseHeldItems() {
		instances().forEach((app) -> app.worker().releaseAll());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> instances().stream()
				.allMatch((app) -> app.actuator().path("processing").asInt() == 0
						&& app.actuator().path("depth").asInt() == 0));
		instances().forEach((app) -> app.worker().holdAgain());
	}

	@Test
	void theOverviewShowsTheActuatorsFiguresAndFollowsAChangeWithinTwoSeconds() {
		ConsoleApp app = app();
		// One held item per instance: every worker is busy, so the ready items stay
		// ready.
		for (int i = 0; i < instances().size(); i++) {
			app.queue().add("hold:overview-" + i);
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> IntStream.range(0, instances().size())
				.mapToLong((i) -> calls("hold:overview-" + i))
				.sum() == instances().size());
		app.queue().add("ready-1");
		app.queue().add("ready-2");
		app.queue().addAfter("later:overview", Duration.ofHours(1));
		this.page.overview(app);
		assertThat(this.page.figure("backend")).isEqualTo(backend());
		figuresMatchTheActuatorWithinTwoSeconds(app);
		assertThat(this.page.figure("depth")).isEqualTo("2");
		app.queue().add("ready-3");
		figuresMatchTheActuatorWithinTwoSeconds(app);
		assertThat(this.page.figure("depth")).isEqualTo("3");
	}

	private void figuresMatchTheActuatorWithinTwoSeconds(ConsoleApp app) {
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
			JsonNode actuator = app.actuator();
			Map<String, String> shown = this.page.figures();
			FIGURES.forEach((field, name) -> assertThat(shown.get(field)).as(field)
				.isEqualTo(actuator.path(name).asString(name.equals("paused") ? "false" : "")));
		});
	}

	@Test
	void aProcessingItemShowsItsHolder() {
		ConsoleApp app = app();
		app.queue().add("hold:holder");
		// From the overview to the queue's page by its link, with the keyboard, without a
		// reload (the window keeps what a script left on it).
		this.page.overview(app);
		driver.executeScript("window.consoleStayed = true");
		this.page.queueElement().findElement(By.linkText(ConsoleTestApplication.QUEUE)).sendKeys(Keys.ENTER);
		this.page.within(Duration.ofSeconds(5))
			.until((driver) -> driver.getCurrentUrl()
				.endsWith(ConsolePage.PATH + "/queues/" + ConsoleTestApplication.QUEUE));
		WebElement item = this.page.awaitItem("processing", "hold:holder");
		assertThat(driver.executeScript("return window.consoleStayed === true")).isEqualTo(true);
		String holder = holderInTheApi(app, "hold:holder");
		assertThat(holder).isNotBlank();
		assertThat(item.getText()).contains(holder);
	}

	private static String holderInTheApi(ConsoleApp app, String text) {
		return await().atMost(Duration.ofSeconds(5)).until(() -> {
			for (JsonNode item : app.getJson(ConsolePage.PATH + "/api/queues/jobs").path("items").path("processing")) {
				if (item.path("text").asString("").equals(text)) {
					return item.path("holder").asString("");
				}
			}
			return null;
		}, (holder) -> holder != null);
	}

	@Test
	void aGivenUpItemIsListedWithItsReasonAndReaddingItRunsItAgain() {
		String text = "fail-once:" + backend();
		app().queue().add(text);
		this.page.queue(app());
		WebElement item = this.page.awaitItem("given-up", text);
		assertThat(item.getText()).contains("the first attempt of " + text + " fails");
		this.page.clickItem("given-up", text, "readd");
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(text) == 2);
		this.page.within(Duration.ofSeconds(3)).until((driver) -> this.page.items("given-up", text).isEmpty());
		assertThat(this.page.alert()).isEmpty();
	}

	@Test
	void pauseAndResumeTakeEffectOnEveryInstance() {
		String text = "while-paused:" + backend();
		this.page.queue(app());
		this.page.click("pause");
		for (ConsoleApp instance : instances()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> instance.actuator().path("paused").asBoolean());
		}
		this.page.within(Duration.ofSeconds(2)).until((driver) -> this.page.figure("paused").equals("true"));
		app().queue().add(text);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> calls(text) == 0);
		this.page.click("resume");
		for (ConsoleApp instance : instances()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> !instance.actuator().path("paused").asBoolean());
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(text) == 1);
		this.page.within(Duration.ofSeconds(2)).until((driver) -> this.page.figure("paused").equals("false"));
		assertThat(this.page.alert()).isEmpty();
	}

	@Test
	void itemTextIsShownAsTextAndNeverRun() {
		String text = "<script>window.consoleRan = 1</script><img src=x onerror=\"window.consoleRan = 2\">";
		app().queue().addAfter(text, Duration.ofHours(1));
		this.page.queue(app());
		WebElement item = this.page.awaitItem("waiting", text);
		assertThat(item.getText()).contains(text);
		assertThat(((JavascriptExecutor) driver).executeScript("return window.consoleRan === undefined"))
			.isEqualTo(true);
	}

	@Test
	void theWaitingItemsArePagedAndOneItemIsFoundByItsText() {
		for (int i = 0; i < 60; i++) {
			app().queue().addAfter("page-" + i, Duration.ofHours(2).plusSeconds(i));
		}
		this.page.queue(app());
		this.page.awaitItem("waiting", "page-0");
		assertThat(this.page.items("waiting", "page-59")).isEmpty();
		this.page.turn("next-waiting");
		this.page.awaitItem("waiting", "page-59");
		assertThat(this.page.items("waiting", "page-0")).isEmpty();
		this.page.find("page-59");
		WebElement found = this.page.awaitFound("page-59");
		assertThat(found.getText()).contains("waiting");
		// One element per listed item and state: the found row is not one more.
		assertThat(found.getDomAttribute("data-item")).isNull();
		assertThat(found.getDomAttribute("data-state")).isNull();
		assertThat(this.page.items("waiting", "page-59")).hasSize(1);
	}

	@Test
	void aGivenUpItemFoundByItsTextIsReaddedFromItsFoundRow() {
		String text = "fail-once:found-" + backend();
		app().queue().add(text);
		this.page.queue(app());
		this.page.awaitItem("given-up", text);
		this.page.find(text);
		this.page.awaitFound(text).findElement(By.cssSelector("button[data-action='readd']")).click();
		await().atMost(Duration.ofSeconds(5)).until(() -> calls(text) == 2);
		this.page.within(Duration.ofSeconds(3)).until((driver) -> this.page.items("given-up", text).isEmpty());
		assertThat(this.page.alert()).isEmpty();
	}

	private long calls(String text) {
		return instances().stream().mapToLong((app) -> app.worker().calls(text)).sum();
	}

}

package dev.workqueue.console.browser;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console as a person sees it, read through the page attributes of contract §6 only.
 */
final class ConsolePage {

	static final String PATH = "/workqueue";

	private final WebDriver driver;

	ConsolePage(WebDriver driver) {
		this.driver = driver;
	}

	/** Opens the overview and waits for its first figures. */
	ConsolePage overview(ConsoleApp app) {
		return open(app.url(PATH));
	}

	/** Opens the page of {@code jobs} and waits for its first figures. */
	ConsolePage queue(ConsoleApp app) {
		return queue(app, ConsoleTestApplication.QUEUE);
	}

	/** Opens the page of a queue and waits for its first figures. */
	ConsolePage queue(ConsoleApp app, String name) {
		return open(app.url(PATH + "/queues/" + URLEncoder.encode(name, StandardCharsets.UTF_8)));
	}

	/** Runs a script in the page. */
	void script(String script, Object... arguments) {
		((JavascriptExecutor) this.driver).executeScript(script, arguments);
	}

	/** Runs a script in the page and returns what it returns. */
	@SuppressWarnings("unchecked")
	<T> T scriptValue(String script, Object... arguments) {
		return (T) ((JavascriptExecutor) this.driver).executeScript(script, arguments);
	}

	private ConsolePage open(String url) {
		this.driver.get(url);
		within(Duration.ofSeconds(10))
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("html[data-loaded='true']")));
		return this;
	}

	/** A waiter with a deadline. */
	WebDriverWait within(Duration deadline) {
		WebDriverWait wait = new WebDriverWait(this.driver, deadline, Duration.ofMillis(50));
		wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
		return wait;
	}

	/** The element of {@code jobs}. */
	WebElement queueElement() {
		return this.driver.findElement(By.cssSelector("[data-queue='" + ConsoleTestApplication.QUEUE + "']"));
	}

	/** The text of one of the queue's figures, such as {@code depth}. */
	String figure(String field) {
		return queueElement().findElement(By.cssSelector("[data-field='" + field + "']")).getText();
	}

	/**
	 * The text of every one of the queue's figures, by field, read at one moment in one
	 * call to the browser (a field at a time is three calls each, which on a busy machine
	 * made one look at the page last longer than the 2 s the page has to follow a
	 * change).
	 */
	@SuppressWarnings("unchecked")
	Map<String, String> figures() {
		String script = """
				const figures = {};
				const queue = document.querySelector(`[data-queue="${CSS.escape(arguments[0])}"]`);
				queue.querySelectorAll('[data-field]')
					.forEach((element) => figures[element.dataset.field] = element.innerText.trim());
				return figures;
				""";
		return (Map<String, String>) ((JavascriptExecutor) this.driver).executeScript(script,
				ConsoleTestApplication.QUEUE);
	}

	/** The listed elements of an item in a state (by its text). */
	List<WebElement> items(String state, String text) {
		return this.driver.findElements(By.cssSelector("[data-state='" + state + "']"))
			.stream()
			.filter((element) -> text.equals(element.getDomAttribute("data-item")))
			.toList();
	}

	/** Waits for an item to be listed in a state, and returns its element. */
	WebElement awaitItem(String state, String text) {
		return within(Duration.ofSeconds(5)).withMessage("item " + text + " listed as " + state)
			.until((driver) -> items(state, text).stream().findFirst().orElse(null));
	}

	/**
	 * Waits for an item found with the find box, and returns its element: by its text, or
	 * its id with {@code show-items=false}.
	 */
	WebElement awaitFound(String textOrId) {
		return within(Duration.ofSeconds(5)).withMessage("item " + textOrId + " found")
			.until((driver) -> driver.findElements(By.cssSelector("[data-found]"))
				.stream()
				.filter((element) -> textOrId.equals(element.getDomAttribute("data-found")))
				.findFirst()
				.orElse(null));
	}

	/** Clicks a button of the queue, such as {@code pause}. */
	void click(String action) {
		queueElement().findElement(By.cssSelector("button[data-action='" + action + "']")).click();
	}

	/** Types into the input beside a button of the queue, then clicks the button. */
	void enterAndClick(String action, String value) {
		WebElement button = queueElement().findElement(By.cssSelector("button[data-action='" + action + "']"));
		WebElement input = button.findElement(By.xpath("./preceding-sibling::input[1]"));
		input.clear();
		input.sendKeys(value);
		button.click();
	}

	/** Clicks a button inside an item's element, such as {@code readd}. */
	void clickItem(String state, String text, String action) {
		awaitItem(state, text).findElement(By.cssSelector("button[data-action='" + action + "']")).click();
	}

	/** Turns a list's page, such as {@code next-waiting}, once it can be turned. */
	void turn(String page) {
		// Enabled once the list's count (the queue's latest figures, up to a second old)
		// has caught up with its items, as a person would wait for it.
		within(Duration.ofSeconds(5))
			.until(ExpectedConditions.elementToBeClickable(By.cssSelector("button[data-page='" + page + "']")))
			.click();
	}

	/** Looks one item up with the page's find box. */
	void find(String text) {
		WebElement input = this.driver.findElement(By.cssSelector("form[role='search'] input"));
		input.clear();
		input.sendKeys(text);
		this.driver.findElement(By.cssSelector("form[role='search'] button")).click();
	}

	/** The text of the alert, empty when there is none. */
	String alert() {
		return this.driver.findElement(By.cssSelector("[role='alert']")).getText();
	}

	/** Waits for the alert to name {@code text}, and returns it. */
	String awaitAlert(String text) {
		return within(Duration.ofSeconds(5)).withMessage(() -> "an alert naming " + text + ", was: " + alert())
			.until((driver) -> alert().contains(text) ? alert() : null);
	}

}

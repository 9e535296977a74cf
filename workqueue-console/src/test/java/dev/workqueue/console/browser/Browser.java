package dev.workqueue.console.browser;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The browser of the tests: the machine's own {@code chromium} driven by its own
 * {@code chromedriver}, both found on the {@code PATH} (as Debian's {@code chromium} and
 * {@code chromium-driver} packages install them), headless. Selenium's driver manager is
 * never asked: the tests run where nothing can be downloaded.
 */
final class Browser {

	/**
	 * Set (or env {@code WORKQUEUE_BROWSER_REQUIRED=true}) to fail instead of skipping.
	 */
	static final String REQUIRED_PROPERTY = "workqueue.browser.required";

	private static final String[] BROWSER_NAMES = { "chromium", "chromium-browser", "google-chrome" };

	private Browser() {
	}

	static boolean required() {
		return Boolean.getBoolean(REQUIRED_PROPERTY)
				|| "true".equalsIgnoreCase(System.getenv("WORKQUEUE_BROWSER_REQUIRED"));
	}

	/** Whether both the browser and its driver are on the {@code PATH}. */
	static boolean available() {
		return browser().isPresent() && onPath("chromedriver").isPresent();
	}

	/**
	 * Starts a headless browser with a profile of its own, deleted when it quits.
	 * @return the driver; {@link ChromeDriver#quit()} it
	 */
	static ChromeDriver open() {
		Path binary = browser().orElseThrow(() -> new IllegalStateException("No chromium on the PATH"));
		Path driver = onPath("chromedriver")
			.orElseThrow(() -> new IllegalStateException("No chromedriver on the PATH"));
		Path profile;
		try {
			profile = Files.createTempDirectory("workqueue-console-browser");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(binary.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
				"--window-size=1280,900", "--user-data-dir=" + profile);
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
			.usingAnyFreePort()
			.build();
		ChromeDriver chrome = new ChromeDriver(service, options);
		chrome.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(Duration.ofSeconds(10));
		Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(profile.toFile())));
		return chrome;
	}

	private static Optional<Path> browser() {
		return Arrays.stream(BROWSER_NAMES).map(Browser::onPath).flatMap(Optional::stream).findFirst();
	}

	private static Optional<Path> onPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		return Arrays.stream(path.split(File.pathSeparator))
			.filter((dir) -> !dir.isEmpty())
			.map((dir) -> Path.of(dir, name))
			.filter(Files::isExecutable)
			.findFirst();
	}

	private static void deleteTree(File file) {
		File[] children = file.listFiles();
		if (children != null) {
			for (File child : children) {
				deleteTree(child);
			}
		}
		file.delete();
	}

}

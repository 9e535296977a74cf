package dev.workqueue.console;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the work-queue console, under {@code workqueue.console}.
 */
@ConfigurationProperties("workqueue.console")
public class WorkQueueConsoleProperties {

	/** Whether to serve the console. */
	private boolean enabled;

	/** Path of the console: starts with '/', does not end with one. */
	private String path = "/workqueue";

	/** Whether every action (pause, add, delete...) is refused. */
	private boolean readOnly = true;

	/** Whether item texts are shown; when false, they are never sent to the browser. */
	private boolean showItems = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	/**
	 * Sets the console's path.
	 * @param path starts with '/', does not end with one
	 * @throws IllegalArgumentException naming {@code workqueue.console.path} otherwise
	 */
	public void setPath(String path) {
		if (!path.startsWith("/") || path.endsWith("/")) {
			throw new IllegalArgumentException(
					"workqueue.console.path must start with '/' and not end with '/', was '" + path + "'");
		}
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public boolean isShowItems() {
		return this.showItems;
	}

	public void setShowItems(boolean showItems) {
		this.showItems = showItems;
	}

}

package dev.workqueue.spring.worker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How an item appears in a log line ({@code workqueue.log-items}): its text, cut and
 * escaped, or a short hash of it. Never trusts the item: its {@code toString} may throw
 * (the item's class then stands in for it), may be huge, or may hold line breaks that
 * would forge log lines.
 */
public enum ItemLogging {

	/**
	 * The item's text, cut to {@value #MAX_CHARACTERS} characters, with control
	 * characters (line breaks among them) escaped as {@code \n}, {@code \r}, {@code \t}
	 * or {@code \}{@code uXXXX}.
	 */
	TEXT {
		@Override
		String describe(String text) {
			boolean cut = text.length() > MAX_CHARACTERS;
			int end = cut ? MAX_CHARACTERS : text.length();
			if (cut && Character.isHighSurrogate(text.charAt(end - 1))) {
				end--;
			}
			StringBuilder escaped = new StringBuilder(end + 16);
			for (int i = 0; i < end; i++) {
				escape(text.charAt(i), escaped);
			}
			if (cut) {
				escaped.append("... (").append(text.length()).append(" characters)");
			}
			return escaped.toString();
		}
	},

	/**
	 * A short hash of the item's text ({@code #} and 12 hex digits of its SHA-256), which
	 * tells items apart in the logs without showing them: for items that hold personal
	 * data.
	 */
	HASH {
		@Override
		String describe(String text) {
			try {
				byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
				return "#" + HexFormat.of().formatHex(digest, 0, 6);
			}
			catch (NoSuchAlgorithmException ex) {
				// Every Java platform has SHA-256.
				throw new IllegalStateException(ex);
			}
		}
	};

	/** The most characters of an item's text that a log line shows. */
	public static final int MAX_CHARACTERS = 200;

	/**
	 * Returns how items are logged.
	 * @param logItems {@code workqueue.log-items}: {@code true} for their text,
	 * {@code false} for a hash
	 * @return the logging
	 */
	public static ItemLogging of(boolean logItems) {
		return logItems ? TEXT : HASH;
	}

	/**
	 * Describes {@code item} for a log line; never throws.
	 * @param item the item
	 * @return its description
	 */
	public String describe(Object item) {
		String text;
		try {
			text = String.valueOf(item);
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			return "(an item of " + item.getClass().getName() + " whose toString threw " + ex.getClass().getName()
					+ ")";
		}
		return describe(text);
	}

	abstract String describe(String text);

	private static void escape(char c, StringBuilder to) {
		switch (c) {
			case '\n' -> to.append("\\n");
			case '\r' -> to.append("\\r");
			case '\t' -> to.append("\\t");
			default -> {
				if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
					to.append(String.format("\\u%04x", (int) c));
				}
				else {
					to.append(c);
				}
			}
		}
	}

}

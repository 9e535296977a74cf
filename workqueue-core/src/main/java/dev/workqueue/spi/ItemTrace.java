package dev.workqueue.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The trace contexts an item was handed out with: the {@linkplain #parent() parent} of
 * its processing, the context of its first effective add since it was last handed out,
 * and the {@linkplain #links() links}, the contexts of its later adds until this hand-out
 * (those that changed nothing, and the one that marked it dirty while it was processed),
 * at most {@value #MAX_LINKS}, from the first of them. Each is an opaque string in the
 * tracer's own propagation format, as a {@link TraceContextSource} gave it.
 * <p>
 * A worker reads it with {@link Poller#trace()}; an item added without any context is
 * handed out without an {@code ItemTrace} at all.
 *
 * @param parent the context of the first effective add, {@code null} when that add had
 * none (a later add may still have given links)
 * @param links the contexts of the later adds, at most {@value #MAX_LINKS}, never
 * {@code null}
 */
public record ItemTrace(String parent, List<String> links) {

	/** The most links stored with an item: the first ones are kept. */
	public static final int MAX_LINKS = 8;

	/**
	 * The longest context stored, in characters: a remote store keeps at most
	 * {@code (1 + MAX_LINKS)} of them per item.
	 */
	public static final int MAX_CONTEXT_LENGTH = 2048;

	/**
	 * Creates the contexts of one hand-out.
	 * @param parent the parent, or {@code null}
	 * @param links the links (copied)
	 * @throws IllegalArgumentException if there are more than {@value #MAX_LINKS} links
	 */
	public ItemTrace {
		links = List.copyOf(Objects.requireNonNull(links, "links"));
		if (links.size() > MAX_LINKS) {
			throw new IllegalArgumentException("links must be at most " + MAX_LINKS + ", were " + links.size());
		}
	}

	/**
	 * Reads the record in which a remote store keeps an item's contexts: the parent
	 * (empty when there is none), then a line break and a link for each link, in order.
	 * Links beyond the first {@value #MAX_LINKS} are ignored.
	 * @param record the record, not {@code null}
	 * @return the contexts it holds
	 */
	public static ItemTrace fromRecord(String record) {
		String[] contexts = record.split("\n", -1);
		List<String> links = new ArrayList<>(Math.min(contexts.length - 1, MAX_LINKS));
		for (int i = 1; i < contexts.length && links.size() < MAX_LINKS; i++) {
			links.add(contexts[i]);
		}
		return new ItemTrace(contexts[0].isEmpty() ? null : contexts[0], links);
	}

	/**
	 * Returns whether a backend stores {@code context}: not empty, at most
	 * {@value #MAX_CONTEXT_LENGTH} characters, and without a line break (which a remote
	 * store uses to separate the contexts of one item).
	 * @param context a context
	 * @return whether it is stored
	 */
	public static boolean storable(String context) {
		return context != null && !context.isEmpty() && context.length() <= MAX_CONTEXT_LENGTH
				&& context.indexOf('\n') < 0 && context.indexOf('\r') < 0;
	}

}

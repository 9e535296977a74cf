package dev.workqueue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One item of a queue as an operator sees it: a copy taken when read, never a live view.
 *
 * @param text the item's text: its codec's encoding on a queue that has a codec (the
 * item's identity in a shared store), else {@code String.valueOf(item)}, for display only
 * @param state where it stands
 * @param priority the priority it is queued, held or kept with (0 on a queue without
 * priorities)
 * @param at when it became ready ({@link ItemState#READY}), was handed out
 * ({@link ItemState#PROCESSING}), falls due ({@link ItemState#WAITING}) or was given up
 * ({@link ItemState#GIVEN_UP}), on the wall clock
 * @param holder which instance holds it ({@link ItemState#PROCESSING}) or gave it up
 * ({@link ItemState#GIVEN_UP}); {@code null} otherwise
 * @param leaseLeft how long the holder's lease has left, on a shared store; {@code null}
 * for a queue of one process or an item not processing
 * @param ahead {@code true} for an item an instance claimed ahead for its waiting workers
 * and has not handed to one yet; the stores cannot tell such items, so only those of the
 * instance that answers ({@link QueueInspector#instance()}) are marked
 * @param attempts the failed attempts counted for the item since its last success or
 * give-up (for a given-up item: when it was given up), or -1 where nothing counts them
 * @param reason why it was given up (the last failure, or why the codec could not decode
 * it); {@code null} for other states
 */
public record ItemView(String text, ItemState state, int priority, Instant at, String holder, Duration leaseLeft,
		boolean ahead, int attempts, String reason) {

	/**
	 * Checks the parts that are never {@code null}.
	 * @throws NullPointerException naming {@code text}, {@code state} or {@code at}
	 */
	public ItemView {
		Objects.requireNonNull(text, "text");
		Objects.requireNonNull(state, "state");
		Objects.requireNonNull(at, "at");
	}

}

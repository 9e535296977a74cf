package dev.workqueue.redis;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Which clock times a queue's delays and leases: the Redis server's, or one given to the
 * builder. The handles of one queue must all use the same kind: a lease made on one clock
 * and reaped on the other runs out at once, or never. The queue keeps its kind with its
 * data, in its mark key ({@code mark.lua}: the format, a colon, the kind's letter), set
 * by its first handle. A handle's id starts with the letter of its kind too (upper case,
 * which the id's random base-36 digits never are), so that the reporter role, which holds
 * a live handle's id, tells which kind a live handle of the previous release, which kept
 * no mark, uses.
 */
enum ClockKind {

	/** The Redis server's clock, the default. */
	SERVER('S', "the Redis server's clock"),

	/** A clock given to the builder, which every instance must share. */
	CALLER('C', "a clock given to its builder");

	private final char mark;

	private final String description;

	ClockKind(char mark, String description) {
		this.mark = mark;
		this.description = description;
	}

	/**
	 * The kind of this letter.
	 * @param letter a kind's letter
	 * @return its kind, or {@code null} for another letter
	 */
	static ClockKind ofLetter(char letter) {
		for (ClockKind kind : values()) {
			if (kind.mark == letter) {
				return kind;
			}
		}
		return null;
	}

	static ClockKind of(boolean serverTime) {
		return serverTime ? SERVER : CALLER;
	}

	/**
	 * The kind of the handle with this id.
	 * @param id a handle's id
	 * @return its kind, or {@code null} for an id without a mark (a handle of an earlier
	 * version)
	 */
	static ClockKind ofHandle(String id) {
		return id.isEmpty() ? null : ofLetter(id.charAt(0));
	}

	/** The letter of this kind, in handle ids and in the queue's mark. */
	char letter() {
		return this.mark;
	}

	/** A new handle's id: this kind's mark, then random, short base-36 digits. */
	String newHandleId() {
		return this.mark + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
	}

	/** What the kind is, for messages. */
	String description() {
		return this.description;
	}

}

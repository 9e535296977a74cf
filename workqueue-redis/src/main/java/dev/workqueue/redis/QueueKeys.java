package dev.workqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The Redis keys and pub/sub channel of one queue. They share the hash tag
 * {@code {name}}, so a queue lives in one slot of a Redis Cluster and each of its scripts
 * runs on one node. The components are in the order every queue script takes its keys,
 * the order {@code includes/queue_keys.lua} binds them to names (a test checks that the
 * two agree).
 *
 * @param queue ready items, a LIST in FIFO order
 * @param dirty items added and not handed out yet, a HASH from item to the time it was
 * queued
 * @param processing items handed out, a ZSET scored by lease expiry
 * @param leases the token of each item's live holder and when its lease was granted, a
 * HASH ({@code includes/lease_value.lua})
 * @param waiting delayed items, a ZSET scored by ready time
 * @param givenUp the given-up records, a HASH from item to its record (its attempts, the
 * holder that gave it up and why; see {@code includes/give_up.lua}), expiring when its
 * newest record's retention has passed
 * @param reporter the id of the handle that reports the shared gauges, a STRING that
 * expires unless renewed
 * @param ready a priority queue's ready items, a ZSET scored by minus the priority whose
 * members are a ready-order number and the item (see {@code includes/queue_keys.lua})
 * @param since a priority queue's ready items by the time they became ready, a ZSET
 * @param priorities a priority queue's ready-order numbers and the priorities of its
 * waiting, dirty and held items, a HASH
 * @param grants what each get leased, a HASH from the get's token to its reply, kept
 * until the first of its leases ends: a get Lettuce sends again (its answer was lost with
 * the connection) answers what the first run leased
 * @param wake the wake list, a LIST: armed when items became ready, popped by one waiting
 * consumer of all the instances ({@link WakeWatch})
 * @param mark the queue's format and kind of clock ({@link ClockKind}), a STRING such as
 * {@code 2:S}, set by the first handle and kept (no expiry) until the queue's keys are
 * deleted
 * @param givenUpAt the given-up records' index by time, a ZSET scored by when each was
 * given up, expiring with {@code givenUp}
 * @param paused set while the queue is paused, a STRING that every lease reads first
 * @param attempts the shared count of each item's failed attempts behind
 * {@code max-retries}, a HASH the queue's limiters keep
 * ({@link dev.workqueue.store.SharedLimiterFactory#attempts()}), which the queue scripts
 * only read
 * @param dead the previous release's dead-letter list, a LIST of JSON records of the
 * payloads it could not decode, which the first handle of this release moves into the
 * given-up records and deletes ({@code move_dead_letters.lua})
 * @param channel wake-up notices for the instances (not a key)
 */
record QueueKeys(String queue, String dirty, String processing, String leases, String waiting, String givenUp,
		String reporter, String ready, String since, String priorities, String grants, String wake, String mark,
		String givenUpAt, String paused, String attempts, String dead, String channel) {

	/**
	 * Checks a queue's name, the hash tag of its keys.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if it is empty, holds a brace or is not
	 * well-formed
	 */
	static String checkName(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("name must be non-empty and without braces, was '" + name + "'");
		}
		return checkWellFormed("name", name);
	}

	/**
	 * Refuses text with a lone surrogate, which UTF-8 cannot hold (the JDK's encoders
	 * write {@code ?}): two names differing only there would share their keys.
	 */
	private static String checkWellFormed(String what, String text) {
		if (!StandardCharsets.UTF_8.newEncoder().canEncode(text)) {
			throw new IllegalArgumentException(
					what + " must be well-formed text, without a lone surrogate, which UTF-8 cannot hold, was '" + text
							+ "'");
		}
		return text;
	}

	/**
	 * Checks a key prefix, which must leave the hash tag to the name.
	 * @param prefix the prefix
	 * @return the prefix
	 * @throws IllegalArgumentException if it holds a brace or is not well-formed
	 */
	static String checkPrefix(String prefix) {
		Objects.requireNonNull(prefix, "prefix");
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("prefix must not contain braces, was '" + prefix + "'");
		}
		return checkWellFormed("prefix", prefix);
	}

	/**
	 * The key of one part of a queue's state: {@code <prefix>{<name>}:<part>}.
	 * @param prefix the key prefix
	 * @param name the queue's name
	 * @param part the part
	 * @return the key
	 */
	static String key(String prefix, String name, String part) {
		return prefix + "{" + name + "}:" + part;
	}

	static QueueKeys of(String prefix, String name) {
		return new QueueKeys(key(prefix, name, "queue"), key(prefix, name, "dirty"), key(prefix, name, "processing"),
				key(prefix, name, "leases"), key(prefix, name, "waiting"), key(prefix, name, "given-up"),
				key(prefix, name, "reporter"), key(prefix, name, "ready"), key(prefix, name, "since"),
				key(prefix, name, "priorities"), key(prefix, name, "grants"), key(prefix, name, "wake"),
				key(prefix, name, "mark"), key(prefix, name, "given-up-at"), key(prefix, name, "paused"),
				key(prefix, name, "failures:attempts"), key(prefix, name, "dead"), key(prefix, name, "events"));
	}

	/** Every key, in the order the scripts take them. */
	String[] all() {
		return new String[] { this.queue, this.dirty, this.processing, this.leases, this.waiting, this.givenUp,
				this.reporter, this.ready, this.since, this.priorities, this.grants, this.wake, this.mark,
				this.givenUpAt, this.paused, this.attempts, this.dead };
	}

}

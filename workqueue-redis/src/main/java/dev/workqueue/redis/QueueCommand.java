package dev.workqueue.redis;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.KeyValueOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.PubSubOutput;

/**
 * A command of this library's queues and limiters, as sent on the shared connections (a
 * script's {@code EVALSHA} or {@code EVAL}, a channel's {@code SUBSCRIBE} or
 * {@code UNSUBSCRIBE}, the wake watch's {@code BLPOP} and its pushes, the {@code TIME}
 * that anchors a given clock): one that a Lettuce tracing set-up can tell apart from the
 * application's own commands ({@link #isQueueCommand}), so that the backend's own work (a
 * worker's wait, timer ticks, lease renewals, sweeps, gauge reads) starts no trace of its
 * own. Lettuce still gives it the parent it gives any command: the observation current on
 * the thread that sends it.
 *
 * @param <T> the reply type
 */
final class QueueCommand<T> extends Command<String, String, T> {

	/** The SHA-1s and sources of the scripts that only read, as sent. */
	private static final Set<String> READ_ONLY_SCRIPTS = LuaScript.ALL.stream()
		.filter(LuaScript::readOnly)
		.flatMap((script) -> Stream.of(script.sha1(), script.source()))
		.collect(Collectors.toUnmodifiableSet());

	/** Whether it calls a script that only reads. */
	private final boolean read;

	private QueueCommand(CommandType type, CommandOutput<String, String, T> output, CommandArgs<String, String> args,
			boolean read) {
		super(type, output, args);
		this.read = read;
	}

	/**
	 * Makes a script call.
	 * @param type {@code EVALSHA} or {@code EVAL}
	 * @param shaOrSource the script's SHA-1 or its source
	 * @param output what it replies
	 * @param keys its keys
	 * @param args its arguments
	 * @param <T> the reply type
	 * @return the command, not sent
	 */
	static <T> QueueCommand<T> script(CommandType type, String shaOrSource, ScriptOutputType output, String[] keys,
			String[] args) {
		CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8).add(shaOrSource)
			.add(keys.length)
			.addKeys(keys)
			.addValues(args);
		return new QueueCommand<>(type, output(output), commandArgs, READ_ONLY_SCRIPTS.contains(shaOrSource));
	}

	/**
	 * Makes a {@code SUBSCRIBE} or {@code UNSUBSCRIBE} of one channel, for the pub/sub
	 * connection.
	 * @param type {@code SUBSCRIBE} or {@code UNSUBSCRIBE}
	 * @param channel the channel
	 * @return the command, not sent
	 */
	static QueueCommand<String> subscription(CommandType type, String channel) {
		// The channel as a plain argument, not a key: a cluster connection would route a
		// key to the node of its slot, off the pub/sub connection (a message published
		// anywhere in a cluster reaches every node's subscribers).
		return new QueueCommand<>(type, new PubSubOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).add(channel), false);
	}

	/**
	 * Makes the wake watch's {@code BLPOP} of wake lists.
	 * @param timeoutSeconds how long Redis waits at most
	 * @param keys the lists
	 * @return the command, not sent
	 */
	static QueueCommand<KeyValue<String, String>> blpop(long timeoutSeconds, String[] keys) {
		return new QueueCommand<>(CommandType.BLPOP, new KeyValueOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).addKeys(keys).add(timeoutSeconds), false);
	}

	/**
	 * Makes an {@code RPUSH} of one element: a wake-up pushed back, or a wake watch's
	 * restart.
	 * @param key the list
	 * @param element the element
	 * @return the command, not sent
	 */
	static QueueCommand<Long> push(String key, String element) {
		return new QueueCommand<>(CommandType.RPUSH, new IntegerOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).addKey(key).addValue(element), false);
	}

	/**
	 * Makes a {@code PEXPIRE}.
	 * @param key the key
	 * @param millis its time to live
	 * @return the command, not sent
	 */
	static QueueCommand<Boolean> expire(String key, long millis) {
		return new QueueCommand<>(CommandType.PEXPIRE, new BooleanOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).addKey(key).add(millis), false);
	}

	/**
	 * Makes a {@code TIME}: the server's time, which anchors a clock given to a builder.
	 * @return the command, not sent
	 */
	static QueueCommand<List<String>> time() {
		return new QueueCommand<>(CommandType.TIME, new ValueListOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8), false);
	}

	@SuppressWarnings("unchecked")
	private static <T> CommandOutput<String, String, T> output(ScriptOutputType type) {
		StringCodec codec = StringCodec.UTF8;
		CommandOutput<String, String, ?> output = switch (type) {
			case BOOLEAN -> new BooleanOutput<>(codec);
			case INTEGER -> new IntegerOutput<>(codec);
			case STATUS -> new StatusOutput<>(codec);
			case MULTI -> new NestedMultiOutput<>(codec);
			case VALUE -> new ValueOutput<>(codec);
			default -> throw new IllegalArgumentException("Script output " + type + " is not used by the queues");
		};
		return (CommandOutput<String, String, T>) output;
	}

	/**
	 * Returns whether {@code command} (or the command it wraps) is a script call of this
	 * library's queues and limiters.
	 * @param command a Lettuce command
	 * @return whether it is one
	 */
	static boolean isQueueCommand(RedisCommand<?, ?, ?> command) {
		return CommandWrapper.unwrap(command, QueueCommand.class) != null;
	}

	/**
	 * Returns whether {@code command} (or the command it wraps) is a call of a script of
	 * this library that only reads: stats, levels and the like, which make no traces
	 * whoever sends them (a health check, a scrape).
	 * @param command a Lettuce command
	 * @return whether it is one
	 */
	static boolean isReadCommand(RedisCommand<?, ?, ?> command) {
		QueueCommand<?> queueCommand = CommandWrapper.unwrap(command, QueueCommand.class);
		return queueCommand != null && queueCommand.read;
	}

}

// BullMQ's side of RedisRemoteLatencyBenchmark (issue 39): add -> processor latency with
// the producer and the consumer in different processes, started and read by the JMH JVM
// (WorkerJvm), as its other sides' are.
//
// Usage: node remote.mjs consumer|producer --redis host:port --queue NAME
//          [--concurrency 4] [--items 5000] [--rate 1000]
//
// Both roles print "ready <nanos>" once their queue or Worker is ready, and stop on a
// "stop" line or at the end of standard input (so neither outlives the JVM that started
// it). Times are process.hrtime.bigint(): clock_gettime(CLOCK_MONOTONIC), the clock of
// System.nanoTime() on Linux, one for every process of the machine (the JVM checks the
// "ready" reading against its own).
// - consumer: one Worker, concurrency --concurrency (a consumer JVM's waiting threads),
//   prints "got item-<i> <nanos>" as each job's processor starts;
//   removeOnComplete/removeOnFail: true, as bench.mjs's cheapest realistic setting.
// - producer: on each "go" line, adds --items jobs one call each, job i at i / --rate s
//   after the go (each add awaited; a job due is added at once, a job ahead waits on a
//   timer: libuv's are whole milliseconds, so a job can go up to a millisecond late,
//   never early, and the producer does not keep a core busy as a spin would), printing
//   "sent <i> <nanos>" just before each add, then "finished".

import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';

const { positionals, values: options } = parseArgs({
	allowPositionals: true,
	options: {
		redis: { type: 'string', default: '127.0.0.1:6379' },
		queue: { type: 'string' },
		concurrency: { type: 'string', default: '4' },
		items: { type: 'string', default: '5000' },
		rate: { type: 'string', default: '1000' },
	},
});
const role = positionals[0];
if (!['consumer', 'producer'].includes(role) || !options.queue) {
	console.error('usage: node remote.mjs consumer|producer --redis host:port --queue NAME [--concurrency n]'
		+ ' [--items n] [--rate n]');
	process.exit(2);
}
const host = options.redis.slice(0, options.redis.lastIndexOf(':')) || '127.0.0.1';
const port = Number(options.redis.slice(options.redis.lastIndexOf(':') + 1)) || 6379;
const connection = { host, port };
const CHEAPEST = { removeOnComplete: true, removeOnFail: true };

const nanos = () => process.hrtime.bigint();
const say = (line) => process.stdout.write(line + '\n');

let onLine = () => {};
const ended = new Promise((resolve) => {
	const input = createInterface({ input: process.stdin });
	input.on('line', (line) => (line === 'stop') ? resolve() : onLine(line));
	input.on('close', resolve);
});

try {
	if (role === 'consumer') {
		const worker = new Worker(options.queue, async (job) => say(`got item-${job.data.i} ${nanos()}`),
			{ connection, concurrency: Number(options.concurrency) });
		worker.on('error', (error) => console.error('bullmq consumer:', error.message));
		await worker.waitUntilReady();
		say(`ready ${nanos()}`);
		await ended;
		await worker.close();
	}
	else {
		const queue = new Queue(options.queue, { connection, defaultJobOptions: CHEAPEST });
		await queue.waitUntilReady();
		const items = Number(options.items);
		const periodNanos = BigInt(Math.round(1e9 / Number(options.rate)));
		// The "go" lines not answered yet, and the loop's wake-up while it waits for one.
		let goes = 0;
		let stopped = false;
		let wake = () => {};
		onLine = (line) => {
			if (line === 'go') {
				goes++;
				wake();
			}
		};
		ended.then(() => {
			stopped = true;
			wake();
		});
		say(`ready ${nanos()}`);
		while (true) {
			while (goes === 0 && !stopped) {
				await new Promise((resolve) => {
					wake = resolve;
				});
			}
			if (stopped) {
				break;
			}
			goes--;
			const start = nanos();
			for (let i = 0; i < items; i++) {
				const ahead = start + BigInt(i) * periodNanos - nanos();
				if (ahead > 0n) {
					await sleep(Math.ceil(Number(ahead) / 1e6));
				}
				say(`sent ${i} ${nanos()}`);
				await queue.add('item', { i });
			}
			say('finished');
		}
		await queue.close();
	}
}
catch (error) {
	console.error(`bullmq ${role} failed:`, error);
	process.exitCode = 1;
}
process.exit();

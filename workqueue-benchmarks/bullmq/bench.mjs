// BullMQ beside workqueue-redis (issue 22): the figures our Redis queue is compared
// against, measured with BullMQ 6.7.0 and its own client, ioredis 5.11.1 (BullMQ 6.7.0
// takes ioredis as an optional peer, >= 5.0.0, and is built and tested with 5.11.1), on
// the Redis the JMH benchmarks use.
// run-benchmarks.sh runs it after JMH and writes its figures next to JMH's.
//
// Usage: node bench.mjs [--redis host:port] [--trials 3] [--json out.json] [--md out.md]
//   (REDIS=host:port works too; default 127.0.0.1:6379). About 1.5 minutes.
//
// Every figure is measured in --trials trials, each on a fresh queue, after one warm-up
// trial that is not reported; the report gives the mean, min and max over the trials.
// Queues are named wqbench-bullmq-<time>-<random>-<figure>-<n>, so BullMQ's keys are
// bull:wqbench-bullmq-...; each queue is obliterated and closed at the end of its trial,
// then any key still holding its name is deleted (SCAN + DEL); nothing is flushed.
// The server may be shared: other clients' load shows as noise.
//
// Settings: BullMQ's defaults (prefix "bull", one attempt, no backoff, 30 s job locks,
// stalled check every 30 s), except where a figure says otherwise. "Cheapest realistic"
// means the job options removeOnComplete: true and removeOnFail: true, set for every
// job as the Queue's defaultJobOptions: a finished job's hash is deleted at once
// instead of being kept in the completed/failed set. (The Worker options of the same
// name take { count: 0 }, not true: BullMQ 6.7.0 passes a true there on to its
// moveToFinished script, which then fails for every job.)
// Jobs are named "item" with data { i } (the JMH side's items are "item-<i>").
// Times are on performance.now() (monotonic, sub-millisecond, like System.nanoTime()
// on the JMH side); the producer and the Worker share this process and its one event
// loop (JMH: a producer thread and consumer threads in one JVM).
//
// 1. Backlog drained (drain, drainDefaults): 20,000 jobs added first with addBulk in
//    chunks of 1,000 (not timed), then one Worker, concurrency 16, processor
//    async () => {}; jobs/s from the Worker's start (run()) to the 'completed' event of
//    the last job. "drain" uses removeOnComplete/removeOnFail: true (the figure to
//    quote), "drainDefaults" BullMQ's defaults (completed jobs kept).
//    JMH's RedisThroughputBenchmark differs: there 2 producer threads add one call at a
//    time while 1, 4 or 16 worker threads get and done, at most 1,000 items ahead, so
//    the adds share Redis and the cores with the workers. Here the backlog is built
//    before the clock starts, so this is BullMQ's processing side alone, an upper
//    bound of its end-to-end rate; figure 2 gives the add side. Closest JMH column:
//    endToEnd at workers=16, jvms=1 (16 threads there, one event loop here).
// 2. One caller adding one at a time (addOneAtATime): a fresh queue, no Worker; one
//    caller awaits each queue.add('item', { i }) before the next (no pipelining) for
//    3 s; jobs/s; removeOnComplete/Fail: true. The JMH producers add the same way, one
//    call each.
// 3. add -> processed latency at 1,000/s (latency): as RedisLatencyBenchmark. 5,000
//    jobs, job i added at i ms after the start (each add awaited; the producer polls the
//    clock with setImmediate, as setTimeout cannot wait less than 1 ms: it never sends
//    a burst, but keeps the Node thread busy), one Worker with concurrency 1 (one
//    consumer), removeOnComplete/Fail: true.
//    Latency from just before queue.add to the start of the processor call (JMH: to the
//    return of get), so it includes the add's own round trip; p50, p99, max in µs;
//    lost = jobs not processed 2 s after the last add.
// 4. 10,000 delays over 2 s (delays): as RedisFiringAccuracyBenchmark with FiringLog's
//    figures. Jobs added one call each, as fast as they go, job i with delay
//    DELAYS[i]: the JMH side's very sequence (SplittableRandom(42), uniform in
//    [1 ms, 2 s], truncated to whole ms), rebuilt below. Job i is due at
//    performance.now() read just before its add, plus its delay. One Worker,
//    concurrency 16 (JMH: one consumer thread), removeOnComplete/Fail: true; a job is
//    fired when its processor starts. early = fired before due (and maxEarly by how much); lost = not fired 2 s
//    after the last due time; lateness = fired - due over the fired jobs (early ones
//    negative), p50/p99/max (JMH's percentile rule); duplicates = jobs processed twice.
//    BullMQ takes its due time from the client's wall clock in whole ms
//    (Date.now() + delay), so, like Redisson's, its jobs can fire up to 1 ms before the
//    delay asked, which shows as early. JMH reports µs; the table gives ms, the JSON µs.
// 5. Redis commands per job (commands): INFO commandstats read on a separate ioredis
//    connection just before and after the timed part of figures 1 (drain and
//    drainDefaults: Worker start to last completed) and 2, summed over the trials and
//    divided by the jobs: EVALSHA, EVAL and every command run inside the scripts, which
//    commandstats counts too, and their total. The readings' own INFO is taken out;
//    anything else on the server is counted, so run it on a quiet server.
// 6. Redis's own CPU per job in the drains (redisCpuMicrosPerJob): INFO cpu's
//    used_cpu_sys + used_cpu_user read around the same part as 5, over the jobs.

import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

const { values: options } = parseArgs({
	options: {
		redis: { type: 'string', default: process.env.REDIS || '127.0.0.1:6379' },
		trials: { type: 'string', default: '3' },
		json: { type: 'string' },
		md: { type: 'string' },
	},
});
const host = options.redis.slice(0, options.redis.lastIndexOf(':')) || '127.0.0.1';
const port = Number(options.redis.slice(options.redis.lastIndexOf(':') + 1)) || 6379;
const connection = { host, port };
const TRIALS = Number(options.trials);
if (!Number.isInteger(TRIALS) || TRIALS < 1) {
	throw new Error(`--trials ${options.trials}: a whole number of at least 1, please`);
}

const BACKLOG = 20_000;
const BULK_CHUNK = 1_000;
const CONCURRENCY = 16;
const ADD_MS = 3_000;
const LATENCY_JOBS = 5_000;
const DELAY_JOBS = 10_000;
const GRACE_MS = 2_000;
const CHEAPEST = { removeOnComplete: true, removeOnFail: true };
const DEFAULTS = {};
const DELAYS = jmhDelays(DELAY_JOBS);

const now = () => performance.now();
const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
const run = `wqbench-bullmq-${stamp}-${Math.random().toString(16).slice(2, 6)}`;
let queuesMade = 0;

// Stops a run that hangs (a lost connection, a Worker that never closes).
setTimeout(() => {
	console.error('bullmq bench: still running after 10 minutes, giving up');
	process.exit(2);
}, 600_000).unref();

const admin = new Redis({ host, port, maxRetriesPerRequest: 1 });
admin.on('error', () => {}); // its commands fail instead
try {
	const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))[1];
	console.log(`BullMQ ${packageVersion('bullmq')} (ioredis ${packageVersion('ioredis')}), node ${process.version},`
		+ ` Redis ${redisVersion} at ${host}:${port}; ${TRIALS} trials per figure after 1 warm-up; queues ${run}-*`);
	const results = {
		bullmq: packageVersion('bullmq'),
		ioredis: packageVersion('ioredis'),
		node: process.version,
		redis: `${host}:${port}`,
		redisVersion,
		date: new Date().toISOString(),
		trials: TRIALS,
		workload: {
			backlog: BACKLOG, bulkChunk: BULK_CHUNK, concurrency: CONCURRENCY, addSeconds: ADD_MS / 1000,
			latencyJobs: LATENCY_JOBS, latencyConcurrency: 1, delayJobs: DELAY_JOBS, delayConcurrency: CONCURRENCY,
			graceSeconds: GRACE_MS / 1000, jobOptions: CHEAPEST, drainDefaultsJobOptions: DEFAULTS,
		},
		figures: {
			drain: await trials('drain', () => drain(CHEAPEST)),
			drainDefaults: await trials('drainDefaults', () => drain(DEFAULTS)),
			addOneAtATime: await trials('addOneAtATime', addOneAtATime),
			latency: await trials('latency', latency),
			delays: await trials('delays', delays),
		},
	};
	const markdown = table(results);
	if (options.json) {
		writeFileSync(options.json, JSON.stringify(results, null, 2) + '\n');
	}
	if (options.md) {
		writeFileSync(options.md, markdown);
	}
	console.log('\n' + markdown);
}
catch (error) {
	console.error('bullmq bench failed:', error);
	process.exitCode = 1;
}
finally {
	await deleteKeys(run).catch((error) => console.error('bullmq bench: cleaning up:', error.message));
	admin.disconnect();
}

// ---- the figures; each runs on a fresh queue and returns its figures (numbers) and,
// ---- for 1 and 2, `commands`: the INFO commandstats deltas and the jobs they cover

async function drain(jobOptions) {
	return withQueue('drain', jobOptions, async (queue, newWorker) => {
		for (let from = 0; from < BACKLOG; from += BULK_CHUNK) {
			const count = Math.min(BULK_CHUNK, BACKLOG - from);
			await queue.addBulk(Array.from({ length: count }, (_, k) => ({ name: 'item', data: { i: from + k } })));
		}
		const completed = countdown(BACKLOG);
		const worker = newWorker(async () => {}, { autorun: false, concurrency: CONCURRENCY }, completed.fail);
		worker.on('completed', completed.tick);
		await worker.waitUntilReady();
		const cpuBefore = await cpuMicros();
		const before = await commandStats();
		const start = now();
		worker.run().catch(completed.fail);
		if (!await completed.within(60_000)) {
			throw new Error(`the backlog was not drained in 60 s: ${BACKLOG - completed.left()} jobs completed`);
		}
		const seconds = (now() - start) / 1000;
		const after = await commandStats();
		const redisCpuMicrosPerJob = (await cpuMicros() - cpuBefore) / BACKLOG;
		return {
			jobsPerSecond: BACKLOG / seconds, redisCpuMicrosPerJob,
			commands: { jobs: BACKLOG, calls: delta(before, after) },
		};
	});
}

async function addOneAtATime() {
	return withQueue('add', CHEAPEST, async (queue) => {
		const before = await commandStats();
		const start = now();
		let added = 0;
		while (now() - start < ADD_MS) {
			await queue.add('item', { i: added });
			added++;
		}
		const seconds = (now() - start) / 1000;
		const after = await commandStats();
		return { jobsPerSecond: added / seconds, commands: { jobs: added, calls: delta(before, after) } };
	});
}

async function latency() {
	return withQueue('latency', CHEAPEST, async (queue, newWorker) => {
		const log = firingLog(LATENCY_JOBS);
		const worker = newWorker(async (job) => log.fired(job.data.i), { concurrency: 1 }, log.fail);
		await worker.waitUntilReady();
		await sleep(200);
		const start = now();
		for (let i = 0; i < LATENCY_JOBS; i++) {
			while (now() < start + i) {
				await new Promise(setImmediate);
			}
			log.scheduling(i, 0);
			await queue.add('item', { i });
		}
		await log.awaitAll();
		await worker.close();
		const { p50, p99, max, lost, duplicates } = log.summary();
		return { p50Micros: p50 * 1000, p99Micros: p99 * 1000, maxMicros: max * 1000, lost, duplicates };
	});
}

async function delays() {
	return withQueue('delays', CHEAPEST, async (queue, newWorker) => {
		const log = firingLog(DELAY_JOBS);
		const worker = newWorker(async (job) => log.fired(job.data.i), { concurrency: CONCURRENCY }, log.fail);
		await worker.waitUntilReady();
		await sleep(200);
		for (let i = 0; i < DELAY_JOBS; i++) {
			log.scheduling(i, DELAYS[i]);
			await queue.add('item', { i }, { delay: DELAYS[i] });
		}
		await log.awaitAll();
		await worker.close();
		const { early, maxEarly, lost, duplicates, p50, p99, max } = log.summary();
		return {
			early, maxEarlyMicros: maxEarly * 1000, lost, duplicates,
			p50LatenessMicros: p50 * 1000, p99LatenessMicros: p99 * 1000, maxLatenessMicros: max * 1000,
		};
	});
}

// ---- trials, queues and keys

/** Runs a figure once to warm up, then TRIALS times; its figures as mean, min, max. */
async function trials(name, figure) {
	await figure();
	const runs = [];
	for (let t = 1; t <= TRIALS; t++) {
		runs.push(await figure());
		const shown = Object.entries(runs.at(-1)).filter(([, v]) => typeof v === 'number');
		console.log(`${name} trial ${t}: ${shown.map(([k, v]) => `${k} ${round(v)}`).join(', ')}`);
	}
	const summary = {};
	for (const key of Object.keys(runs[0]).filter((k) => k !== 'commands')) {
		const values = runs.map((r) => r[key]);
		summary[key] = {
			mean: values.reduce((a, b) => a + b, 0) / values.length,
			min: Math.min(...values),
			max: Math.max(...values),
			trials: values,
		};
	}
	if (runs[0].commands) {
		const jobs = runs.reduce((sum, r) => sum + r.commands.jobs, 0);
		const calls = {};
		for (const r of runs) {
			for (const [command, n] of Object.entries(r.commands.calls)) {
				calls[command] = (calls[command] ?? 0) + n;
			}
		}
		summary.commandsPerJob = Object.fromEntries(Object.entries(calls)
			.sort(([, a], [, b]) => b - a)
			.map(([command, n]) => [command, n / jobs]));
		summary.commandsPerJob.total = Object.values(calls).reduce((a, b) => a + b, 0) / jobs;
	}
	return summary;
}

/**
 * Runs body(queue, newWorker) on a fresh queue whose jobs get jobOptions; then closes
 * its Workers, obliterates and closes the queue, and deletes whatever key still holds
 * its name. newWorker(processor, workerOptions, fail) calls fail on the Worker's first
 * 'error' or 'failed' event.
 */
async function withQueue(figure, jobOptions, body) {
	const name = `${run}-${figure}-${++queuesMade}`;
	const queue = new Queue(name, { connection, defaultJobOptions: jobOptions });
	const workers = [];
	const newWorker = (processor, workerOptions, fail) => {
		const worker = new Worker(name, processor, { connection, ...workerOptions });
		worker.once('error', fail);
		worker.once('failed', (job, error) => fail(error));
		worker.on('error', () => {});
		workers.push(worker);
		return worker;
	};
	try {
		await queue.waitUntilReady();
		return await body(queue, newWorker);
	}
	finally {
		for (const worker of workers) {
			await worker.close();
		}
		await queue.obliterate({ force: true }).catch((error) => console.error(`obliterate ${name}:`, error.message));
		await queue.close();
		await deleteKeys(name);
	}
}

async function deleteKeys(name) {
	let cursor = '0';
	do {
		const [next, keys] = await admin.scan(cursor, 'MATCH', `*${name}*`, 'COUNT', 1000);
		if (keys.length > 0) {
			await admin.del(...keys);
		}
		cursor = next;
	} while (cursor !== '0');
}

/** calls per command since the server started, from INFO commandstats */
async function commandStats() {
	const calls = {};
	for (const [, command, n] of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
		calls[command] = Number(n);
	}
	return calls;
}

/** Redis's own CPU since the server started, µs, from INFO cpu */
async function cpuMicros() {
	const info = await admin.info('cpu');
	const field = (name) => Number(info.match(new RegExp(`^${name}:([0-9.]+)`, 'm'))[1]);
	return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
}

/** calls made between two readings, less the second reading's own INFO */
function delta(before, after) {
	const calls = {};
	for (const [command, n] of Object.entries(after)) {
		const made = n - (before[command] ?? 0) - (command === 'info' ? 1 : 0);
		if (made > 0) {
			calls[command.toUpperCase()] = made;
		}
	}
	return calls;
}

// ---- the firing log: FiringLog's figures, in ms on performance.now()

function firingLog(count) {
	const due = new Float64Array(count);
	const fired = new Float64Array(count).fill(NaN);
	const all = countdown(count);
	let duplicates = 0;
	return {
		scheduling(i, delayMs) {
			due[i] = now() + delayMs;
		},
		fail: all.fail,
		fired(i) {
			const at = now();
			if (!Number.isNaN(fired[i])) {
				duplicates++;
				return;
			}
			fired[i] = at;
			all.tick();
		},
		/** waits until every job has fired, or until GRACE_MS after the last due time */
		async awaitAll() {
			const lastDue = due.reduce((a, b) => Math.max(a, b), -Infinity);
			await all.within(Math.max(0, lastDue + GRACE_MS - now()));
		},
		summary() {
			const lateness = [];
			let early = 0;
			let maxEarly = 0;
			for (let i = 0; i < count; i++) {
				if (!Number.isNaN(fired[i])) {
					const late = fired[i] - due[i];
					if (late < 0) {
						early++;
						maxEarly = Math.max(maxEarly, -late);
					}
					lateness.push(late);
				}
			}
			lateness.sort((a, b) => a - b);
			const percentile = (f) => (lateness.length === 0)
				? 0 : lateness[Math.min(lateness.length - 1, Math.ceil(f * lateness.length) - 1)];
			return {
				early, maxEarly, lost: count - lateness.length, duplicates,
				p50: percentile(0.5), p99: percentile(0.99), max: lateness.at(-1) ?? 0,
			};
		},
	};
}

/**
 * count ticks to wait for: within(ms) resolves true after the last tick, false after ms,
 * and rejects if fail(error) came first.
 */
function countdown(count) {
	let resolve;
	let reject;
	const done = new Promise((res, rej) => {
		resolve = res;
		reject = rej;
	});
	done.catch(() => {});
	let left = count;
	return {
		tick: () => {
			if (--left === 0) {
				resolve();
			}
		},
		left: () => left,
		fail: (error) => reject(error),
		within: (ms) => new Promise((res, rej) => {
			const timer = setTimeout(() => res(false), ms);
			done.then(() => res(true), rej).finally(() => clearTimeout(timer));
		}),
	};
}

// ---- the JMH side's delays: Keys.delays(10000, 1 ms, 2 s) truncated to whole ms

/** java.util.SplittableRandom(seed).nextLong(bound), on BigInt */
function splittableRandom(seed) {
	const mask = (1n << 64n) - 1n;
	let state = BigInt(seed);
	const nextLong = () => {
		state = (state + 0x9e3779b97f4a7c15n) & mask;
		let z = state;
		z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
		z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
		return z ^ (z >> 31n);
	};
	return (bound) => {
		const n = BigInt(bound);
		const m = n - 1n;
		if ((n & m) === 0n) {
			return Number(nextLong() & m);
		}
		let u = nextLong() >> 1n;
		let r = u % n;
		while (BigInt.asIntN(64, u + m - r) < 0n) {
			u = nextLong() >> 1n;
			r = u % n;
		}
		return Number(r);
	};
}

function jmhDelays(count) {
	const next = splittableRandom(42);
	const minNanos = 1_000_000;
	const spanNanos = 2_000_000_000 - minNanos + 1;
	return Array.from({ length: count }, () => Math.floor((minNanos + next(spanNanos)) / 1_000_000));
}

// ---- the report

function table(results) {
	const f = results.figures;
	const row = (label, figure, scale = 1, digits = 0) => `| ${label} | ${round(figure.mean * scale, digits)} | `
		+ `${round(figure.min * scale, digits)} – ${round(figure.max * scale, digits)} |`;
	const lines = [
		`BullMQ ${results.bullmq} (ioredis ${results.ioredis}, Node ${results.node}) on Redis ${results.redisVersion}`
			+ ` at ${results.redis}, ${results.date}; mean and min – max of ${results.trials} trials, each after`
			+ ' a warm-up trial. Jobs with removeOnComplete/removeOnFail: true unless "defaults".',
		'',
		'| figure | mean | min – max |',
		'|---|---|---|',
		row(`backlog of ${fmt(BACKLOG)} drained, 1 Worker × concurrency ${CONCURRENCY}, jobs/s`, f.drain.jobsPerSecond),
		row('… Redis CPU per job, µs', f.drain.redisCpuMicrosPerJob, 1, 1),
		row('the same, defaults (completed jobs kept), jobs/s', f.drainDefaults.jobsPerSecond),
		row('one caller, one add at a time, no Worker, jobs/s', f.addOneAtATime.jobsPerSecond),
		row(`add→processor at 1,000/s, ${fmt(LATENCY_JOBS)} jobs, concurrency 1: p50 µs`, f.latency.p50Micros),
		row('… p99 µs', f.latency.p99Micros),
		row('… max µs', f.latency.maxMicros),
		row('… lost', f.latency.lost),
		row(`${fmt(DELAY_JOBS)} delays over 2 s, concurrency ${CONCURRENCY}: early`, f.delays.early),
		row('… max early, ms', f.delays.maxEarlyMicros, 1e-3, 2),
		row('… lost', f.delays.lost),
		row('… lateness p50, ms', f.delays.p50LatenessMicros, 1e-3, 1),
		row('… lateness p99, ms', f.delays.p99LatenessMicros, 1e-3, 1),
		row('… lateness max, ms', f.delays.maxLatenessMicros, 1e-3, 1),
		'',
		'Redis commands per job (`INFO commandstats`, inside scripts included):',
		'',
		'| command | drain | drain, defaults | add one at a time |',
		'|---|---|---|---|',
	];
	// One row per command of at least 0.005 calls per job in a column, the rest in one row.
	const columns = [f.drain.commandsPerJob, f.drainDefaults.commandsPerJob, f.addOneAtATime.commandsPerJob];
	const commands = [...new Set(columns.flatMap((c) => Object.keys(c)))].filter((c) => c !== 'total');
	const shown = commands.filter((command) => columns.some((c) => (c[command] ?? 0) >= 0.005));
	const rest = commands.filter((command) => !shown.includes(command));
	const sum = (c, names) => names.reduce((total, command) => total + (c[command] ?? 0), 0);
	for (const command of shown) {
		lines.push(`| \`${command}\` | ${columns.map((c) => round(c[command] ?? 0, 2)).join(' | ')} |`);
	}
	if (rest.length > 0) {
		lines.push(`| others (${rest.join(', ')}) | ${columns.map((c) => round(sum(c, rest), 3)).join(' | ')} |`);
	}
	lines.push(`| **total** | ${columns.map((c) => round(c.total, 2)).join(' | ')} |`);
	return lines.join('\n') + '\n';
}

function round(value, digits = 0) {
	return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function fmt(n) {
	return n.toLocaleString('en-US');
}

function packageVersion(name) {
	return createRequire(import.meta.url)(`${name}/package.json`).version;
}

#!/usr/bin/env bash
# The full benchmark run the issues ask for: workqueue beside client-java, the JDK, Netty,
# Guava, Bucket4j and (on Redis) Redisson, every figure from one JMH run, then a Markdown
# summary; then, on the same Redis, BullMQ's figures (issue 22) from bullmq/bench.mjs.
#
# Usage:  workqueue-benchmarks/run-benchmarks.sh [JMH options...]
#   no options: everything, with the forks, warm-up and measurement written on each class
#   (3 forks for every in-memory benchmark where threads hand work to each other);
#   JMH options are passed on, e.g. a regex to run a subset: run-benchmarks.sh 'QueueHandOff'
#   run-benchmarks.sh Redis: only the Redis figures (issues 12 and 22), ours beside
#   Redisson, then BullMQ's (about 17 minutes); REDIS=host:port picks the server (default
#   127.0.0.1:6379). Without a reachable Redis a full run leaves the Redis benchmarks out
#   (with a warning).
#   BullMQ (issue 22): after JMH, when Redis is reachable and the run included the Redis
#   benchmarks (no options, or options naming Redis) or BULLMQ=1 is set,
#   bullmq/bench.mjs measures BullMQ 6.7.0 on the same server (about 1.5 minutes; needs
#   Node.js 20 and npm: `npm ci` the first time; left out with a warning without node).
#   run-benchmarks.sh Postgres: only the PostgreSQL figures (issue 30), ours beside
#   db-scheduler (about 50 minutes with -e NoVacuum, 35 of them the table size runs);
#   POSTGRES=host:port/database picks the server (default 127.0.0.1:5432/test, user
#   postgres: each trial creates a database of its own there and drops it). Without a
#   reachable PostgreSQL a full run leaves them out (with a warning). The pgbench ceiling
#   is a script of its own: pgbench/ceiling.sh.
#   SKIP_BUILD=1 reuses target/benchmarks.jar; JAR=path runs another build's jar (for
#   example one built from an earlier commit, to compare the code before and after a change
#   on the same machine, one run after the other) and builds nothing.
#
# Duration: about 47 minutes on a quiet 2-core machine (estimate per class, forks x
# (warm-up + measurement) + JVM starts: QueueHandOff 2.5 min, TimingWheel 3.5, DelayQueue 3.5,
# FiringAccuracy 3.5, RetainedHeap 3, TokenBucket 2, IdleCpu 2, AddAfter 1.5,
# RateLimiter 1.5, QueueCycle 1, MetricsOverhead 1, DedupAdd 0.5; RedisThroughput 12,
# RedisIdle 2.5, RedisLatency 1.5, RedisFiringAccuracy 1, RedisBacklog 1, RedisAdd 1,
# RedisMemory 0.5; BullMQ 1.5); with a PostgreSQL, about 46 more (PostgresThroughput 3,
# PostgresBacklog 1.5, PostgresAdd 1, PostgresLatency 2, PostgresFiringAccuracy 2,
# PostgresTableSize 35 for ours and db-scheduler at 1,000,000 items; ours without its own
# vacuuming slows to about 100 items/s as dead rows pile up and takes over an hour more:
# leave it out with -e NoVacuum and run it with -p items=200000).
# The Redis benchmarks (BullMQ's too) use keys named wqbench-*, delete them when they
# end and never flush anything, so the server may be shared; other clients' load shows
# as noise (RedisIdle reports it as otherCommandsPerSecond; the Redis commands per item of
# RedisBacklog, RedisAdd, RedisThroughput and BullMQ count other clients' commands too).
# Run it on a quiet machine: other work on the cores shows up as noise, and the batch
# benchmarks (AddAfter, TimingWheel) fail on purpose when a batch is so slow that timers
# due in 1 s fire inside the measurement.
#
# Output: workqueue-benchmarks/results/<UTC time>/ with jmh.json (JMH's results),
# jmh.log, machine.txt and summary.md (tables for the README, made by summarize.py);
# with BullMQ, bullmq.json, bullmq.md (its tables) and bullmq.log.
# Exits non-zero if any benchmark failed, BullMQ's included (after JMH's results are
# written).
set -euo pipefail

module_dir="$(cd "$(dirname "$0")" && pwd)"
root_dir="$(dirname "$module_dir")"
jar="${JAR:-$module_dir/target/benchmarks.jar}"

if [[ -z "${JAR:-}" ]] && [[ "${SKIP_BUILD:-0}" != "1" || ! -f "$jar" ]]; then
	echo "Building the benchmarks (and the modules they measure)..."
	(cd "$root_dir" && mvn -B -ntp -q -Pbenchmarks -pl workqueue-benchmarks -am package -DskipTests -Dspring-javaformat.skip=true)
fi

redis="${REDIS:-127.0.0.1:6379}"
redis_host="${redis%:*}"
redis_port="${redis##*:}"
redis_info=""
if { exec 3<>"/dev/tcp/$redis_host/$redis_port"; } 2>/dev/null; then
	printf 'INFO server\r\nINFO clients\r\nQUIT\r\n' >&3
	redis_info="$(timeout 5 cat <&3 | tr -d '\r' | grep -E '^(redis_version|connected_clients):' | tr '\n' ' ' || true)"
	exec 3<&- 3>&-
fi
postgres="${POSTGRES:-127.0.0.1:5432/test}"
postgres_server="${postgres%%/*}"
postgres_up=0
if { exec 4<>"/dev/tcp/${postgres_server%:*}/${postgres_server##*:}"; } 2>/dev/null; then
	exec 4<&- 4>&-
	postgres_up=1
fi
jmh_args=("$@")
excluded=()
if [[ -z "$redis_info" ]]; then
	if [[ $# -eq 0 ]]; then
		echo "WARNING: no Redis at $redis: the Redis benchmarks (issue 12) are left out." >&2
		excluded+=('Redis')
	elif [[ "$*" == *Redis* ]]; then
		echo "No Redis at $redis (set REDIS=host:port): the Redis benchmarks need one." >&2
		exit 1
	fi
fi
if [[ "$postgres_up" != "1" ]]; then
	if [[ $# -eq 0 ]]; then
		echo "WARNING: no PostgreSQL at $postgres_server: the PostgreSQL benchmarks (issue 30) are left out." >&2
		excluded+=('Postgres')
	elif [[ "$*" == *Postgres* ]]; then
		echo "No PostgreSQL at $postgres_server (set POSTGRES=host:port/database): the PostgreSQL benchmarks need one." >&2
		exit 1
	fi
fi
if [[ ${#excluded[@]} -gt 0 ]]; then
	jmh_args=(-e "$(IFS='|'; echo "${excluded[*]}")")
fi

out="$module_dir/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
{
	echo "date: $(date -u)"
	echo "jar: $jar"
	echo "cpus: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	java -version 2>&1
	echo "node: $(node --version 2>/dev/null || echo 'not installed')"
	echo "redis at $redis: ${redis_info:-not reachable}"
	echo "postgresql at $postgres_server: $([[ "$postgres_up" == "1" ]] && echo reachable || echo 'not reachable')"
} > "$out/machine.txt"
cat "$out/machine.txt"

load="$(cut -d' ' -f1 /proc/loadavg)"
if awk -v avg="$load" 'BEGIN { exit !(avg > 0.5) }'; then
	echo "WARNING: load average $load: other work on this machine will add noise." >&2
fi

cd "$module_dir"
java "-Dworkqueue.bench.redis=$redis" "-Dworkqueue.bench.postgres=$postgres" -jar "$jar" -prof gc -rf json -rff "$out/jmh.json" "${jmh_args[@]}" 2>&1 \
	| tee "$out/jmh.log"

python3 "$module_dir/summarize.py" "$out/jmh.json" > "$out/summary.md"
echo
echo "Results: $out/jmh.json; tables: $out/summary.md"

bullmq_failed=0
if [[ -n "$redis_info" ]] && [[ $# -eq 0 || "$*" == *Redis* || "${BULLMQ:-0}" == "1" ]]; then
	if ! command -v node > /dev/null; then
		echo "WARNING: no node on the PATH: BullMQ's figures (issue 22) are left out." >&2
	else
		echo
		echo "BullMQ on the same Redis (issue 22)..."
		if (cd "$module_dir/bullmq" \
				&& { [[ -d node_modules ]] || npm ci --silent; } \
				&& node bench.mjs --redis "$redis" --json "$out/bullmq.json" --md "$out/bullmq.md") 2>&1 \
				| tee "$out/bullmq.log"; then
			echo "BullMQ: $out/bullmq.json; tables: $out/bullmq.md"
		else
			bullmq_failed=1
		fi
	fi
elif [[ "${BULLMQ:-0}" == "1" ]]; then
	echo "WARNING: no Redis at $redis: BullMQ's figures (issue 22) are left out." >&2
fi

failures="$(grep -c '<failure>' "$out/jmh.log" || true)"
if [[ "$failures" != "0" ]]; then
	echo "$failures benchmark iteration(s) failed: see $out/jmh.log" >&2
	exit 1
fi
if [[ "$bullmq_failed" != "0" ]]; then
	echo "The BullMQ benchmark failed: see $out/bullmq.log" >&2
	exit 1
fi

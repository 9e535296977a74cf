#!/usr/bin/env bash
# The full benchmark run the issues ask for: workqueue beside client-java, the JDK, Netty,
# Guava and Bucket4j, every figure from one JMH run, then a Markdown summary.
#
# Usage:  workqueue-benchmarks/run-benchmarks.sh [JMH options...]
#   no options: everything, with the forks, warm-up and measurement written on each class
#   (3 forks for every benchmark where threads hand work to each other);
#   JMH options are passed on, e.g. a regex to run a subset: run-benchmarks.sh 'QueueHandOff'
#   SKIP_BUILD=1 reuses target/benchmarks.jar.
#
# Duration: about 25 minutes on a quiet 2-core machine (estimate per class, forks x
# (warm-up + measurement) + JVM starts: QueueHandOff 2.5 min, TimingWheel 3.5, DelayQueue 3.5,
# FiringAccuracy 3.5, RetainedHeap 3, TokenBucket 2, IdleCpu 2, AddAfter 1.5,
# RateLimiter 1.5, QueueCycle 1, MetricsOverhead 1, DedupAdd 0.5).
# Run it on a quiet machine: other work on the cores shows up as noise, and the batch
# benchmarks (AddAfter, TimingWheel) fail on purpose when a batch is so slow that timers
# due in 1 s fire inside the measurement.
#
# Output: workqueue-benchmarks/results/<UTC time>/ with jmh.json (JMH's results),
# jmh.log, machine.txt and summary.md (tables for the README, made by summarize.py).
# Exits non-zero if any benchmark failed.
set -euo pipefail

module_dir="$(cd "$(dirname "$0")" && pwd)"
root_dir="$(dirname "$module_dir")"
jar="$module_dir/target/benchmarks.jar"

if [[ "${SKIP_BUILD:-0}" != "1" || ! -f "$jar" ]]; then
	echo "Building the benchmarks (and the modules they measure)..."
	(cd "$root_dir" && mvn -B -ntp -q -pl workqueue-benchmarks -am package -DskipTests -Dspring-javaformat.skip=true)
fi

out="$module_dir/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
{
	echo "date: $(date -u)"
	echo "cpus: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	java -version 2>&1
} > "$out/machine.txt"
cat "$out/machine.txt"

load="$(cut -d' ' -f1 /proc/loadavg)"
if awk -v load="$load" 'BEGIN { exit !(load > 0.5) }'; then
	echo "WARNING: load average $load: other work on this machine will add noise." >&2
fi

cd "$module_dir"
java -jar "$jar" -prof gc -rf json -rff "$out/jmh.json" "$@" 2>&1 | tee "$out/jmh.log"

python3 "$module_dir/summarize.py" "$out/jmh.json" > "$out/summary.md"
echo
echo "Results: $out/jmh.json; tables: $out/summary.md"

failures="$(grep -c '<failure>' "$out/jmh.log" || true)"
if [[ "$failures" != "0" ]]; then
	echo "$failures benchmark iteration(s) failed: see $out/jmh.log" >&2
	exit 1
fi

#!/usr/bin/env python3
"""Turn JMH JSON results of workqueue-benchmarks into Markdown tables.

Usage: summarize.py RESULT.json [MORE.json ...] > summary.md

One table per workload (benchmark class, the part of the method name before the last
underscore, and the @Param values); one row per contender (the part after it) and figure.
Columns: score +- error (JMH's 99.9 % confidence interval), unit, allocation per
operation when run with -prof gc, how many times better ours is than that contender
(above 1: ours is better, whichever way the unit points), and the issue's target when
there is one.

Which figure a benchmark reports:
- hand-off groups (producer and consumer methods): the consumer's rate (items handed over);
- benchmarks with auxiliary counters (unit "#": firing accuracy, idle CPU, retained heap,
  the Redis latency, delay, idle-command and memory figures, and the Redis commands per
  item of the add and backlog benchmarks):
  each counter, rebuilt per iteration from the raw data (see Figures.java: each iteration
  reports its figure divided by forks x iterations) and averaged, with its own error; the
  primary score is left out when it is a single-shot run's duration (mode "ss"), and comes
  first otherwise (the Redis add and backlog rates);
- all others: the primary score.
Python 3 standard library only.
"""

import json
import math
import statistics
import sys
from collections import OrderedDict

OURS = "ours"

# Two-sided 99.9 % Student t quantiles (as JMH's error), by degrees of freedom.
T_999 = {1: 636.619, 2: 31.599, 3: 12.924, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041,
         9: 4.781, 10: 4.587, 11: 4.437, 12: 4.318, 13: 4.221, 14: 4.140, 15: 4.073, 16: 4.015,
         17: 3.965, 18: 3.922, 19: 3.883, 20: 3.850, 25: 3.725, 30: 3.646, 40: 3.551,
         60: 3.460, 120: 3.373}

# Issue targets: (class, workload, figure, contender) -> (kind, value, text).
# kind "times": ours must be at least `value` times better than that contender;
# "within": that contender (a variant of ours) at most `value` times worse than ours;
# "max"/"min": that contender's own figure (ours, or a variant of ours) must be at most/at
# least `value`.
TARGETS = {
    ("QueueCycle", "", "score", "clientJava"): ("times", 2.0, ">= 2x (W1a: <= 0.5x its ns/op)"),
    ("QueueCycle", "", "score", "jdkLinkedBlockingQueue"): ("times", 1 / 1.5, ">= 0.67x (W1a: <= 1.5x its ns/op)"),
    ("QueueHandOff", "oneToOne", "score", "clientJava"): ("times", 2.0, ">= 2x (W1b)"),
    ("QueueHandOff", "oneToOne", "score", "jdkLinkedBlockingQueue"): ("times", 0.6, ">= 0.6x (W1b)"),
    ("QueueHandOff", "fourToFour", "score", "clientJava"): ("times", 2.0, ">= 2x (W1c)"),
    ("DedupAdd", "", "score", "clientJava"): ("times", 2.0, ">= 2x (W2)"),
    ("AddAfter", "", "score", "clientJava"): ("times", 4.0, ">= 4x (W3)"),
    ("AddAfter", "", "score", "jdkDelayQueue"): ("times", 0.7, ">= 0.7x (issue 14; W3 asked 1x)"),
    ("RetainedHeap", "delayingQueue", "bytesPerItem", OURS): ("max", 64, "<= 64 B (W3)"),
    ("FiringAccuracy", "delayingQueue", "early", OURS): ("max", 0, "0 (W4)"),
    ("FiringAccuracy", "delayingQueue", "lost", OURS): ("max", 0, "0 (W4)"),
    ("FiringAccuracy", "delayingQueue", "p99LatenessMicros", "jdkDelayQueue"):
        ("times", 1.0, "p99 <= the JDK's (W4)"),
    ("RateLimiter", "exponential", "score", "clientJava"): ("times", 1.0, ">= 1x (W5)"),
    ("RateLimiter", "defaultController", "score", "clientJava"): ("times", 1.0, ">= 1x (W5)"),
    ("IdleCpu", "delayingQueue", "cpuMillis", OURS): ("max", 1.0, "<= 1 ms (W6)"),
    ("TimingWheel", "setTimer", "score", "netty"): ("times", 1.0, ">= 1x (issue 14; issue 3 asked 1.5x)"),
    ("TimingWheel", "moveTimer", "score", OURS): ("min", 5.0, ">= 5 M ops/s (issue 3)"),
    ("TimingWheel", "removeTimer", "score", OURS): ("min", 5.0, ">= 5 M ops/s (issue 3)"),
    ("RetainedHeap", "timingWheel", "bytesPerItem", OURS): ("max", 64, "<= 64 B (issue 3)"),
    ("IdleCpu", "timingWheel", "cpuMillis", OURS): ("max", 1.0, "<= 1 ms (issue 3)"),
    ("FiringAccuracy", "timingWheel", "early", OURS): ("max", 0, "0 (issue 3)"),
    ("FiringAccuracy", "timingWheel", "lost", OURS): ("max", 0, "0 (issue 3)"),
    ("FiringAccuracy", "timingWheel", "p99LatenessMicros", OURS): ("max", 1000, "<= 1 tick (issue 3)"),
    ("DelayQueue", "pushTake", "score", "jdk"): ("times", 1.0, ">= 1x (issue 3)"),
    ("DelayQueue", "handOff", "score", "jdk"): ("times", 1.0, ">= 1x (issue 3)"),
    ("MetricsOverhead", "handOff", "score", "oursPrometheus"): ("within", 1 / 0.85, "loss <= 15 % (issues 5, 14)"),
    ("MetricsOverhead", "hooksPerItem", "score", "prometheus"): ("max", 100, "<= 100 ns (issue 14)"),
    # Issue 12, on Redis beside Redisson (which does no dedup and no lease).
    ("RedisThroughput", "endToEnd", "score", "redisson"): ("times", 1.0, ">= 1x Redisson (issue 12)"),
    ("RedisLatency", "addToGet", "p99Micros", OURS): ("max", 2000, "p99 <= 2 ms (issue 12)"),
    ("RedisLatency", "addToGet", "lost", OURS): ("max", 0, "0 (issue 12)"),
    ("RedisFiringAccuracy", "delayingQueue", "p99LatenessMicros", OURS): ("max", 10_000, "p99 <= 10 ms (issue 12)"),
    ("RedisFiringAccuracy", "delayingQueue", "early", OURS): ("max", 0, "0 (issue 12)"),
    ("RedisFiringAccuracy", "delayingQueue", "lost", OURS): ("max", 0, "0 (issue 12)"),
    ("RedisIdle", "delayingQueue", "commandsPerSecond", OURS): ("max", 1.0, "<= 1 command/s sent (issue 12)"),
    ("RedisIdle", "delayingQueue", "serverCommandsPerSecond", OURS):
        ("max", 1.0, "<= 1 command/s as INFO commandstats counts (issue 12)"),
    ("RedisMemory", "delayingQueue", "bytesPerItem", "redisson"): ("times", 1.0, "<= Redisson's (issue 12)"),
    # Issue 30, on PostgreSQL beside db-scheduler (one-time tasks, lock-and-fetch).
    ("PostgresThroughput", "endToEnd", "score", "dbScheduler"): ("times", 2.0, ">= 2x db-scheduler (issue 30)"),
    ("PostgresThroughput", "endToEnd", "commitsPerItem", OURS): ("max", 1.5, "<= 1.5 commits per item (issue 30)"),
    ("PostgresBacklog", "drain", "score", OURS): ("min", 5000, ">= 5,000 items/s (issue 30)"),
    ("PostgresBacklog", "drain", "score", "dbScheduler"): ("times", 3.0, ">= 3x db-scheduler (issue 30)"),
    ("PostgresBacklog", "drain", "commitsPerItem", OURS): ("max", 1.5, "<= 1.5 commits per item (issue 30)"),
    ("PostgresAdd", "oneAtATime", "score", OURS): ("min", 3000, ">= 3,000 adds/s (issue 30)"),
    ("PostgresLatency", "addToGet", "p99Micros", OURS): ("max", 20_000, "p99 <= 20 ms (issue 30)"),
    ("PostgresLatency", "addToGet", "lost", OURS): ("max", 0, "0 (issue 30)"),
    ("PostgresFiringAccuracy", "delays", "p99LatenessMicros", OURS): ("max", 50_000, "p99 <= 50 ms (issue 30)"),
    ("PostgresFiringAccuracy", "delays", "early", OURS): ("max", 0, "0 (issue 30)"),
    ("PostgresFiringAccuracy", "delays", "lost", OURS): ("max", 0, "0 (issue 30)"),
    ("PostgresTableSize", "size", "ratio", OURS): ("max", 3.0, "<= 3x its size new (issue 30)"),
}

# Figures quoted in the issues, measured elsewhere: orientation only.
QUOTED = [
    ("client-java DefaultWorkQueue, dedup add", "59 M ops/s"),
    ("client-java DefaultDelayingQueue.addAfter, paced (unpaced it drops 97 %)", "1.5 M ops/s"),
    ("JDK DelayQueue.offer", "6.5 M ops/s, 29 B per item"),
    ("client-java delaying queue, retained per waiting item", "79 B"),
    ("client-java exponential limiter when()", "31 ns"),
    ("client-java default controller limiter when()", "84 ns"),
    ("Netty HashedWheelTimer.newTimeout, 100 ms / 1 ms tick", "6.25 / 3.6 M ops/s"),
    ("Netty HashedWheelTimer, retained per pending timeout", "83 B"),
    ("Netty idle worker thread CPU per 10 s, 1 ms / 100 ms tick", "237 / 14 ms"),
    ("seed Go DelayQueue push+take (its author's machine)", "476.8 ns/op"),
    ("Redisson 3.52 RBlockingQueue poll loop, 1, 4 or 16 workers (issue 12)", "about 9,000 items/s"),
    ("Redisson 3.52 add one at a time (issue 12)", "15,000-22,000 items/s"),
    ("Redisson 3.52 add->take at 1,000/s (issue 12)", "p50 0.12 ms, p99 1.2 ms"),
    ("Redisson 3.52 RDelayedQueue, 10,000 delays over 2 s (issue 12)", "0 lost, 0 early, p99 13-64 ms"),
    ("Redisson 3.52 idle (issue 12)", "0 commands/s"),
    ("Redisson 3.52 per waiting delayed item (issue 12)", "154 bytes"),
]


def num(value):
    """JMH writes NaN as the string "NaN"."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def t_quantile(df):
    if df in T_999:
        return T_999[df]
    keys = sorted(T_999)
    for lower, upper in zip(keys, keys[1:]):
        if lower < df < upper:
            return T_999[upper]
    return 3.291


def split_name(benchmark):
    parts = benchmark.split(".")
    cls = parts[-2]
    if cls.endswith("Benchmark"):
        cls = cls[: -len("Benchmark")]
    method = parts[-1]
    workload, _, contender = method.rpartition("_")
    return cls, workload, contender


def higher_is_better(unit):
    return "ops/" in unit


def display_unit(unit):
    # One operation per microsecond is a million per second.
    return "M ops/s" if unit == "ops/us" else ("ns" if unit == "ns/op" else unit)


def aux_figure(result, metric):
    """Mean and error of an auxiliary counter, rebuilt per iteration."""
    weight = max(1, result.get("forks", 1)) * max(1, result.get("measurementIterations", 1))
    values = [v * weight for fork in metric.get("rawData", []) for v in fork]
    if not values:
        return num(metric["score"]), float("nan")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    error = t_quantile(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, error


def figures(result):
    """Yields (figure name, score, error, unit) for one JMH result."""
    primary = result["primaryMetric"]
    secondary = result.get("secondaryMetrics", {})
    aux = OrderedDict((k, v) for k, v in secondary.items() if v.get("scoreUnit") == "#")
    if aux:
        if result.get("mode") != "ss":
            yield "score", num(primary["score"]), num(primary.get("scoreError")), primary["scoreUnit"]
        for name, metric in aux.items():
            score, error = aux_figure(result, metric)
            yield name, score, error, "#"
        return
    consumers = [v for k, v in secondary.items() if k.lower().endswith("consume")]
    chosen = consumers[0] if consumers else primary
    yield "score", num(chosen["score"]), num(chosen.get("scoreError")), chosen["scoreUnit"]


def allocation(result):
    metric = result.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    return None if metric is None else num(metric["score"])


def fmt(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 0.01:
        return f"{value:.3g}"
    return f"{value:.2g}"


def better_factor(ours, other, unit):
    if ours is None or other is None:
        return None
    if higher_is_better(unit):
        return ours / other if other else None
    return other / ours if ours else None


def target_text(key, rows_by_contender, unit):
    target = TARGETS.get(key)
    if target is None:
        return ""
    kind, value, text = target
    cls, workload, figure, contender = key
    ours = rows_by_contender.get(OURS if kind in ("times", "within") else contender)
    if ours is None:
        return text + ": no result"
    if kind in ("times", "within"):
        other = rows_by_contender.get(contender)
        if other is None:
            return text + ": no result"
        factor = better_factor(ours, other, unit)
        if factor is None:
            met = ours == 0 and other == 0
        elif kind == "times":
            met = factor >= value - 1e-12
        else:
            met = factor <= value + 1e-12
    elif kind == "max":
        met = ours <= value
    else:
        met = ours >= value
    return ("met: " if met else "MISSED: ") + text


def workload_label(cls, workload, params):
    label = cls + ("." + workload if workload else "")
    if params:
        label += " (" + ", ".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
    return label


def main(paths):
    results = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            results.extend(json.load(file))
    tables = OrderedDict()
    for result in results:
        cls, workload, contender = split_name(result["benchmark"])
        params = result.get("params") or {}
        key = (cls, workload, tuple(sorted(params.items())))
        for figure, score, error, unit in figures(result):
            # Allocation per operation means nothing for a whole single-shot run.
            alloc = None if unit == "#" else allocation(result)
            tables.setdefault(key, OrderedDict()).setdefault((figure, unit), []).append(
                (contender, score, error, alloc))

    out = ["# workqueue benchmarks", ""]
    out.append("Score +- error is JMH's 99.9 % confidence interval. 'ours vs it': how many times "
               "better ours is than that contender (above 1: ours is better). "
               "M ops/s = operations per microsecond. Auxiliary figures (#) are per measured "
               "iteration: counts, microseconds, milliseconds or bytes as named.")
    for (cls, workload, params), by_figure in sorted(tables.items()):
        out += ["", "## " + workload_label(cls, workload, dict(params)), ""]
        out.append("| figure | contender | score | +- error | unit | B/op | ours vs it | target |")
        out.append("|---|---|---:|---:|---|---:|---:|---|")
        for (figure, unit), rows in by_figure.items():
            by_contender = {contender: score for contender, score, _, _ in rows}
            ours = by_contender.get(OURS)
            rows = sorted(rows, key=lambda row: (row[0] != OURS, row[0]))
            for contender, score, error, alloc in rows:
                factor = None if contender == OURS else better_factor(ours, score, unit)
                target = target_text((cls, workload, figure, contender), by_contender, unit)
                out.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
                    figure, contender, fmt(score), fmt(error), display_unit(unit), fmt(alloc),
                    "" if contender == OURS else (fmt(factor) + "x" if factor is not None else "n/a"),
                    target))
            if cls == "MetricsOverhead" and ours and "oursPrometheus" in by_contender:
                loss = 1 - by_contender["oursPrometheus"] / ours
                out += ["", f"Throughput lost with Prometheus metrics: {loss:.1%}."]
                if "oursPrometheusNoTimers" in by_contender:
                    loss = 1 - by_contender["oursPrometheusNoTimers"] / ours
                    out.append(f"Throughput lost with Prometheus metrics without latency timers: {loss:.1%}.")
    out += ["", "## Figures quoted in the issues (other runs, other machines: orientation only)", "",
            "| what | figure |", "|---|---|"]
    out += [f"| {what} | {figure} |" for what, figure in QUOTED]
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

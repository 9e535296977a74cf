#!/usr/bin/env bash
# Issue 30's local ceiling: the claim and done SQL of workqueue-postgres run by pgbench, with
# nothing of Java in the way. A table made by the queue's own schema script
# (workqueue-postgres/src/main/resources/dev/workqueue/postgres/schema.sql) is filled with a
# backlog of ready items; then CLIENTS pgbench clients (as the benchmarks' 16 workers) each
# repeat one worker step: the done of what the client holds and the claim of what it takes
# next, in one statement and one commit (done-claim-*.sql):
#   batch  BATCH items per commit (done-claim-batch.sql; 100 by default)
#   one    one item per commit (done-claim-one.sql): what a worker's doneAndPoll does
# Each mode runs DURATION seconds on a fresh backlog (large enough not to run out; the
# script fails if it did) and prints items/s and commits per item
# (pg_stat_database.xact_commit over the run, read after pgbench's connections have closed,
# so exact, divided by the items done).
#
# Usage:  workqueue-benchmarks/pgbench/ceiling.sh [batch|one ...]    (default: batch one)
#   PGHOST / PGPORT (default 127.0.0.1:5432), CLIENTS (16), THREADS (2), DURATION (10),
#   BATCH (100). CLIENTS=1 THREADS=1 BATCH=16 is the engine's drain with its 16 workers and
#   one claim in flight, without Java: the most it can drain per instance on this server.
# It runs in a database of its own (wqbench_pgbench_<random>), made on the server and
# dropped at the end, so that other clients' commits do not count and nothing is left
# behind. Needs psql and pgbench (the server's version).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
schema="$here/../../workqueue-postgres/src/main/resources/dev/workqueue/postgres/schema.sql"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
clients="${CLIENTS:-16}"
threads="${THREADS:-2}"
duration="${DURATION:-10}"
modes=("$@")
[[ ${#modes[@]} -gt 0 ]] || modes=(batch one)

db="wqbench_pgbench_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
psql -q -d postgres -c "CREATE DATABASE $db" > /dev/null
trap 'psql -q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" > /dev/null' EXIT

q() { psql -X -At -d "$db" -c "$1"; }
sed -e 's/{table}/wqbench_pgbench/g' -e 's/{name}/wqbench_pgbench/g' "$schema" | psql -X -q -d "$db" > /dev/null

echo "server: $(q 'SHOW server_version'), autovacuum $(q 'SHOW autovacuum'), fsync $(q 'SHOW fsync')," \
	"synchronous_commit $(q 'SHOW synchronous_commit'); $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pgbench: $clients clients, $threads threads, $duration s per mode"
printf '| mode | items/s | commits per item | transactions/s | items done | backlog left |\n|---|---:|---:|---:|---:|---:|\n'
for mode in "${modes[@]}"; do
	case "$mode" in
		batch) batch="${BATCH:-100}"; backlog=600000; script="$here/done-claim-batch.sql"; vars=(-D 'items={}' -D 'tokens={}' -D "batch=$batch") ;;
		one) batch=1; backlog=150000; script="$here/done-claim-one.sql"; vars=(-D item=none -D token=0) ;;
		*) echo "unknown mode '$mode' (batch or one)" >&2; exit 2 ;;
	esac
	q "TRUNCATE wqbench_pgbench" > /dev/null
	q "INSERT INTO wqbench_pgbench (queue, item, state, priority, ready_at, seq)
		SELECT 'q', 'item-' || g, 0, 0, statement_timestamp() - interval '1 minute', nextval('wqbench_pgbench_token')
		FROM generate_series(1, $backlog) g" > /dev/null
	q "VACUUM ANALYZE wqbench_pgbench" > /dev/null
	sleep 1
	before="$(q 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')"
	out="$(pgbench -n -M prepared -c "$clients" -j "$threads" -T "$duration" "${vars[@]}" -f "$script" "$db" 2>&1)" || {
		echo "$out" >&2
		exit 1
	}
	# pgbench's backends report their counts as they exit: wait until they have.
	polls=0
	while polls=$((polls + 1)) && [[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND backend_type = 'client backend'")" != "0" ]]; do
		sleep 0.05
	done
	after="$(q 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')"
	left="$(q "SELECT count(*) FROM wqbench_pgbench WHERE state = 0")"
	held="$(q "SELECT count(*) FROM wqbench_pgbench WHERE state = 1")"
	done_items=$((backlog - left - held))
	tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$out")"
	# Each q is a connection of its own whose one commit is counted as it exits: the read
	# that opened the window and the polls are inside it, the read that closed it is not.
	commits=$((after - before - 1 - polls))
	awk -v mode="$mode" -v items="$done_items" -v d="$duration" -v commits="$commits" -v tps="$tps" -v left="$left" \
		'BEGIN { printf "| %s | %.0f | %.3f | %.0f | %d | %d |\n", mode, items / d, commits / items, tps, items, left }'
	if [[ "$left" == "0" ]]; then
		echo "the backlog ran out: raise it for mode $mode" >&2
		exit 1
	fi
done

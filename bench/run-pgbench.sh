#!/usr/bin/env bash
# Runs the SQL of one executeTransaction (bench/pgbench/execute.sql) straight
# through pgbench, as the ceiling the service's BenchmarkExecuteTransaction is
# compared with, and compares the two concurrency strategies (row lock vs
# SERIALIZABLE with retry) with hot and with spread-out senders.
#
# It creates a scratch database, applies the migrations (db/migrations/*.tx.up.sql
# in order), seeds two organizations, 1000 sender and 1000 receiver agents with
# steady-state trust counters, runs each configuration, prints a table (tps,
# average latency, failed and retried transactions, and the machine's busy and
# stolen CPU share during the run, from /proc/stat), and drops the database
# (also on error or Ctrl-C).
#
# Usage: bench/run-pgbench.sh [main|strategy|notify|all]...   (default: all)
#   main      execute.sql, each client its own sender and receivers, -c 8 and -c 32
#   strategy  execute.sql vs execute_serializable.sql, senders random among
#             HOT_SENDERS (4) and among 1000, -c 8 and -c 32
#   notify    execute.sql without its NOTIFY, -c 8 and -c 32 (diagnostic)
# Environment: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres),
#   DURATION (15 s per run), CLIENTS ("8 32"), THREADS (2), MAX_TRIES (10),
#   HOT_SENDERS (4), PGBENCH (pgbench on PATH, else the PostgreSQL 15 one),
#   WARMUP (10 s of unreported execute.sql before the first run, so that
#   the first run in a fresh database is not slower than the rest),
#   KEEP_LOGS (unset: per-run pgbench output is deleted with the temp dir).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
DURATION=${DURATION:-15}
CLIENTS=${CLIENTS:-"8 32"}
THREADS=${THREADS:-2}
MAX_TRIES=${MAX_TRIES:-10}
HOT_SENDERS=${HOT_SENDERS:-4}
WARMUP=${WARMUP:-10}
PGBENCH=${PGBENCH:-$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)}
AGENTS=1000 # senders and receivers each

modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(all)
for m in "${modes[@]}"; do
	case $m in main | strategy | notify | all) ;; *)
		echo "unknown mode $m (main|strategy|notify|all)" >&2
		exit 2
		;;
	esac
done

dbname="att_pgbench_$$"
logs=$(mktemp -d)
cleanup() {
	dropdb --if-exists --force "$dbname" >/dev/null 2>&1 || true
	if [ -n "${KEEP_LOGS:-}" ]; then echo "pgbench logs kept in $logs"; else rm -rf "$logs"; fi
}
trap cleanup EXIT

psqlq() { psql -X -q -v ON_ERROR_STOP=1 -d "$dbname" "$@"; }

# cpustat prints "busy steal total" jiffies from /proc/stat (zeros elsewhere):
# on a VM, steal is CPU time the host took away, the main source of noise.
cpustat() {
	if [ -r /proc/stat ]; then
		awk '/^cpu /{print $2+$3+$4+$7+$8, $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat
	else
		echo 0 0 0
	fi
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) cores  $("$PGBENCH" --version)  $(psql -XAtc 'SHOW server_version' -d postgres)"
echo "# database $dbname, $DURATION s per run, -j $THREADS, --max-tries=$MAX_TRIES"
createdb "$dbname"
for f in "$root"/db/migrations/*.tx.up.sql; do
	# Each migration runs in one transaction, as the service's migrator does (.tx.).
	psqlq -1 -f "$f"
done

psqlq -v agents=$AGENTS -f "$here/pgbench/seed.sql"
psqlq -c 'VACUUM ANALYZE'

results=()
# run LABEL SCRIPT CLIENTS VAR=VALUE...
run() {
	local label=$1 script=$2 c=$3
	shift 3
	local defs=() v
	for v in "$@"; do defs+=(-D "$v"); done
	psqlq -c 'VACUUM ANALYZE agents, trust_counters' -c 'CHECKPOINT'
	local out="$logs/${label// /_}-c$c.log"
	local before after
	before=$(cpustat)
	"$PGBENCH" -n -T "$DURATION" -c "$c" -j "$THREADS" --max-tries="$MAX_TRIES" \
		-f "$here/pgbench/$script" "${defs[@]}" "$dbname" >"$out" 2>&1 || {
		cat "$out"
		echo "pgbench failed: $label -c $c" >&2
		exit 1
	}
	after=$(cpustat)
	local tps failed retried lat busy steal
	read -r busy steal < <(echo "$before $after" | awk '{t=$6-$3; if (t>0) printf "%.0f %.0f\n", 100*($4-$1)/t, 100*($5-$2)/t; else print "- -"}')
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$out")
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out")
	retried=$(sed -n 's/^number of transactions retried: \([0-9]*\).*/\1/p' "$out")
	lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$out")
	results+=("$(printf '%-34s %4s %10s %10s %9s %8s %6s %6s' "$label" "$c" "$tps" "$lat" "${failed:-0}" "${retried:-0}" "$busy" "$steal")")
	echo "${results[-1]}"
}

if [ "$WARMUP" -gt 0 ]; then
	"$PGBENCH" -n -T "$WARMUP" -c 8 -j "$THREADS" -f "$here/pgbench/execute.sql" -D per_client=1 \
		-D senders=$AGENTS -D receivers=$AGENTS -D notify=1 "$dbname" >/dev/null 2>&1
fi

header=$(printf '%-34s %4s %10s %10s %9s %8s %6s %6s' configuration c tps 'lat ms' failed retried 'busy%' 'steal%')
echo "$header"
want() { local m; for m in "${modes[@]}"; do [ "$m" = "$1" ] || [ "$m" = all ] && return 0; done; return 1; }
if want main; then
	for c in $CLIENTS; do
		run "rowlock per-client" execute.sql "$c" per_client=1 senders=$AGENTS receivers=$AGENTS notify=1
	done
fi
if want strategy; then
	for c in $CLIENTS; do
		for s in "$HOT_SENDERS" "$AGENTS"; do
			run "rowlock senders=$s" execute.sql "$c" per_client=0 senders="$s" receivers=$AGENTS notify=1
			run "serializable senders=$s" execute_serializable.sql "$c" per_client=0 senders="$s" receivers=$AGENTS notify=1
		done
	done
fi
if want notify; then
	for c in $CLIENTS; do
		run "rowlock per-client no-notify" execute.sql "$c" per_client=1 senders=$AGENTS receivers=$AGENTS notify=0
	done
fi

echo
echo "$header"
printf '%s\n' "${results[@]}"

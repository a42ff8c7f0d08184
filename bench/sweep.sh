#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/sweep.sh - how fast a fail-nth sweep runs: forking at each hit
# (gpuiso sweep) against rerunning the whole trace per hit (--from-scratch,
# the iommufd fail-nth selftest's way), both measured here, on one machine.
#
#   bench/sweep.sh OUT.json
#
# It generates a power-cycle trace (EVENTS events, seed 1), warms the replay
# cache, and counts the hits of every injection point. When the from-scratch
# baseline over every point would take more than BASELINE_MAX_S seconds
# (hits x one replay / JOBS), both modes run over the points of POINTS only
# (and the output says so), and the full fork sweep runs alone for at most
# FULL_BUDGET_S seconds: its time is measured if it finishes, else estimated
# from the subset's seconds per run.
#
# Environment: GPUISO (default: build/gpuiso), EVENTS (10000), SCENARIO
# (traces/scenarios/lda-chain.yaml), JOBS (2), POINTS ('fbsave/*'),
# BASELINE_MAX_S (120), FULL_BUDGET_S (120).
#
# Writes bench JSON (gpuiso-bench/1): sweep.fork_s, sweep.from_scratch_s (s),
# sweep.runs_per_s (ops/s, fork mode), sweep.speedup (ratio), and
# sweep.full_fork_s or sweep.full_fork_estimate_s (s).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
gpuiso=${GPUISO:-$root/build/gpuiso}
events=${EVENTS:-10000}
scenario=${SCENARIO:-$root/traces/scenarios/lda-chain.yaml}
jobs=${JOBS:-2}
points=${POINTS:-fbsave/*}
baseline_max=${BASELINE_MAX_S:-120}
full_budget=${FULL_BUDGET_S:-120}

if [ $# -ne 1 ]; then
	echo "usage: bench/sweep.sh OUT.json" >&2
	exit 2
fi
out_json=$1
[ -x "$gpuiso" ] || { echo "bench/sweep.sh: $gpuiso: not built" >&2; exit 3; }

tmp=$(mktemp -d /tmp/gpuiso-bench-sweep-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# a private cache: the first replay fills it, every later run reads it
export XDG_CACHE_HOME=$tmp/cache

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# run_sweep NAME ARGS...: a sweep into $tmp/NAME, its wall time in $wall
run_sweep() {
	local name=$1 t0 rc=0
	shift
	t0=$(now)
	"$gpuiso" sweep "$tmp/trace" --scenario "$scenario" -o "$tmp/$name" --jobs "$jobs" "$@" \
		>"$tmp/$name.log" 2>&1 || rc=$?
	wall=$(secs "$t0" "$(now)")
	# 1 is a finding (violations or crashes), not a failure of the bench
	if [ "$rc" -gt 1 ]; then
		cat "$tmp/$name.log" >&2
		exit 3
	fi
	runs=$(sed -n 's/^sweep: [0-9]* hits, \([0-9]*\) runs.*/\1/p' "$tmp/$name.log")
	echo "  $name: $(sed -n 's/^sweep: //p' "$tmp/$name.log")"
	echo "  $name: $runs runs in $wall s wall"
}

echo "trace: power-cycle, $events events, seed 1; scenario $(basename "$scenario"); --jobs $jobs"
"$gpuiso" trace gen --profile power-cycle --events "$events" --seed 1 -o "$tmp/trace" >/dev/null
"$gpuiso" replay "$tmp/trace" --scenario "$scenario" >/dev/null  # fills the cache
t0=$(now)
"$gpuiso" replay "$tmp/trace" --scenario "$scenario" >/dev/null
one_run=$(secs "$t0" "$(now)")
echo "one replay (from the cache): $one_run s"

# Hits of every point: the sweep prints them before its first run, on a
# terminal only (hence script(1)); stop it there.
hits=""
if command -v script >/dev/null; then
	script -qfec "'$gpuiso' sweep '$tmp/trace' --scenario '$scenario' -o '$tmp/count' --jobs 1" \
		"$tmp/count.log" >/dev/null 2>&1 &
	count_pid=$!
	for _ in $(seq 1 $((${one_run%.*} * 20 + 600))); do
		hits=$(sed -n 's/^sweep: \([0-9]*\) runs to do.*/\1/p' "$tmp/count.log" | tr -d '\r')
		[ -n "$hits" ] && break
		kill -0 "$count_pid" 2>/dev/null || break
		sleep 0.1
	done
	# the sweep leads its own session under script(1): end its process group (it and its runs)
	sweep_pid=$(pgrep -P "$count_pid" || true)
	[ -n "$sweep_pid" ] && kill -TERM -- "-$sweep_pid" 2>/dev/null || true
	wait "$count_pid" 2>/dev/null || true
	tr -d '\r' <"$tmp/count.log" | sed -n 's/^sweep: \([a-z_]*\/[a-z_]*\): \([0-9]*\) hits/  \1 \2/p'
fi
if [ -n "$hits" ]; then
	baseline_est=$(calc "$hits * $one_run / $jobs")
	echo "every point: $hits hits; a from-scratch sweep of them all would take about $baseline_est s"
else
	baseline_est=$((baseline_max + 1))
	echo "every point: hit count unknown (no script(1)); timing a subset"
fi

notes=""
if awk "BEGIN { exit !($baseline_est <= $baseline_max) }"; then
	scope="every point"
	sel=()
else
	scope="--points '$points'"
	sel=(--points "$points")
	notes="baseline over $points only: over every point it would take about $baseline_est s"
	echo "the baseline would take more than $baseline_max s: both modes run over $scope only"
fi

echo "fork at each hit ($scope):"
run_sweep fork "${sel[@]}"
fork_s=$wall
fork_runs=$runs
echo "from scratch ($scope):"
run_sweep scratch "${sel[@]}" --from-scratch
scratch_s=$wall
if ! cmp -s "$tmp/fork/summary.json" "$tmp/scratch/summary.json"; then
	echo "bench/sweep.sh: the two modes disagree:" >&2
	diff "$tmp/fork/summary.json" "$tmp/scratch/summary.json" >&2 || true
	exit 1
fi
rate=$(calc "$fork_runs / $fork_s")
scratch_rate=$(calc "$fork_runs / $scratch_s")
speedup=$(calc "$scratch_s / $fork_s")
echo "runs/s: fork $rate, from scratch $scratch_rate; speedup $speedup (same summaries)"

full_metric=""
if [ ${#sel[@]} -gt 0 ]; then
	echo "fork at each hit, every point, alone (at most $full_budget s):"
	t0=$(now)
	rc=0
	timeout "$full_budget" "$gpuiso" sweep "$tmp/trace" --scenario "$scenario" -o "$tmp/full" \
		--jobs "$jobs" >"$tmp/full.log" 2>&1 || rc=$?
	full_s=$(secs "$t0" "$(now)")
	if [ "$rc" -le 1 ]; then
		echo "  full: $(sed -n 's/^sweep: //p' "$tmp/full.log")"
		echo "  full: $full_s s wall"
		full_metric="\"sweep.full_fork_s\": {\"value\": $full_s, \"unit\": \"s\"}"
	elif [ -n "$hits" ] && [ "$fork_runs" -gt 0 ]; then
		full_est=$(calc "$hits * $fork_s / $fork_runs")
		echo "  full: not done after $full_budget s; at the subset's $(calc "$fork_s / $fork_runs") s/run" \
			"its $hits runs would take about $full_est s"
		full_metric="\"sweep.full_fork_estimate_s\": {\"value\": $full_est, \"unit\": \"s\"}"
		notes="$notes; full fork sweep estimated from the subset's seconds per run"
	else
		echo "  full: not done after $full_budget s"
	fi
fi

git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "{"
	echo "  \"schema\": \"gpuiso-bench/1\","
	echo "  \"host\": \"$(hostname)\","
	echo "  \"git_rev\": \"$git_rev\","
	echo "  \"suite\": \"sweep\","
	echo "  \"notes\": \"$events-event power-cycle trace, $(basename "$scenario"), --jobs $jobs; $scope${notes:+; $notes}\","
	echo "  \"metrics\": {"
	echo "    \"sweep.fork_s\": {\"value\": $fork_s, \"unit\": \"s\"},"
	echo "    \"sweep.from_scratch_s\": {\"value\": $scratch_s, \"unit\": \"s\"},"
	echo "    \"sweep.runs_per_s\": {\"value\": $rate, \"unit\": \"ops/s\"},"
	echo "    \"sweep.speedup\": {\"value\": $speedup, \"unit\": \"ratio\"}${full_metric:+,}"
	[ -n "$full_metric" ] && echo "    $full_metric"
	echo "  }"
	echo "}"
} >"$out_json.tmp"
mv "$out_json.tmp" "$out_json"
echo "wrote $out_json"

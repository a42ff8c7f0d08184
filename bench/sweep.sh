#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/sweep.sh - how fast a fail-nth sweep runs: in persistent workers
# that restore a snapshot after each run (gpuiso sweep, the default),
# forking at each hit (--fork) and rerunning the whole trace per hit
# (--from-scratch, the iommufd fail-nth selftest's way); and the full sweep
# against the fork sweep of a build from before persistent workers (issue
# 35), all measured here, on one machine.
#
#   bench/sweep.sh OUT.json
#
# It generates a power-cycle trace (EVENTS events, seed 1), warms the replay
# cache, and counts the hits of every injection point. When the from-scratch
# baseline over every point would take more than BASELINE_MAX_S seconds
# (hits x one replay / JOBS), the three modes run over the points of POINTS
# only (and the output says so). Their summaries (summary.json, summary.txt)
# must be the same once each output folder's path is replaced by OUT.
#
# Then the full sweep over every point runs ROUNDS times, each run into its
# own folder, alternating with the same sweep by the BEFORE binary (before,
# now, before, now, ...), which forks at each hit: the figures are the
# medians of wall time and of CPU time (user + system, the runs' included),
# and the speedups before/now (target >= 5 in wall time; printed, never
# failed: figures are judged by people, docs/benchmarks.md). Last, the same
# sweep of a trace SCALE times as long (one round): its CPU time over the
# full sweep's median (target <= 3.3 for SCALE 3: a sweep grows with its
# runs, not faster). BEFORE is a gpuiso binary; when unset, BEFORE_REV is
# built once (release, in a temporary git worktree of this tree's
# repository) and kept in BEFORE_CACHE/before-HASH. Without BEFORE and
# without BEFORE_REV in the tree's git history (a tarball), the comparison
# is skipped. A run still going after FULL_BUDGET_S seconds ends the rounds:
# then there is no comparison, and when no run of this build finished, the
# full sweep's time is estimated from the subset's seconds per run.
#
# Environment: GPUISO (default: build/gpuiso), EVENTS (10000), SCENARIO
# (traces/scenarios/lda-chain.yaml), JOBS (2), POINTS ('fbsave/*'),
# BASELINE_MAX_S (120), FULL_BUDGET_S (300 per run), ROUNDS (3), SCALE (3;
# 0: no scaled sweep), BEFORE (unset), BEFORE_REV (21ab465, where issue 35
# measured the fork sweep), BEFORE_CACHE ($XDG_CACHE_HOME/gpuiso-bench, or
# ~/.cache/gpuiso-bench), BUILD_JOBS (meson compile -j; default: ninja's).
#
# Writes bench JSON (gpuiso-bench/1): sweep.persistent_s, sweep.fork_s,
# sweep.from_scratch_s (s, over the subset), sweep.runs_per_s (ops/s,
# persistent), sweep.speedup (ratio, from scratch over persistent),
# sweep.fork_vs_persistent (ratio), sweep.full_s and sweep.full_cpu_s (s)
# or sweep.full_estimate_s (s), with the comparison sweep.full_before_s,
# sweep.full_before_cpu_s (s), sweep.speedup_vs_before and
# sweep.cpu_speedup_vs_before (ratio), and with SCALE sweep.scaled_cpu_s
# (s) and sweep.scaled_cpu_ratio (ratio).
#
# Exit codes: 0 measured (whatever the figures), 1 the modes disagree,
# 2 usage, 3 environment problem (gpuiso not built, BEFORE not executable,
# BEFORE_REV failed to build, a sweep failed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
gpuiso=${GPUISO:-$root/build/gpuiso}
events=${EVENTS:-10000}
scenario=${SCENARIO:-$root/traces/scenarios/lda-chain.yaml}
jobs=${JOBS:-2}
points=${POINTS:-fbsave/*}
baseline_max=${BASELINE_MAX_S:-120}
full_budget=${FULL_BUDGET_S:-300}
rounds=${ROUNDS:-3}
before=${BEFORE:-}
before_rev=${BEFORE_REV:-21ab465}
before_cache=${BEFORE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuiso-bench}
build_jobs=${BUILD_JOBS:-}
scale=${SCALE:-3}
target=5      # the full sweep's speedup over before's fork sweep, wall time (issue 35)
scale_target=3.3  # CPU of the sweep SCALE (3) times as long over the full sweep's

if [ $# -ne 1 ]; then
	echo "usage: bench/sweep.sh OUT.json" >&2
	exit 2
fi
if ! [[ $scale =~ ^[0-9]+$ ]]; then
	echo "bench/sweep.sh: SCALE takes a whole number, not '$scale'" >&2
	exit 2
fi
if ! [[ $rounds =~ ^[0-9]+$ ]] || [ "$((10#$rounds))" -lt 1 ]; then
	echo "bench/sweep.sh: ROUNDS takes a whole number from 1, not '$rounds'" >&2
	exit 2
fi
rounds=$((10#$rounds))
out_json=$1
[ -x "$gpuiso" ] || { echo "bench/sweep.sh: $gpuiso: not built" >&2; exit 3; }
if [ -n "$before" ] && [ ! -x "$before" ]; then
	echo "bench/sweep.sh: BEFORE=$before: not an executable" >&2
	exit 3
fi

tmp=$(mktemp -d /tmp/gpuiso-bench-sweep-XXXXXX)
before_src=""  # the temporary worktree BEFORE_REV builds in, while it exists
count_pid=""   # the sweep that counts hits (a session leader), while it runs
cleanup() {
	if [ -n "$count_pid" ] && kill -0 "$count_pid" 2>/dev/null; then
		kill -TERM -- "-$count_pid" 2>/dev/null || true
	fi
	if [ -n "$before_src" ]; then
		git -C "$root" worktree remove --force "$before_src" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# a private cache: the first replay fills it, every later run reads it (the
# BEFORE build's cache stays where the user keeps it: before_cache above)
export XDG_CACHE_HOME=$tmp/cache

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# build_of BIN NAME: replays the trace with BIN (which warms the cache for it)
# and echoes how BIN was built, as its results JSON says
build_of() {
	"$1" replay "$tmp/trace" --scenario "$scenario" --json "$tmp/$2-build.json" \
		>/dev/null 2>&1 || true
	sed -n 's/^ *"build": "\(.*\)",*$/\1/p' "$tmp/$2-build.json" 2>/dev/null | head -n 1 |
		grep . || echo unknown
}

# run_sweep NAME ARGS...: a sweep into $tmp/NAME, its wall and CPU time in $wall and $cpu
run_sweep() {
	local name=$1 rc=0
	shift
	timed "$tmp/$name.log" "$gpuiso" sweep "$tmp/trace" --scenario "$scenario" -o "$tmp/$name" \
		--jobs "$jobs" "$@" || rc=$?
	# 1 is a finding (violations or crashes), not a failure of the bench
	if [ "$rc" -gt 1 ]; then
		cat "$tmp/$name.log" >&2
		exit 3
	fi
	runs=$(sed -n 's/^sweep: [0-9]* hits, \([0-9]*\) runs.*/\1/p' "$tmp/$name.log")
	echo "  $name: $(sed -n 's/^sweep: //p' "$tmp/$name.log")"
	echo "  $name: $runs runs in $wall s wall, $cpu s CPU"
}

# full_run NAME BIN [TRACE]: the full sweep (every point, the binary's default
# mode) by BIN into $tmp/NAME, its wall and CPU time in $wall and $cpu; fails
# when it was still going after FULL_BUDGET_S
full_run() {
	local name=$1 bin=$2 trace=${3:-$tmp/trace} rc=0
	timed "$tmp/$name.log" timeout "$full_budget" "$bin" sweep "$trace" --scenario "$scenario" \
		-o "$tmp/$name" --jobs "$jobs" || rc=$?
	[ "$rc" -ne 124 ] || return 1
	if [ "$rc" -gt 1 ]; then
		cat "$tmp/$name.log" >&2
		exit 3
	fi
}

# work_of NAME: what the sweep into $tmp/NAME did (hits, runs, outcomes), not its time
work_of() { sed -n 's/^sweep: \([^(]*\) (.*/\1/p' "$tmp/$1.log"; }

# normalised DIR FILE: DIR/FILE with DIR's path, wherever it stands whole, as OUT
normalised() {
	local esc
	esc=$(printf '%s' "$1" | sed 's/[][\.*^$#]/\\&/g')
	sed "s#$esc\\([/\"[:space:]]\\|\$\\)#OUT\\1#g" "$1/$2"
}

# The binary compared with: BEFORE, else BEFORE_REV built (or cached), else none.
no_compare=""
if ! find_before; then
	before_what=""
	no_compare="no BEFORE, and $before_rev is not in this tree's git history"
	echo "before: $no_compare (no git checkout, or a shallow one): the comparison is skipped"
fi

echo "trace: power-cycle, $events events, seed 1; scenario $(basename "$scenario"); --jobs $jobs"
"$gpuiso" trace gen --profile power-cycle --events "$events" --seed 1 -o "$tmp/trace" >/dev/null
"$gpuiso" replay "$tmp/trace" --scenario "$scenario" >/dev/null  # fills the cache
t0=$(now)
"$gpuiso" replay "$tmp/trace" --scenario "$scenario" >/dev/null
one_run=$(secs "$t0" "$(now)")
echo "one replay (from the cache): $one_run s"

notes=""
if [ -n "$before" ]; then
	now_build=$(build_of "$gpuiso" now)
	before_build=$(build_of "$before" before)
	echo "now: $gpuiso, build $now_build"
	echo "before: $before_what, build $before_build"
	if [ "$now_build" != "$before_build" ]; then
		echo "bench/sweep.sh: warning: the two binaries are built differently: the ratio" \
			"measures the builds as well as the code" >&2
		notes="builds differ: now $now_build, before $before_build"
	fi
fi

# Hits of every point: the sweep prints them on stderr before its first run;
# stop it there (in a session of its own: it and its workers).
setsid "$gpuiso" sweep "$tmp/trace" --scenario "$scenario" -o "$tmp/count" --jobs 1 \
	>/dev/null 2>"$tmp/count.log" &
count_pid=$!
hits=""
for _ in $(seq 1 $((${one_run%.*} * 20 + 600))); do
	hits=$(sed -n 's/^sweep: \([0-9]*\) runs to do.*/\1/p' "$tmp/count.log" 2>/dev/null || true)
	[ -n "$hits" ] && break
	kill -0 "$count_pid" 2>/dev/null || break
	sleep 0.1
done
kill -TERM -- "-$count_pid" 2>/dev/null || true
wait "$count_pid" 2>/dev/null || true
sed -n 's/^sweep: \([a-z_]*\/[a-z_]*\): \([0-9]*\) hits/  \1 \2/p' "$tmp/count.log"
if [ -n "$hits" ]; then
	baseline_est=$(calc "$hits * $one_run / $jobs")
	echo "every point: $hits hits; a from-scratch sweep of them all would take about $baseline_est s"
else
	baseline_est=$((baseline_max + 1))
	echo "every point: hit count unknown (the sweep said none); timing a subset"
fi

if awk "BEGIN { exit !($baseline_est <= $baseline_max) }"; then
	scope="every point"
	sel=()
else
	scope="--points '$points'"
	sel=(--points "$points")
	notes="${notes:+$notes; }baseline over $points only: over every point it would take about $baseline_est s"
	echo "the baseline would take more than $baseline_max s: both modes run over $scope only"
fi

echo "persistent workers ($scope):"
run_sweep persistent "${sel[@]}"
persistent_s=$wall
persistent_runs=$runs
echo "fork at each hit ($scope):"
run_sweep fork "${sel[@]}" --fork
fork_s=$wall
echo "from scratch ($scope):"
run_sweep scratch "${sel[@]}" --from-scratch
scratch_s=$wall
# the summaries name each sweep's own folder (trimmed traces under OUT/findings/)
for mode in persistent fork; do
	for f in summary.json summary.txt; do
		if ! diff <(normalised "$tmp/$mode" "$f") <(normalised "$tmp/scratch" "$f") \
			>"$tmp/$f.diff"; then
			echo "bench/sweep.sh: $mode and from scratch disagree ($f, each folder's" \
				"path as OUT):" >&2
			head -n 40 "$tmp/$f.diff" >&2
			exit 1
		fi
	done
done
rate=$(calc "$persistent_runs / $persistent_s")
speedup=$(calc "$scratch_s / $persistent_s")
fork_ratio=$(calc "$fork_s / $persistent_s")
echo "runs/s: persistent $rate, fork $(calc "$persistent_runs / $fork_s"), from scratch" \
	"$(calc "$persistent_runs / $scratch_s"); persistent is $fork_ratio x fork and $speedup x" \
	"from scratch (same summaries)"

# The full sweep, ROUNDS times, alternating with BEFORE's (a fork sweep) when there is one.
rounds_word=rounds
[ "$rounds" -ne 1 ] || rounds_word=round
echo "every point, $rounds $rounds_word${before:+, alternating with before}" \
	"(at most $full_budget s a run):"
now_s=()
now_cpu=()
before_s=()
before_cpu=()
stopped=""
for r in $(seq 1 "$rounds"); do
	line="  round $r:"
	if [ -n "$before" ]; then
		if ! full_run "full-before-$r" "$before"; then
			stopped="before's run of round $r was still going after $full_budget s"
			break
		fi
		before_s+=("$wall")
		before_cpu+=("$cpu")
		line="$line before $wall s ($cpu s CPU),"
	fi
	if ! full_run "full-now-$r" "$gpuiso"; then
		stopped="this build's run of round $r was still going after $full_budget s"
		break
	fi
	now_s+=("$wall")
	now_cpu+=("$cpu")
	line="$line now $wall s ($cpu s CPU)"
	[ -z "$before" ] || line="$line, before/now $(calc "${before_s[-1]} / $wall")"
	echo "$line"
	if [ "$r" -eq 1 ]; then
		echo "  now: $(sed -n 's/^sweep: //p' "$tmp/full-now-1.log")"
		if [ -n "$before" ]; then
			echo "  before: $(sed -n 's/^sweep: //p' "$tmp/full-before-1.log")"
			if [ "$(work_of full-now-1)" != "$(work_of full-before-1)" ]; then
				echo "bench/sweep.sh: warning: before and now did not do the same runs" \
					"(above)" >&2
				notes="${notes:+$notes; }before and now did not do the same runs"
			fi
		fi
	fi
done
[ -z "$stopped" ] || echo "  stopped: $stopped"

metrics=(
	"sweep.persistent_s=$persistent_s:s"
	"sweep.fork_s=$fork_s:s"
	"sweep.from_scratch_s=$scratch_s:s"
	"sweep.runs_per_s=$rate:ops/s"
	"sweep.speedup=$speedup:ratio"
	"sweep.fork_vs_persistent=$fork_ratio:ratio"
)
if [ ${#now_s[@]} -gt 0 ]; then
	full_s=$(median "${now_s[@]}")
	full_cpu=$(median "${now_cpu[@]}")
	metrics+=("sweep.full_s=$full_s:s" "sweep.full_cpu_s=$full_cpu:s")
	notes="${notes:+$notes; }full sweep rounds (s): now ${now_s[*]}"
	[ ${#before_s[@]} -eq 0 ] || notes="$notes, before ${before_s[*]} ($before_what)"
	if [ -n "$before" ] && [ -z "$stopped" ]; then
		before_med=$(median "${before_s[@]}")
		before_cpu_med=$(median "${before_cpu[@]}")
		ratio=$(calc "$before_med / $full_s")
		cpu_ratio=$(calc "$before_cpu_med / $full_cpu")
		verdict=""
		! awk "BEGIN { exit !($ratio < $target) }" || verdict=": BELOW TARGET"
		echo "full sweep: now $full_s s ($full_cpu s CPU), before $before_med s" \
			"($before_cpu_med s CPU; medians of $rounds alternating rounds): speedup" \
			"$ratio in wall time (target >= $target)$verdict, $cpu_ratio in CPU time"
		metrics+=("sweep.full_before_s=$before_med:s" "sweep.full_before_cpu_s=$before_cpu_med:s"
			"sweep.speedup_vs_before=$ratio:ratio" "sweep.cpu_speedup_vs_before=$cpu_ratio:ratio")
	else
		echo "full sweep: now $full_s s (median of ${#now_s[@]} of $rounds $rounds_word); no" \
			"comparison: ${stopped:-$no_compare}"
		notes="$notes; no comparison: ${stopped:-$no_compare}"
	fi
	if [ "$scale" -gt 0 ]; then
		"$gpuiso" trace gen --profile power-cycle --events "$((events * scale))" --seed 1 \
			-o "$tmp/trace-scaled" >/dev/null
		"$gpuiso" replay "$tmp/trace-scaled" --scenario "$scenario" >/dev/null  # the cache
		if full_run full-scaled "$gpuiso" "$tmp/trace-scaled"; then
			scaled_ratio=$(calc "$cpu / $full_cpu")
			verdict=""
			[ "$scale" -ne 3 ] || ! awk "BEGIN { exit !($scaled_ratio > $scale_target) }" ||
				verdict=": ABOVE TARGET"
			echo "a trace $scale times as long: $wall s ($cpu s CPU), $scaled_ratio x the CPU" \
				"of the full sweep's median${verdict:+ (target <= $scale_target)$verdict}"
			echo "  scaled: $(sed -n 's/^sweep: //p' "$tmp/full-scaled.log")"
			metrics+=("sweep.scaled_cpu_s=$cpu:s" "sweep.scaled_cpu_ratio=$scaled_ratio:ratio")
		else
			echo "a trace $scale times as long: still going after $full_budget s; no figure"
		fi
	fi
elif [ -n "$hits" ] && [ "$persistent_runs" -gt 0 ]; then
	full_est=$(calc "$hits * $persistent_s / $persistent_runs")
	echo "full sweep: no run of this build done ($stopped); at the persistent mode's" \
		"$(calc "$persistent_s / $persistent_runs") s/run its $hits runs would take about" \
		"$full_est s; no comparison"
	metrics+=("sweep.full_estimate_s=$full_est:s")
	notes="${notes:+$notes; }full sweep estimated from the subset's seconds per run"
else
	echo "full sweep: no run of this build done ($stopped); no comparison"
fi

bench_json "$out_json" sweep "$events-event power-cycle trace, $(basename "$scenario"), --jobs $jobs; $scope${notes:+; $notes}" "${metrics[@]}"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/shards.sh - what running a sweep in shards costs (docs/slurm.md,
# "Figures"): the full fail-nth sweep of a generated power-cycle trace in
# one process (gpuiso sweep --jobs JOBS), against the same sweep in N shards
# (gpuiso sweep --shard I/N, each with --jobs JOBS, one after the other, as N
# nodes of this machine's size would run them at once) and their merge,
# for each N of SPLITS, measured here, on one machine.
#
#   bench/shards.sh OUT.json
#
# Each round runs the one-process sweep and then each split, alternating
# (one, N1, N2, one, N1, N2, ...), ROUNDS times; the figures are the
# medians. The merged summaries must be the one process's, byte for byte
# (all write into the same folder path; the script exits 1 when they
# differ). Wall and CPU (user + system, the children's included) come from
# bash's `time`.
#
# Environment: GPUISO (default: build/gpuiso), EVENTS (10000), SCENARIO
# (traces/scenarios/lda-chain.yaml), JOBS (2), SPLITS ("4 32"), ROUNDS (2).
#
# Writes bench JSON (gpuiso-bench/1): shards.one_s and shards.one_cpu_s,
# and for each N: shards.nN.cpu_s (all shards' CPU), shards.nN.cpu_vs_one
# (ratio), shards.nN.max_shard_s and shards.nN.max_shard_cpu_s (the
# longest shard: what N nodes would take, with the merge), shards.nN.balance
# (the longest shard's CPU over the mean), shards.nN.merge_s, and
# shards.nN.met_earlier (runs that stopped where an earlier run of their
# shard had been; shards.one_met_earlier for one process).
#
# Exit codes: 0 measured (whatever the figures), 1 the merge differs from
# one process, 2 usage, 3 environment problem (gpuiso not built, a sweep or
# merge failed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
gpuiso=${GPUISO:-$root/build/gpuiso}
events=${EVENTS:-10000}
scenario=${SCENARIO:-$root/traces/scenarios/lda-chain.yaml}
jobs=${JOBS:-2}
read -r -a splits <<<"${SPLITS:-4 32}"
rounds=${ROUNDS:-2}

if [ $# -ne 1 ]; then
	echo "usage: bench/shards.sh OUT.json" >&2
	exit 2
fi
out_json=$1
[ -x "$gpuiso" ] || { echo "bench/shards.sh: $gpuiso: not built" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Run a command (timed, bench/lib.sh: $wall and $cpu), its output in
# $tmp/log; its exit status (its output shown when above 1: not findings).
timed_log() {
	local rc=0
	timed "$tmp/log" "$@" || rc=$?
	[ "$rc" -le 1 ] || cat "$tmp/log" >&2
	return "$rc"
}
# 'N where they met an earlier run' of the last command's output.
met_earlier() { sed -n 's/.* \([0-9]*\) where they met an earlier run.*/\1/p' "$tmp/log" | head -n 1; }

"$gpuiso" trace gen --profile power-cycle --events "$events" --seed 1 -o "$tmp/trace" >/dev/null
"$gpuiso" replay "$tmp/trace" --scenario "$scenario" >/dev/null || true   # the replay cache
sweep=(sweep "$tmp/trace" --scenario "$scenario" -o "$tmp/out" --jobs "$jobs")

declare -A cpu_sum max_wall max_cpu balance merge_s met
one_s=() one_cpu=() one_met=0
for r in $(seq 1 "$rounds"); do
	rm -rf "$tmp/out"
	timed_log "$gpuiso" "${sweep[@]}" || [ $? -eq 1 ] || exit 3
	one_s+=("$wall")
	one_cpu+=("$cpu")
	one_met=$(met_earlier)
	rm -rf "$tmp/one" && mv "$tmp/out" "$tmp/one"
	line="round $r: one process $wall s wall, $cpu s CPU"
	for n in "${splits[@]}"; do
		rm -rf "$tmp/out"
		sum=0 mw=0 mc=0 m=0
		for i in $(seq 0 $((n - 1))); do
			timed_log "$gpuiso" "${sweep[@]}" --shard "$i/$n" || exit 3
			sum=$(calc "$sum + $cpu")
			m=$((m + $(met_earlier)))
			mw=$(calc "($wall > $mw) ? $wall : $mw")
			mc=$(calc "($cpu > $mc) ? $cpu : $mc")
		done
		timed_log "$gpuiso" merge "$tmp/out" --jobs "$jobs" || [ $? -eq 1 ] || exit 3
		for f in summary.json summary.txt; do
			cmp -s "$tmp/one/$f" "$tmp/out/$f" ||
				{ echo "bench/shards.sh: $n shards: $f differs from one process's" >&2; exit 1; }
		done
		cpu_sum[$n]+="$sum " max_wall[$n]+="$mw " max_cpu[$n]+="$mc " merge_s[$n]+="$wall "
		balance[$n]+="$(calc "$mc / ($sum / $n)") "
		met[$n]=$m
		line="$line; $n shards $sum s CPU (longest $mw s wall, $mc s CPU), merge $wall s"
	done
	echo "$line"
done

one_med=$(median "${one_s[@]}")
one_cpu_med=$(median "${one_cpu[@]}")
metrics=("shards.one_s=$one_med:s"
	 "shards.one_cpu_s=$one_cpu_med:s"
	 "shards.one_met_earlier=$one_met:runs")
echo "one process: $one_med s wall, $one_cpu_med s CPU; $one_met runs met an earlier run (medians of $rounds rounds)"
for n in "${splits[@]}"; do
	# shellcheck disable=SC2086 # word splitting intended: the rounds' figures
	c=$(median ${cpu_sum[$n]}) w=$(median ${max_wall[$n]}) mc=$(median ${max_cpu[$n]})
	# shellcheck disable=SC2086
	b=$(median ${balance[$n]}) ms=$(median ${merge_s[$n]})
	ratio=$(calc "$c / $one_cpu_med")
	echo "$n shards: $c s CPU in all ($ratio of one process), longest shard $w s wall and $mc s CPU (balance $b), merge $ms s; ${met[$n]} runs met an earlier run"
	metrics+=("shards.n$n.cpu_s=$c:s"
		  "shards.n$n.cpu_vs_one=$ratio:ratio"
		  "shards.n$n.max_shard_s=$w:s"
		  "shards.n$n.max_shard_cpu_s=$mc:s"
		  "shards.n$n.balance=$b:ratio"
		  "shards.n$n.merge_s=$ms:s"
		  "shards.n$n.met_earlier=${met[$n]}:runs")
done
bench_json "$out_json" shards "$events-event power-cycle trace, $(basename "$scenario"), --jobs $jobs a process; shards one after the other; medians of $rounds alternating rounds" "${metrics[@]}"

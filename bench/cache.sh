#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/cache.sh - what a replay from the compiled cache costs besides the
# model (issue 35): its peak memory, which read the whole cache file and now
# holds a buffer of it, and finding the trace's cache file, which hashed the
# whole trace twice and now takes its files' identity. This build against
# one from before, in alternating rounds.
#
#   bench/cache.sh OUT.json
#
# It generates a desktop trace of EVENTS events (seed 1) and, for the
# lookup, a trace of 1,000 events whose folder also holds the big trace's
# stream file as a hidden file (a hard link): the decoder skips it, the
# cache's key and identity cover it, so a replay of it from the cache costs
# little but finding its cache file. Each binary fills a cache folder of its
# own with both and replays each from it once more (so that this build
# records their identity: the files have settled by then). Then ROUNDS
# rounds, each a replay of both from the cache by the BEFORE binary, then by
# this one: the peak RSS (the summary's "memory:" line), the CPU time (user
# and system, /usr/bin/time) of the big trace's replay, and the CPU time of
# the lookup trace's replay. The figures are the medians; the ratios are
# now over before (targets: peak RSS <= 64 MiB at 10M events; CPU not above
# before's by more than the rounds' spread; printed, never failed).
#
# BEFORE is a gpuiso binary; when unset, BEFORE_REV is built once (release,
# in a temporary git worktree of this tree's repository) and kept in
# BEFORE_CACHE/before-HASH. Build this one the same way to compare code,
# not builds: meson setup build-rel --buildtype=release -Dtests=disabled,
# then GPUISO=build-rel/gpuiso (the script warns when the builds differ).
#
# Environment: GPUISO (default: build/gpuiso), EVENTS (10000000), ROUNDS
# (3), BEFORE (unset), BEFORE_REV (68b69a1, the last commit before the
# cache's changes of issue 35), BEFORE_CACHE ($XDG_CACHE_HOME/gpuiso-bench,
# or ~/.cache/gpuiso-bench), BUILD_JOBS (meson compile -j; default: ninja's).
#
# Writes bench JSON (gpuiso-bench/1): cache.rss_mib and
# cache.rss_before_mib (MiB), cache.rss_vs_before (ratio), cache.cpu_s and
# cache.cpu_before_s (s), cache.cpu_vs_before (ratio), cache.lookup_cpu_s
# and cache.lookup_cpu_before_s (s), cache.lookup_vs_before (ratio).
#
# Exit codes: 0 measured (whatever the figures), 2 usage, 3 environment
# problem (gpuiso not built, BEFORE not executable, BEFORE_REV failed to
# build, a replay failed or did not come from the cache).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
gpuiso=${GPUISO:-$root/build/gpuiso}
events=${EVENTS:-10000000}
rounds=${ROUNDS:-3}
before=${BEFORE:-}
before_rev=${BEFORE_REV:-68b69a1}
before_cache=${BEFORE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuiso-bench}
build_jobs=${BUILD_JOBS:-}

if [ $# -ne 1 ]; then
	echo "usage: bench/cache.sh OUT.json" >&2
	exit 2
fi
for v in events rounds; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || [ "$((10#${!v}))" -lt 1 ]; then
		echo "bench/cache.sh: ${v^^} takes a whole number from 1, not '${!v}'" >&2
		exit 2
	fi
done
events=$((10#$events))
rounds=$((10#$rounds))
out_json=$1
[ -x "$gpuiso" ] || { echo "bench/cache.sh: $gpuiso: not built" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "bench/cache.sh: /usr/bin/time is needed (GNU time)" >&2; exit 3; }
if [ -n "$before" ] && [ ! -x "$before" ]; then
	echo "bench/cache.sh: BEFORE=$before: not an executable" >&2
	exit 3
fi

tmp=$(mktemp -d /tmp/gpuiso-bench-cache-XXXXXX)
before_src=""  # the temporary worktree BEFORE_REV builds in, while it exists
cleanup() {
	if [ -n "$before_src" ]; then
		git -C "$root" worktree remove --force "$before_src" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! find_before; then
	echo "bench/cache.sh: no BEFORE, and $before_rev is not in this tree's git history" >&2
	exit 3
fi

# replay NAME BIN TRACE: a replay of TRACE by BIN from its own cache folder;
# its summary in $tmp/NAME.txt, "ELAPSED USER SYSTEM MAXRSS_KB" in $tmp/NAME.time
replay() {
	local name=$1 bin=$2 trace=$3 dir=$tmp/cache-now rc=0
	[ "$bin" != "$before" ] || dir=$tmp/cache-before
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/$name.time" "$bin" replay "$trace" \
		--cache-dir "$dir" >"$tmp/$name.txt" 2>&1 || rc=$?
	if [ "$rc" -gt 1 ]; then
		cat "$tmp/$name.txt" >&2
		exit 3
	fi
}

# cpu NAME: the user and system seconds of replay NAME
cpu() { awk '{ printf "%.3f", $2 + $3 }' "$tmp/$1.time"; }

# rss NAME: the peak RSS (MiB) replay NAME's summary says
rss() { sed -n 's/^memory: peak RSS \([0-9.]*\) MiB.*/\1/p' "$tmp/$1.txt"; }

# from_cache NAME: fails unless replay NAME came from the cache
from_cache() {
	if ! grep -q '(from the replay cache)' "$tmp/$1.txt"; then
		echo "bench/cache.sh: replay $1 did not come from the cache:" >&2
		cat "$tmp/$1.txt" >&2
		exit 3
	fi
}

echo "trace: desktop, $events events, seed 1"
"$gpuiso" trace gen --profile desktop --events "$events" --seed 1 -o "$tmp/big" >/dev/null
"$gpuiso" trace gen --profile desktop --events 1000 --seed 1 -o "$tmp/lookup" >/dev/null

# build_of BIN NAME: how BIN was built, as its results JSON says
build_of() {
	"$1" replay "$tmp/lookup" --no-cache --json "$tmp/$2-build.json" >/dev/null 2>&1 || true
	sed -n 's/^ *"build": "\(.*\)",*$/\1/p' "$tmp/$2-build.json" 2>/dev/null | head -n 1 |
		grep . || echo unknown
}
now_build=$(build_of "$gpuiso" now)
before_build=$(build_of "$before" before)
echo "now: $gpuiso, build $now_build"
echo "before: $before_what, build $before_build"
notes=""
if [ "$now_build" != "$before_build" ]; then
	echo "bench/cache.sh: warning: the two binaries are built differently: the ratios" \
		"measure the builds as well as the code" >&2
	notes="builds differ: now $now_build, before $before_build"
fi
ln "$tmp/big/stream" "$tmp/lookup/.bulk"
echo "lookup trace: 1,000 events beside $(du -sh --apparent-size "$tmp/big/stream" | cut -f1)B" \
	"of a hidden file the decoder skips"

echo "filling each binary's cache, then one replay from it (records the identity):"
for bin in "$before" "$gpuiso"; do
	w=$([ "$bin" = "$before" ] && echo before || echo now)
	replay "fill-$w" "$bin" "$tmp/big"
	replay "fill-lookup-$w" "$bin" "$tmp/lookup"
	sleep 3 # settled (CACHE_SETTLE_S): this build records the identity at its next replay
	replay "warm-$w" "$bin" "$tmp/big"
	replay "warm-lookup-$w" "$bin" "$tmp/lookup"
	from_cache "warm-$w"
	from_cache "warm-lookup-$w"
	echo "  $w: from CTF $(cpu "fill-$w") s CPU, from the cache $(cpu "warm-$w") s CPU"
done

rss_n=() rss_b=() cpu_n=() cpu_b=() look_n=() look_b=()
echo "$rounds rounds, before then now (peak RSS MiB, CPU s; lookup trace CPU s):"
for r in $(seq 1 "$rounds"); do
	replay "b$r" "$before" "$tmp/big"
	replay "bl$r" "$before" "$tmp/lookup"
	replay "n$r" "$gpuiso" "$tmp/big"
	replay "nl$r" "$gpuiso" "$tmp/lookup"
	for n in "b$r" "bl$r" "n$r" "nl$r"; do from_cache "$n"; done
	rss_b+=("$(rss "b$r")") cpu_b+=("$(cpu "b$r")") look_b+=("$(cpu "bl$r")")
	rss_n+=("$(rss "n$r")") cpu_n+=("$(cpu "n$r")") look_n+=("$(cpu "nl$r")")
	echo "  round $r: before ${rss_b[-1]} MiB ${cpu_b[-1]} s, lookup ${look_b[-1]} s;" \
		"now ${rss_n[-1]} MiB ${cpu_n[-1]} s, lookup ${look_n[-1]} s"
done

rss_now=$(median "${rss_n[@]}") rss_before=$(median "${rss_b[@]}")
cpu_now=$(median "${cpu_n[@]}") cpu_before=$(median "${cpu_b[@]}")
look_now=$(median "${look_n[@]}") look_before=$(median "${look_b[@]}")
rss_ratio=$(calc "$rss_now / $rss_before")
cpu_ratio=$(calc "$cpu_now / $cpu_before")
look_ratio=$(calc "$look_now / $look_before")
echo "peak RSS of a cached replay of $events events: now $rss_now MiB, before $rss_before MiB:" \
	"ratio $rss_ratio (target: now <= 64 MiB)"
echo "its CPU: now $cpu_now s, before $cpu_before s: ratio $cpu_ratio" \
	"(rounds: now ${cpu_n[*]}, before ${cpu_b[*]})"
echo "cached replay of the lookup trace, CPU: now $look_now s, before $look_before s:" \
	"ratio $look_ratio"

bench_json "$out_json" cache "desktop trace of $events events, seed 1; lookup trace: 1,000 events and its stream beside; $rounds alternating rounds; before: $before_what${notes:+; $notes}" \
	"cache.rss_mib=$rss_now:MiB" "cache.rss_before_mib=$rss_before:MiB" \
	"cache.rss_vs_before=$rss_ratio:ratio" \
	"cache.cpu_s=$cpu_now:s" "cache.cpu_before_s=$cpu_before:s" \
	"cache.cpu_vs_before=$cpu_ratio:ratio" \
	"cache.lookup_cpu_s=$look_now:s" "cache.lookup_cpu_before_s=$look_before:s" \
	"cache.lookup_vs_before=$look_ratio:ratio"

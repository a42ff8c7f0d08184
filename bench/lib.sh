# SPDX-License-Identifier: MIT
#
# bench/lib.sh - what the benchmark scripts share (sourced: bench/sweep.sh,
# bench/shards.sh, bench/cache.sh, bench/store.sh): arithmetic on figures,
# medians, a command's wall and CPU time, the bench JSON (gpuiso-bench/1)
# they write, and a gpuiso built from an earlier revision to compare with.

# calc EXPR: the value of an awk expression, to 3 decimals
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# timed LOG CMD...: run CMD, its output (stdout and stderr) into LOG; its
# wall and CPU seconds (user + system, its children's included) in $wall
# and $cpu. Return: CMD's exit status.
timed() {
	local log=$1 t rc=0
	shift
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$log" 2>&1; } 2>&1 ) || rc=$?
	# time's line is the last: the command's own output went to LOG
	read -r wall user sys <<<"$(tail -n 1 <<<"$t")"
	cpu=$(calc "$user + $sys")
	wall=$(calc "$wall")
	return "$rc"
}

# median VALUE...: the median of the values, to 3 decimals
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_json OUT SUITE NOTES METRIC...: write bench JSON to OUT (whole, or
# not at all), each METRIC NAME=VALUE:UNIT, by gpuiso's own JSON writer
# (gpuiso bench --metric: text such as NOTES is escaped as all JSON gpuiso
# writes); the revision, code and build are those of $gpuiso, the binary
# measured
bench_json() {
	local out=$1 suite=$2 notes=$3
	shift 3
	"$gpuiso" bench --suite "$suite" --notes "$notes" "${@/#/--metric=}" --json "$out"
	echo "wrote $out"
}

# build_before HASH DIR: $before_rev (commit HASH) built in a temporary
# worktree of $root's repository under $tmp, its gpuiso copied to
# DIR/gpuiso. Release, as make bench but without LTO and without -Werror:
# gcc 12 at -O3 warns (maybe-uninitialized) in earlier revisions, and
# warnings are not what is measured. $before_src names the worktree while
# it exists (the caller's cleanup removes it); $build_jobs, if set, is
# meson compile's -j. On failure it says so for the script $0 and exits 3.
build_before() {
	local hash=$1 dir=$2 src=$tmp/before-src bld=$tmp/before-build log=$tmp/before-build.log
	echo "before: building $before_rev (${hash:0:12}), release, once: kept as $dir/gpuiso"
	before_src=$src
	if ! git -C "$root" worktree add --detach "$src" "$hash" >"$log" 2>&1 ||
		! meson setup "$bld" "$src" --buildtype=release -Dtests=disabled -Dwerror=false \
			>>"$log" 2>&1 ||
		! meson compile -C "$bld" ${build_jobs:+-j "$build_jobs"} gpuiso >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "$0: building $before_rev failed (above); BEFORE=path/to/gpuiso" \
			"names a build instead" >&2
		exit 3
	fi
	mkdir -p "$dir"
	cp "$bld/gpuiso" "$dir/gpuiso.$$"
	mv -f "$dir/gpuiso.$$" "$dir/gpuiso"
	git -C "$root" worktree remove --force "$src" >/dev/null 2>&1 || true
	before_src=""
}

# find_before: the binary to compare with, in $before and its name in
# $before_what: $before itself when set, else $before_rev built once
# (build_before) and kept in $before_cache/before-HASH. Return: 1 when
# there is neither (no BEFORE, and $before_rev not in this tree's history).
find_before() {
	local hash
	if [ -n "$before" ]; then
		before_what="BEFORE=$before"
		return 0
	fi
	hash=$(git -C "$root" rev-parse --verify -q "$before_rev^{commit}" 2>/dev/null) || return 1
	before_what="$before_rev (${hash:0:12})"
	if [ -x "$before_cache/before-${hash:0:12}/gpuiso" ]; then
		echo "before: $before_what, built already: $before_cache/before-${hash:0:12}/gpuiso"
	else
		build_before "$hash" "$before_cache/before-${hash:0:12}"
	fi
	before=$before_cache/before-${hash:0:12}/gpuiso
}

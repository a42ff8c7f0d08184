# SPDX-License-Identifier: MIT
#
# bench/lib.sh - what the benchmark scripts share (sourced: bench/sweep.sh,
# bench/shards.sh): arithmetic on figures, medians, and the bench JSON
# (gpuiso-bench/1) they write.

# calc EXPR: the value of an awk expression, to 3 decimals
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# median VALUE...: the median of the values, to 3 decimals
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_json OUT SUITE NOTES METRIC...: write bench JSON to OUT (whole, or
# not at all), each METRIC a '"name": {"value": V, "unit": "U"}' member;
# the revision is that of the tree ROOT names
bench_json() {
	local out=$1 suite=$2 notes=$3 git_rev i sep
	shift 3
	git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
	{
		echo "{"
		echo "  \"schema\": \"gpuiso-bench/1\","
		echo "  \"host\": \"$(hostname)\","
		echo "  \"git_rev\": \"$git_rev\","
		echo "  \"suite\": \"$suite\","
		echo "  \"notes\": \"$notes\","
		echo "  \"metrics\": {"
		for ((i = 1; i <= $#; i++)); do
			sep=","
			[ "$i" -lt $# ] || sep=""
			echo "    ${!i}$sep"
		done
		echo "  }"
		echo "}"
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "wrote $out"
}

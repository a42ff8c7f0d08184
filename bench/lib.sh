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

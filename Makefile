# The two commands of the Quick start: `make run` and `make check`.
# Both install what is missing (scripts/install-deps), then build with meson.
BUILD      ?= build
ASAN_BUILD ?= build-asan
BENCH_BUILD ?= build-release
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

.PHONY: all deps build run check check-asan analyse bench fuzz clean

all: build

deps:
	@scripts/install-deps

build: deps
	@[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) >/dev/null
	@meson compile -C $(BUILD) >/dev/null

# The job in one command: replay a checked-in trace while pins fail and memory
# is short; the summary, then where the results JSON went (exit 1 is findings).
run: build
	./$(BUILD)/gpuiso replay traces/power-cycle --scenario traces/scenarios/lda-chain.yaml \
		--faults traces/faults/quick-start.yaml --json $(BUILD)/quick-start.json || [ $$? -eq 1 ]

# Every test, then sharded sweeps and campaigns on a one-node Slurm cluster
# (scripts/slurm-test), then the VFIO backend against real VFIO in a QEMU
# guest (scripts/vm-test), whose guest kernel builds in the background
# meanwhile when it is not cached (scripts/vm-kernel).
check: build
	@scripts/vm-kernel start $(BUILD)/vm-kernel.log
	@scripts/run-tests $(BUILD)
	@scripts/slurm-test $(BUILD)
	@scripts/vm-test $(BUILD)

# Every test again under ASan+UBSan, built with clang (the default build uses gcc).
check-asan: deps
	@[ -f $(ASAN_BUILD)/build.ninja ] || CC=clang meson setup $(ASAN_BUILD) \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all >/dev/null
	@meson compile -C $(ASAN_BUILD) >/dev/null
	@scripts/run-tests $(ASAN_BUILD)

# The static analyser (cppcheck) over the sources, clean or failing (scripts/analyse).
analyse: build
	@scripts/analyse $(BUILD)

# Benchmarks run from an optimised build with link-time optimisation.
bench: deps
	@[ -f $(BENCH_BUILD)/build.ninja ] || meson setup $(BENCH_BUILD) \
		--buildtype=release -Db_lto=true -Dtests=disabled >/dev/null
	@meson compile -C $(BENCH_BUILD) >/dev/null
	./$(BENCH_BUILD)/gpuiso bench --suite micro --json $(BENCH_BUILD)/bench-micro.json
	./$(BENCH_BUILD)/gpuiso bench --suite replay --json $(BENCH_BUILD)/bench-replay.json
	./$(BENCH_BUILD)/gpuiso bench --suite floor --json $(BENCH_BUILD)/bench-floor.json

# Every fuzz target (fuzz/) for FUZZ_SECONDS each, built with clang and libFuzzer
# under ASan+UBSan; findings land in fuzz/crashes/ (docs/fuzzing.md).
fuzz: deps
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) \
		-Dfuzz=enabled -Dtests=disabled -Db_sanitize=address,undefined -Db_lundef=false \
		'-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >/dev/null
	@meson compile -C $(FUZZ_BUILD) >/dev/null
	@scripts/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(FUZZ_BUILD)

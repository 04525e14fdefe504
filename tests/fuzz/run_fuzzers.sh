#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz: clang with coverage, ASan and UBSan, in build/fuzz) and runs them.
#   tests/fuzz/run_fuzzers.sh [SECONDS] [HARNESS...]   each harness (all by default) for SECONDS (default 20), from
#                                                      its seeds and the corpus it grew before (build/fuzz/corpus)
#   tests/fuzz/run_fuzzers.sh minimize HARNESS FILE    the smallest input that still crashes like FILE
# A finding stops the run with libFuzzer's report; its input is saved as build/fuzz/findings/HARNESS-crash-*. Run it
# alone (build/fuzz/tests/fuzz/HARNESS FILE) to confirm it, then make it a regression test. docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=build/fuzz
HARNESSES=(fuzz_gen_ring fuzz_gen_execlists fuzz_vc4_cle fuzz_guc fuzz_script fuzz_eu fuzz_aub_reader fuzz_config fuzz_tbx
           fuzz_aub_replay fuzz_qpu)
# SystemC switches coroutine stacks, which ASan's stack-use-after-return detection cannot follow; the platform a
# harness builds lives as long as the process, on purpose.
export ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1

# -O1 and line tables only: what libFuzzer's documentation suggests, and quicker to build than RelWithDebInfo.
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DGPUVP_FUZZ=ON -DGPUVP_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
  >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target fuzzers

if [ "${1:-}" = minimize ]; then
  [ $# -eq 3 ] || { echo "usage: $0 minimize HARNESS FILE" >&2; exit 2; }
  exec "$BUILD/tests/fuzz/$2" -minimize_crash=1 -max_total_time=300 -exact_artifact_path="$3.min" "$3"
fi
seconds=${1:-20}
shift || true
[ $# -gt 0 ] && HARNESSES=("$@")

rm -rf "$BUILD/seeds"
"$BUILD/tests/fuzz/fuzz_seeds" "$BUILD/seeds"
# The demo as a host script seeds the script harness too (its first 64 lines are what the harness reads).
if [ -x build/release/platform/gpuvp ]; then
  build/release/platform/gpuvp --dump-demo "$BUILD/seeds/fuzz_script/demo.gpuvp" --quiet
fi
mkdir -p "$BUILD/findings"
for h in "${HARNESSES[@]}"; do
  mkdir -p "$BUILD/corpus/$h" "$BUILD/seeds/$h"
  echo "run_fuzzers: $h for $seconds s"
  # -timeout: one input taking longer is a hang; -rss_limit_mb: host memory growing past it is unbounded growth.
  # -detect_leaks=0: the platform lives as long as the process (LeakSanitizer is off, above), so libFuzzer's leak
  # check would only run every input that allocates more than it frees a second time.
  "$BUILD/tests/fuzz/$h" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$BUILD/findings/$h-" "$BUILD/corpus/$h" "$BUILD/seeds/$h" 2>"$BUILD/$h.log" || {
    tail -60 "$BUILD/$h.log" >&2
    echo "run_fuzzers: $h found a crash (log: $BUILD/$h.log, input: $BUILD/findings/$h-*)" >&2
    exit 1
  }
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" "$BUILD/$h.log" | tr '\n' ' '
  echo
done

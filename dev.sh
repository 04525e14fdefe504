#!/usr/bin/env bash
# gpuvp developer entry point. On a fresh Debian 12 machine:
#   ./dev.sh demo    install what is missing, build, run the embedded demo workload
#   ./dev.sh test    install what is missing, build, run the whole test suite (normal and ASan+UBSan builds), lint,
#                    then every libFuzzer harness for 20 s (tests/fuzz/run_fuzzers.sh)
#   ./dev.sh bench   install what is missing, build, run the benchmarks
#   ./dev.sh lint    install what is missing, check formatting (.clang-format) and static checks (.clang-tidy)
set -euo pipefail
cd "$(dirname "$0")"

# Debian 12 packages the build needs (see README).
PACKAGES=(cmake make g++ pkg-config libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libpng-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
          verilator yosys libunicorn-dev libcapstone-dev gcc-multilib libssl-dev gdb clang-format clang-tidy
          clang libclang-rt-14-dev
          libigc-tools intel-opencl-icd clinfo clpeak ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
          python3-matplotlib chromium slurm-wlm munge)
JOBS=$(nproc)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "dev.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure DIR [cmake options...]: the release tree is configured the same way by every command, so that `test`
# after `demo` (or `bench`) rebuilds nothing the other already built.
configure() {
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}
RELEASE_OPTIONS=(-DGPUVP_WERROR=ON)

# build DIR [targets...]: everything, or only the targets named.
build() {
  local dir=$1; shift
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$dir" -j "$JOBS" "${targets[@]}"
}

# lint: every C/C++ file formatted as .clang-format says, and no .clang-tidy finding in the sources of the model, the
# platform, the host side and the tools (the test suites are left to the compiler's warnings: tidy over GoogleTest's
# macros costs more time than it finds). Needs the release tree's compile_commands.json and generated headers.
lint() {
  local sources=() lint_sources=()
  while IFS= read -r f; do sources+=("$f"); done < <(find hw tlm platform tb rtl firmware tests \
      -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.c' | sort)
  clang-format --dry-run --Werror "${sources[@]}"
  for f in "${sources[@]}"; do
    case "$f" in tests/*|*.h|*.hpp|*.c) ;; *) lint_sources+=("$f") ;; esac
  done
  run-clang-tidy -quiet -j "$JOBS" -p build/release "${lint_sources[@]}" >build/release/clang-tidy.log 2>&1 || {
    grep -E "(warning|error):" build/release/clang-tidy.log | sort -u >&2
    echo "dev.sh: clang-tidy findings (full log: build/release/clang-tidy.log)" >&2
    return 1
  }
}

run_tests() {
  local dir=$1
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
}

case "${1:-}" in
  demo)
    install_missing
    configure build/release "${RELEASE_OPTIONS[@]}"
    build build/release gpuvp  # the demo needs the executable and the GuC firmware it depends on, nothing else
    shift
    ./build/release/platform/gpuvp "$@"
    ;;
  test)
    install_missing
    # As root the packages above are there: the report's browser checks and the single-node Slurm sweep must run,
    # not skip.
    if [ "$(id -u)" -eq 0 ]; then export GPUVP_REQUIRE_CHROMIUM=1 GPUVP_REQUIRE_SLURM=1; fi
    configure build/release "${RELEASE_OPTIONS[@]}"
    build build/release
    run_tests build/release
    # The same suite under AddressSanitizer and UndefinedBehaviorSanitizer. SystemC switches coroutine stacks, which
    # ASan's stack-use-after-return detection cannot follow.
    configure build/sanitize -DGPUVP_SANITIZE=ON -DGPUVP_BUILD_BENCHMARKS=OFF
    build build/sanitize
    ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
      run_tests build/sanitize
    lint
    # Each fuzz harness for a short fixed time (clang, coverage + ASan + UBSan; docs/fuzzing.md).
    tests/fuzz/run_fuzzers.sh 20
    ;;
  lint)
    install_missing
    configure build/release "${RELEASE_OPTIONS[@]}"
    build build/release
    lint
    ;;
  bench)
    install_missing
    configure build/release "${RELEASE_OPTIONS[@]}"
    build build/release
    for b in build/release/tb/bench/bench_*; do
      [ -x "$b" ] && "$b" --benchmark_counters_tabular=true
    done
    ;;
  *)
    echo "usage: ./dev.sh demo [gpuvp run options] | test | bench | lint" >&2
    exit 2
    ;;
esac

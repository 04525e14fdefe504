#!/usr/bin/env bash
# Calibration of the EU array's timing (issue 19): clpeak (Debian package clpeak, run unmodified through Intel's NEO
# on the model under `gpuvp exec`, with --use-event-timer so that it divides by the profiling timestamps: simulated
# time) against the published clpeak results of a real Gen9 GT2, an Intel UHD Graphics 620 at 1150 MHz with
# dual-channel DDR4-2400 (clpeak 1.1.2, results/Intel_Graphics_Compute_Runtime/Intel_UHD_Graphics_620.log; figures in
# docs/gen-eu-timing.md). A tool run, not a test: it takes tens of minutes.
#
#   tb/calibration/calibrate.sh [--tests bandwidth,sp,dp,int,intfast,micro] [--build DIR] [--set KEY=VALUE ...]
#
# Prints a table: metric, model, silicon, error. Only Intel's ICD is offered to clpeak (OCL_ICD_VENDORS), which would
# otherwise also measure every other OpenCL platform installed (pocl: the host CPU). clpeak sizes its work from the device (a single-precision launch is
# 1.6e9 EU instructions on 24 EUs, a bandwidth launch reads a 2.1 GB buffer); so that a run takes minutes, the device
# NEO reports is shrunk where the figure does not depend on the size:
#   bandwidth: ClDeviceGlobalMemSizeAvailablePercent=1 (a 41 MB buffer instead of 2.1 GB; still 80 times the L3, so
#              every line comes from DRAM);
#   sp, dp, int, intfast:
#              OverrideMaxWorkgroupSize=32 (an eighth of the work-items of 256-item groups; the same kernel, the same
#              work per item, every EU still full with 7 threads).
# micro: the project's own micro-benchmarks (tests/opencl/cl_scenarios: fma, chain, slm, l3), each run twice with
# different turn counts so that the difference leaves out launch and start-up, against the architecture's figures:
# 16 flop/clk per EU (two SIMD-4 FPUs, mad = 2 flop; Junkins, Gen9 compute architecture, 5.3.2), a dependent 32-bit
# mad every 8 clk (Mesa's MPERF latency for 32-bit FPU instructions), 64 B/clk of shared local memory per subslice
# (5.5.2) and 64 B/clk per subslice data port from the L3 (5.4, 5.5.1). Each kernel's loop control adds to its rows.
# Published half, double and integer figures exist for the first and the last vector width only; the rows between
# have no silicon figure. Not run: the kernel launch latency (it subtracts NEO's QUEUED stamp, a host clock reading, from a simulated-time stamp, over 20000
# launches); docs/gen-eu-timing.md says what stands for them.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build/release
tests=micro,bandwidth,sp,dp,int
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) tests=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "calibrate.sh: unknown argument '$1' (--tests bandwidth,sp,dp,int,intfast,micro | --build DIR | --set KEY=VALUE)" >&2; exit 2 ;;
  esac
done
gpuvp=$build/platform/gpuvp
scenarios=$build/tests/cl_scenarios
[ -x "$gpuvp" ] || { echo "calibrate.sh: $gpuvp not built (./dev.sh demo builds it)" >&2; exit 2; }
[ -x "$scenarios" ] || { echo "calibrate.sh: $scenarios not built (cmake --build $build builds it)" >&2; exit 2; }
command -v clpeak >/dev/null || { echo "calibrate.sh: clpeak not installed (./dev.sh demo installs it)" >&2; exit 2; }

# Published UHD 620 figures by test and row type, in clpeak's order of vector widths ("-": none published; intfast:
# none at all, the HD 530's int24 108.93 is the only Gen9 figure). Debian's clpeak 1.1.2 runs the half-precision test
# with --compute-dp (it has no option of its own): its rows come with the double ones.
declare -A silicon=(
  [bandwidth:float]="27.14 28.12 29.73 29.09 26.09"
  [sp:float]="436.49 436.33 435.70 434.78 428.94"
  [dp:half]="738.24 - - - 716.82"
  [dp:double]="109.50 - - - 107.54"
  [int:int]="145.81 - - - 139.77"
)
declare -A option=([bandwidth]=--global-bandwidth [sp]=--compute-sp [dp]=--compute-dp [int]=--compute-integer
  [intfast]=--compute-intfast)
declare -A shrink=([bandwidth]=ClDeviceGlobalMemSizeAvailablePercent=1 [sp]=OverrideMaxWorkgroupSize=32
  [dp]=OverrideMaxWorkgroupSize=32 [int]=OverrideMaxWorkgroupSize=32 [intfast]=OverrideMaxWorkgroupSize=32)
declare -A unit=([bandwidth]=GB/s [sp]=GFLOPS [dp]=GFLOPS [int]=GIOPS [intfast]=GIOPS)

# One micro-benchmark run on the model: the kernel's start-to-end time in ns.
micro_ns() {
  "$gpuvp" exec --quiet --config platform/configs/gen9-gt2.yaml --set gen.gpgpu.timing=array "${sets[@]}" \
    -- env OCL_ICD_VENDORS=/etc/OpenCL/vendors/intel.icd "$scenarios" "$@" | sed -n 's/^[a-z0-9]*\.start_end_ns: //p'
}
# A row: metric, model figure, reference figure.
row() {
  awk -v n="$1" -v m="$2" -v s="$3" 'BEGIN { printf "| %s | %.2f | %.2f | %+.1f %% |\n", n, m, s, (m - s) / s * 100 }'
}
micro() {
  local a b
  a=$(micro_ns fma 10752 100) b=$(micro_ns fma 10752 200)
  # 10,752 items x 100 turns x 16 mads x 2 flop, over 24 EUs at 1.15 GHz.
  row "micro: FPU-bound kernel, flop/clk per EU" "$(awk -v d="$((b - a))" 'BEGIN { print 10752 * 100 * 32 / d / 24 / 1.15 }')" 16
  a=$(micro_ns chain 1000) b=$(micro_ns chain 2000)
  row "micro: dependent mad chain, clk per mad" "$(awk -v d="$((b - a))" 'BEGIN { print d * 1.15 / 8000 }')" 8
  a=$(micro_ns slm 200) b=$(micro_ns slm 400)
  # 10,752 items x 200 turns x 4 reads x 4 bytes, over 3 subslices.
  row "micro: shared local memory reads, B/clk per subslice" \
    "$(awk -v d="$((b - a))" 'BEGIN { print 10752 * 200 * 16 / d / 1.15 / 3 }')" 64
  a=$(micro_ns l3 200) b=$(micro_ns l3 400)
  row "micro: L3 reads, B/clk per subslice" "$(awk -v d="$((b - a))" 'BEGIN { print 10752 * 200 * 16 / d / 1.15 / 3 }')" 64
}

IFS=, read -ra selected <<<"$tests"
for t in "${selected[@]}"; do
  [ "$t" = micro ] && continue
  [ -n "${option[$t]:-}" ] || { echo "calibrate.sh: unknown test '$t' (micro, bandwidth, sp, dp, int, intfast)" >&2; exit 2; }
done
printf '| metric | model | silicon (UHD 620) or architecture | error |\n|---|---|---|---|\n'
for t in "${selected[@]}"; do
  if [ "$t" = micro ]; then
    micro
    continue
  fi
  log=$(mktemp)
  "$gpuvp" exec --quiet --config platform/configs/gen9-gt2.yaml --set gen.gpgpu.timing=array "${sets[@]}" \
    -- env OCL_ICD_VENDORS=/etc/OpenCL/vendors/intel.icd "${shrink[$t]}" clpeak --use-event-timer "${option[$t]}" \
    >"$log" 2>&1 || {
    cat "$log" >&2
    echo "calibrate.sh: clpeak $t failed on the model" >&2
    exit 1
  }
  declare -A row=()
  # clpeak's rows: "      float   : 36.10", "      half2   : 730.12", "      double2 : 109.12", "      int16   : 140.02".
  while read -r width value; do
    type=${width%%[0-9]*}
    i=${row[$type]:-0}
    row[$type]=$((i + 1))
    read -ra published <<<"${silicon[$t:$type]:-}"
    s=${published[$i]:--}
    if [ "$s" = - ]; then
      printf '| %s | %.2f | - | - |\n' "$t $width (${unit[$t]})" "$value"
    else
      awk -v m="$value" -v s="$s" -v n="$t $width (${unit[$t]})" \
        'BEGIN { printf "| %s | %.2f | %.2f | %+.1f %% |\n", n, m, s, (m - s) / s * 100 }'
    fi
  done < <(grep -E '^ +(float|half|double|int)[0-9]* +: +[0-9.]+$' "$log" | tr -d ':' | awk '{ print $1, $2 }')
  unset row
  rm -f "$log"
done

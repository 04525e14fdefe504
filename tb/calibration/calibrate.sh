#!/usr/bin/env bash
# Calibration of the EU array's timing (issue 19): clpeak (Debian package clpeak, run unmodified through Intel's NEO
# on the model under `gpuvp exec`, with --use-event-timer so that it divides by the profiling timestamps: simulated
# time) against the published clpeak results of a real Gen9 GT2, an Intel UHD Graphics 620 at 1150 MHz with
# dual-channel DDR4-2400 (clpeak 1.1.2, results/Intel_Graphics_Compute_Runtime/Intel_UHD_Graphics_620.log; figures in
# docs/gen-eu-timing.md). A tool run, not a test: it takes tens of minutes.
#
#   tb/calibration/calibrate.sh [--tests bandwidth,sp,dp,int,intfast] [--build DIR] [--set KEY=VALUE ...]
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
# Published half, double and integer figures exist for the first and the last vector width only; the rows between
# have no silicon figure. Not run: the kernel launch latency (it subtracts NEO's QUEUED stamp, a host clock reading, from a simulated-time stamp, over 20000
# launches); docs/gen-eu-timing.md says what stands for them.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build/release
tests=bandwidth,sp,dp,int
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) tests=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "calibrate.sh: unknown argument '$1' (--tests bandwidth,sp,dp,int,intfast | --build DIR | --set KEY=VALUE)" >&2; exit 2 ;;
  esac
done
gpuvp=$build/platform/gpuvp
[ -x "$gpuvp" ] || { echo "calibrate.sh: $gpuvp not built (./dev.sh demo builds it)" >&2; exit 2; }
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

IFS=, read -ra selected <<<"$tests"
for t in "${selected[@]}"; do
  [ -n "${option[$t]:-}" ] || { echo "calibrate.sh: unknown test '$t' (bandwidth, sp, dp, int, intfast)" >&2; exit 2; }
done
printf '| metric | model | silicon (UHD 620) | error |\n|---|---|---|---|\n'
for t in "${selected[@]}"; do
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

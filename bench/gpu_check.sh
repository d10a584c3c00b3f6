#!/usr/bin/env bash
# The prepared GPU check (docs/performance.md, "GPU check"): on a machine with an NVIDIA GPU,
# the alanine-dipeptide example (vacuum, 22 atoms; solvated, 3514 atoms with PME) on OpenMM's
# CUDA and OpenCL platforms, one table with
#   - start-up per walker (median, trails advise) with engine.reproducibility: bitwise (kernels
#     rebuilt per walker) and fast (a warm re-arm), where this build has that key;
#   - aggregate ns/day of one GPU with k = 1, 2, 4, 8 walkers on it (iteration 1 of 2, so the
#     first Contexts' creation is left out), ÷ k = 1, without and with an MPS control daemon
#     (when nvidia-cuda-mps-control exists);
#   - the binding check's findings (warnings, and where walker 0 ran);
#   - the choice of execution.workers_per_device: auto, with its trials.
# Everything runs under one time limit (GPU_CHECK_LIMIT_S, default 540 s: a device command may
# run 600 s); a run that would not fit is listed as skipped. Without an NVIDIA GPU it says so and
# exits 0. `--dry-run` runs the same steps on OpenCL only (PoCL on a CPU machine) with tiny
# sizes, to test the script itself.
#
# What it needs on the device (it has no network): the working tree with a Trails built
# against an OpenMM that has the platforms (TRAILS, default build-openmm8/trails, then
# build/trails), that OpenMM's libraries (the wheel's OpenMM.libs under .venv/ is found
# automatically and put on LD_LIBRARY_PATH / OPENMM_PLUGIN_DIR; the CUDA platform also needs
# openmm-cuda-12 and NVIDIA's CUDA wheels, about 350 MB, installed there), and a Python that
# imports that OpenMM for the one-time system preparation (GPU_CHECK_PYTHON, else .venv's
# Python for a Trails built against the wheel, /usr/bin/python3 for one built against 7.7).
# Usage: bench/gpu_check.sh [--dry-run]        (from the repository root)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
LIMIT_S=${GPU_CHECK_LIMIT_S:-540}
START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

say() { echo "gpu_check: $*"; }

if [ $DRY -eq 0 ]; then
  if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
    say "no NVIDIA GPU on this machine (nvidia-smi finds none): nothing to check."
    say "bench/gpu_check.sh --dry-run runs the same steps on OpenCL (PoCL) with tiny sizes."
    exit 0
  fi
  nvidia-smi -L | sed 's/^/gpu_check: /'
  PLATFORMS=(CUDA OpenCL)
  KS=(1 2 4 8)
  VACUUM_STEPS=5000 SOLVATED_STEPS=1000 ROUNDS=2 AUTO_WALKERS=48
else
  PLATFORMS=(OpenCL)
  KS=(1 2)
  VACUUM_STEPS=100 SOLVATED_STEPS=10 ROUNDS=1 AUTO_WALKERS=8
fi

TRAILS=${TRAILS:-}
for candidate in "$TRAILS" build-openmm8/trails build/trails; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then TRAILS=$candidate; break; fi
done
[ -x "$TRAILS" ] || { say "no trails binary (set TRAILS or build build-openmm8/trails)"; exit 2; }
TRAILS=$(realpath "$TRAILS")
# A Trails built against an OpenMM prefix links libOpenMM.so (Debian's: libOpenMM.so.7.7). For
# such a build, the wheel's OpenMM under .venv/, wherever this tree was copied to (the build's
# own paths may not exist here), and the venv's Python first.
PYTHONS=("${GPU_CHECK_PYTHON:-}" /usr/bin/python3 "$ROOT/.venv/bin/python" python3)
if readelf -d "$TRAILS" 2> /dev/null | grep -q 'Shared library: \[libOpenMM.so\]'; then
  for libs in .venv/lib/python3*/site-packages/OpenMM.libs; do
    if [ -d "$libs/lib" ]; then
      export LD_LIBRARY_PATH="$ROOT/$libs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      export OPENMM_PLUGIN_DIR="$ROOT/$libs/lib/plugins"
    fi
  done
  PYTHONS=("${GPU_CHECK_PYTHON:-}" "$ROOT/.venv/bin/python" python3)
fi
PYTHON=""
for candidate in "${PYTHONS[@]}"; do
  if [ -n "$candidate" ] && "$candidate" -c 'import openmm' 2> /dev/null; then
    PYTHON=$(command -v "$candidate" || echo "$candidate"); break
  fi
done
[ -n "$PYTHON" ] || { say "no Python here imports openmm (set GPU_CHECK_PYTHON)"; exit 2; }
export TRAILS_PYTHON=$PYTHON
MODES=(default)  # engine.reproducibility comes with the warm re-arm work (issue 35, item 1)
MPS=(off)
command -v nvidia-cuda-mps-control > /dev/null && [ $DRY -eq 0 ] && MPS=(off on)
say "trails $TRAILS, Python $PYTHON, platforms ${PLATFORMS[*]}, k ${KS[*]}, MPS ${MPS[*]}," \
  "limit ${LIMIT_S} s"

ROWS=()
row() { ROWS+=("$(printf '%-9s %-7s %-8s %-4s %-4s %6s %7s %12s %7s %12s  %s' "$@")"); }
left() { echo $((LIMIT_S - ($(date +%s) - START))); }

# config SYSTEM PLATFORM K WALKERS STEPS MODE OUTDIR [auto]: the example's own config.yaml with
# the platform, sizes and device pool of this measurement (2 iterations).
config() {
  local system=$1 platform=$2 k=$3 walkers=$4 steps=$5 mode=$6 out=$7 workers=$3
  local dir=$ROOT/examples/alanine-dipeptide
  [ "$system" = solvated ] && dir=$dir/solvated
  [ "${8:-}" = auto ] && workers=auto
  sed -e "s#^outdir: .*#outdir: $out#" \
    -e "s#^  conf_file: \(.*\)#  conf_file: $dir/\1#" \
    -e "s#^  platform_name: .*#  platform_name: $platform\n  precision: mixed#" \
    -e "s#^  walker: .*#  walker: $walkers#" -e "s#^  step: .*#  step: $steps#" \
    -e "s#^  stride: .*#  stride: $((steps / 2 > 0 ? steps / 2 : 1))#" -e '/^  max_workers:/d' \
    "$dir/config.yaml" > "$out.yaml"
  [ "$mode" = default ] || sed -i "s#^  seed: \(.*\)#  seed: \1\n  reproducibility: $mode#" "$out.yaml"
  printf 'execution:\n  devices: [0]\n  workers_per_device: %s\n  binding_check: warn\n' \
    "$workers" >> "$out.yaml"
}

# measure LABEL... : runs $WORK/$out.yaml (2 iterations) and adds a table row.
measure() {
  local system=$1 platform=$2 mps=$3 k=$4 mode=$5 out=$6 walkers=$7 steps=$8 cap=$9
  if [ "$(left)" -lt "$cap" ]; then
    row "$system" "$platform" "$mode" "$mps" "$k" "$walkers" "$steps" "-" "-" "-" "skipped (time limit)"
    return
  fi
  (cd "$WORK" && timeout "$cap" "$TRAILS" run "$out.yaml" --iterations 2 > "$out.log" 2>&1)
  local rc=$?
  if [ $rc -ne 0 ]; then
    row "$system" "$platform" "$mode" "$mps" "$k" "$walkers" "$steps" "-" "-" "-" \
      "failed ($rc): $(grep -m1 -iE 'error|exit' "$WORK/$out.log" | cut -c1-80)"
    return
  fi
  "$TRAILS" advise "$WORK/$out" --json > "$WORK/$out.advise.json" 2> /dev/null
  "$TRAILS" status "$WORK/$out" > "$WORK/$out.status" 2> /dev/null
  local fields
  fields=$("$PYTHON" - "$WORK/$out.advise.json" "$walkers" "$steps" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
walkers, steps = int(sys.argv[2]), int(sys.argv[3])
rows = a["breakdown"]["iterations"]
wall = rows[-1]["wall_s"]  # iteration 1: warm Contexts
ns_per_day = walkers * steps * 0.002 / 1000 / wall * 86400
startup = a["model"].get("startup_s")
p = a.get("packing")
choice = ""
if p:
    trials = " ".join(f"k{t['workers_per_device']}={'fail' if t['failed'] else format(t['steps_per_s'], '.3g')}" for t in p["trials"])
    choice = f"auto -> {p['workers_per_device']} ({'done' if p['done'] else 'measuring'}; steps/s {trials})"
print(f"{ns_per_day:.4g}|{startup * 1000 if startup else float('nan'):.3g} ms|{choice}")
PY
)
  local ns=${fields%%|*} rest=${fields#*|}
  local startup=${rest%%|*} choice=${rest#*|}
  local ran_on warnings
  ran_on=$(grep -m1 -i "ran on" "$WORK/$out.status" | sed 's/^ *ran on *//' | cut -c1-40)
  warnings=$(grep -ciE "asked for device|binding" "$WORK/$out.log")
  if [ "$k" = 1 ] && [ "$mps" = off ]; then BASE=$ns; fi
  local ratio=-
  [ -n "${BASE:-}" ] && ratio=$("$PYTHON" -c "print(f'{$ns / $BASE:.2f}')")
  row "$system" "$platform" "$mode" "$mps" "$k" "$walkers" "$steps" "$ns" "$ratio" "$startup" \
    "binding warnings $warnings; ran on ${ran_on:-?} ${choice}"
}

# Does this build know engine.reproducibility? An unknown key is named by trails check.
config vacuum Reference 1 1 1 fast "$WORK/probe"
probe=$(cd "$WORK" && "$TRAILS" check probe.yaml 2>&1)
grep -q "engine.reproducibility" <<< "$probe" || MODES=(bitwise fast)
say "start-up modes: ${MODES[*]}"

for system in vacuum solvated; do
  steps=$VACUUM_STEPS
  [ "$system" = solvated ] && steps=$SOLVATED_STEPS
  for platform in "${PLATFORMS[@]}"; do
    BASE=""
    for mode in "${MODES[@]}"; do  # start-up: bitwise rebuild vs fast re-arm, one walker per GPU
      out="$system-$platform-$mode-k1"
      config "$system" "$platform" 1 4 "$steps" "$mode" "$WORK/$out"
      measure "$system" "$platform" off 1 "$mode" "$out" 4 "$steps" 120
    done
    mode=${MODES[-1]}
    for mps in "${MPS[@]}"; do
      if [ "$mps" = on ]; then
        export CUDA_MPS_PIPE_DIRECTORY=$WORK/mps-pipe CUDA_MPS_LOG_DIRECTORY=$WORK/mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d || { say "MPS daemon did not start"; continue; }
      fi
      for k in "${KS[@]}"; do
        [ "$k" = 1 ] && [ "$mps" = off ] && BASE=""
        out="$system-$platform-mps$mps-k$k"
        config "$system" "$platform" "$k" $((k * ROUNDS * 2)) "$steps" "$mode" "$WORK/$out"
        measure "$system" "$platform" "$mps" "$k" "$mode" "$out" $((k * ROUNDS * 2)) "$steps" 90
      done
      if [ "$mps" = on ]; then
        echo quit | nvidia-cuda-mps-control
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      fi
    done
    out="$system-$platform-auto"  # the auto-tuner: 2 x 48 walkers cover k = 1, 2, 4 and 8
    config "$system" "$platform" 1 "$AUTO_WALKERS" "$steps" "$mode" "$WORK/$out" auto
    measure "$system" "$platform" off auto "$mode" "$out" "$AUTO_WALKERS" "$steps" 150
  done
done

echo
echo "GPU check ($([ $DRY -eq 1 ] && echo 'dry run, OpenCL/PoCL, tiny sizes' || nvidia-smi -L | head -1))," \
  "$(($(date +%s) - START)) s; ns/day: one device's aggregate in iteration 1 of 2"
printf '%-9s %-7s %-8s %-4s %-4s %6s %7s %12s %7s %12s  %s\n' system platform mode MPS k \
  walkers steps ns/day "÷ k=1" start-up "binding check; auto-tuner"
printf '%s\n' "${ROWS[@]}"

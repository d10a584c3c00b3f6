#!/usr/bin/env bash
# OpenMM on OpenCL (PoCL's CPU device here, or a GPU's OpenCL), alanine dipeptide in vacuum
# (tests/data/openmm/alad-vacuum), single precision. Every figure is a ratio measured side by side
# in this one run (docs/performance.md, "GPU-type platforms: the warm re-arm"):
#   1. start-up per walker on a warm slot, engine.reproducibility fast ÷ bitwise (bitwise rebuilds
#      the Context per walker: what every walker paid before fast existed);
#   2. the same for the trials of a 16-trial swarm cycle, and the cycle's time;
#   3. the walker phase of 2 × WALKERS walkers on one warm slot ÷ Trails-MD 1.1's pattern, a new
#      Context per walker for the same System and steps (bench/trailsmd_context_per_walker.py,
#      Debian's python3-openmm, run right after);
#   4. aggregate throughput of k = 1, 2, 4 Contexts on the one device ÷ k = 1.
# usage: bench/opencl_rearm.sh [BUILD_DIR]   (WALKERS=16 STEPS=500; TRAILS_BENCH_PLATFORM)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(readlink -f "${1:-$ROOT/build}")
WALKERS=${WALKERS:-16}
STEPS=${STEPS:-500}
STRIDE=50
PREPARED=$ROOT/tests/data/openmm/alad-vacuum
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trails-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$BUILD/bench/bench_opencl_rearm" "$PREPARED" "$WALKERS" "$STEPS" "$STRIDE" > "$WORK/engine.json"
/usr/bin/python3 "$ROOT/bench/trailsmd_context_per_walker.py" "$PREPARED" \
  "${TRAILS_BENCH_PLATFORM:-OpenCL}" single $((2 * WALKERS)) "$STEPS" "$STRIDE" > "$WORK/trailsmd.json"

/usr/bin/python3 - "$WORK/engine.json" "$WORK/trailsmd.json" <<'PY'
import json, sys
def load(path):  # OpenMM prints its OpenCL warning to stdout, before the JSON
    text = open(path).read()
    return json.loads(text[text.index("{"):])
e, base = load(sys.argv[1]), load(sys.argv[2])
fast, bitwise = e["fast"], e["bitwise"]
sf, sb = e["swarm_fast"], e["swarm_bitwise"]
phase = e["trails_walker_phase"]
rate = e["steps_per_s"]
print(f"{e['platform']} {e['precision']}, {fast['walkers']} walkers x {e['steps']} steps, stride {e['stride']}")
print("| figure | Trails | baseline | ratio |")
print("|---|---|---|---|")
print(f"| start-up per walker on a warm slot, fast ÷ bitwise (median, s) | {fast['median_rearm_s']:.5f} | {bitwise['median_rearm_s']:.4f} | {fast['median_rearm_s'] / bitwise['median_rearm_s']:.4f} |")
print(f"| start-up per swarm trial, fast ÷ bitwise (median, s) | {sf['median_trial_startup_s']:.5f} | {sb['median_trial_startup_s']:.4f} | {sf['median_trial_startup_s'] / sb['median_trial_startup_s']:.4f} |")
print(f"| 16-trial swarm cycle (20 steps each), fast ÷ bitwise (median, s) | {sf['median_cycle_s']:.4f} | {sb['median_cycle_s']:.4f} | {sf['median_cycle_s'] / sb['median_cycle_s']:.4f} |")
print(f"| {phase['walkers']} walkers × {e['steps']} steps: Trails (one warm slot) ÷ a new Context per walker (s) | {phase['wall_s']:.3f} | {base['wall_s']:.3f} | {phase['wall_s'] / base['wall_s']:.4f} |")
print(f"| start-up per walker: Trails warm re-arm ÷ a new Context (s) | {phase['median_rearm_s']:.5f} | {base['startup_per_walker_s']:.4f} | {phase['median_rearm_s'] / base['startup_per_walker_s']:.4f} |")
for k in ("2", "4"):
    print(f"| aggregate steps/s, {k} Contexts on the device ÷ 1 | {rate[k]:.0f} | {rate['1']:.0f} | {rate[k] / rate['1']:.3f} |")
print(f"first Context build on the slot: fast {fast['first_startup_s']:.3f} s, bitwise {bitwise['first_startup_s']:.3f} s")
PY

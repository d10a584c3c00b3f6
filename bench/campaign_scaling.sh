#!/usr/bin/env bash
# Campaign throughput on device pools (docs/performance.md, "Device pools"): the built-in engine
# with engine.synthetic_cost_ms (a sleep, so 8 "devices" fit on 2 cores), 64 walkers per
# iteration, 1/2/4/8 devices x 1/2/4 workers per device. Prints the MD wall time per iteration
# (runner_s from the ledger, via `trails status --json`), the whole iteration's wall time, the
# speedup of the MD phase over 1 x 1, and two fractions of the ideal: with s slots a sleep-bound
# iteration needs ceil(64 / s) rounds of one walker's cost ("ideal MD"), so the ideal speedup is
# 64 / ceil(64 / s); "ideal MD / MD" compares with that time directly, without the noise of the
# 1 x 1 baseline.
# Usage: bench/campaign_scaling.sh [BUILD=build] [ITERATIONS=4] [COST_MS=15]
set -euo pipefail
root=$(readlink -f "$(dirname "$0")/..")
build=$(readlink -f "${1:-build}")
iterations=${2:-4}
cost=${3:-15}
walkers=64
# The tests' small Müller–Brown campaign (write_config); sourcing sets up a temporary $WORK.
source "$root/tests/scripts/lib/common.bash" "$build/trails" "$root"
rows="$WORK/rows.tsv"
for devices in 1 2 4 8; do
  for per_device in 1 2 4; do
    name="d${devices}w${per_device}"
    SYNTHETIC_COST_MS=$cost WALKERS=$walkers write_config "$name.yaml" "$name"
    printf 'execution:\n  devices: [%s]\n  workers_per_device: %s\n' \
      "$(seq -s, 0 $((devices - 1)))" "$per_device" >> "$name.yaml"
    "$TRAILS" run "$name.yaml" --iterations "$iterations" > /dev/null
    "$TRAILS" status "$name" --json > "$name.json"
    printf '%s\t%s\t%s\n' "$devices" "$per_device" "$WORK/$name.json" >> "$rows"
  done
done
/usr/bin/python3 - "$rows" "$walkers" "$cost" <<'PY'
import json, math, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n") if line]
walkers, cost = int(sys.argv[2]), float(sys.argv[3])
data = []
for d, w, path in rows:
    s = json.load(open(path))
    n = s["iterations_committed"]
    data.append((int(d), int(w), s["time"]["runner_s"] / n, s["time"]["mean_iteration_s"]))
base = data[0][2]
print(f"{walkers} walkers x {cost:g} ms, MD wall time per iteration (mean of {n} iterations)")
print("| devices | workers/device | slots | MD per iteration (s) | iteration (s) | ideal MD (s) | speedup | ideal speedup | speedup / ideal | ideal MD / MD |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for d, w, md, it in data:
    slots = d * w
    rounds = math.ceil(walkers / slots)
    ideal = walkers / rounds
    speedup = base / md
    print(f"| {d} | {w} | {slots} | {md:.3f} | {it:.3f} | {rounds * cost / 1000:.3f} | "
          f"{speedup:.2f} | {ideal:.1f} | {speedup / ideal:.2f} | {rounds * cost / 1000 / md:.2f} |")
PY

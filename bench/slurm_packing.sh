#!/usr/bin/env bash
# Scheduler arrays with and without job packing (docs/performance.md, "SLURM arrays"): the
# built-in engine with engine.synthetic_cost_ms (a sleep per walker), W walkers per iteration,
# execution.backend: slurm on the private one-node cluster of scripts/slurm-local (started here
# when SLURM_CONF is unset), walkers_per_task 1, 4 and W. Prints per setting: array submissions
# and array tasks per iteration (the driver's summary lines), the walkers' wall time over the
# array tasks' wall time (each task's `trails worker --pack` line: walker seconds against the
# seconds since its job script started), and the campaign's mean iteration wall time.
# Usage: bench/slurm_packing.sh [BUILD=build] [ITERATIONS=3] [COST_MS=200] [WALKERS=16]
set -euo pipefail
root=$(readlink -f "$(dirname "$0")/..")
build=$(readlink -f "${1:-build}")
iterations=${2:-3}
cost=${3:-200}
walkers=${4:-16}
source "$root/tests/scripts/lib/common.bash" "$build/trails" "$root"
if [ -z "${SLURM_CONF:-}" ]; then
  eval "$(bash "$root/scripts/slurm-local" start "$WORK/cluster")"
  trap 'bash "$root/scripts/slurm-local" stop "$WORK/cluster"; rm -rf "$WORK"' EXIT
fi
printf '%-16s %12s %12s %18s %14s\n' walkers_per_task submissions array_tasks "walker/task wall" iteration_s
for per in 1 4 "$walkers"; do
  name="p$per"
  mkdir -p "$WORK/logs_$name"
  SYNTHETIC_COST_MS=$cost WALKERS=$walkers write_config "$name.yaml" "$name"
  with_execution "$name.yaml" "backend: slurm" "poll_interval: 0.2" "marker_grace: 3" \
    "walkers_per_task: $per" "job_name: trails-bench" \
    "extra_directives: ['--output=$WORK/logs_$name/%A_%a.out']"
  "$TRAILS" run --log-level info "$name.yaml" --iterations "$iterations" > "$name.out" 2>&1
  "$TRAILS" status "$name" --json > "$name.json"
  /usr/bin/python3 - "$name.out" "$WORK/logs_$name" "$name.json" "$per" <<'PY'
import glob, json, re, sys
out, logs, status, per = sys.argv[1:5]
subs, tasks = [], []
for line in open(out):
    m = re.search(r"iteration \d+: \d+ walkers in (\d+) array task\(s\), \d+ reused, \d+ attempt\(s\), (\d+) submission", line)
    if m:
        tasks.append(int(m.group(1))); subs.append(int(m.group(2)))
walker = task = 0.0
for path in glob.glob(logs + "/*.out"):
    for line in open(path):
        m = re.search(r"walkers ([0-9.]+) s of ([0-9.]+) s task wall", line)
        if m:
            walker += float(m.group(1)); task += float(m.group(2))
s = json.load(open(status))
print(f"{per:<16} {sum(subs)/len(subs):12.1f} {sum(tasks)/len(tasks):12.1f} "
      f"{walker/task:18.2f} {s['time']['mean_iteration_s']:14.2f}")
PY
done

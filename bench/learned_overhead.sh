#!/usr/bin/env bash
# bench/learned_overhead.sh: the per-iteration overhead of a learned-space campaign on the
# alanine-dipeptide example (docs/performance.md, "Learned-space overhead per iteration").
# Runs one short OpenMM campaign (CPU platform) per space mode at the sizes of Trails-MD's own
# learned alanine-dipeptide runs (its hpc_tests/run_local_matrix.py entries openmm_tvae,
# openmm_vampnet, openmm_spib, openmm_deep_tica: 4 walkers × 2000 steps, stride 100, 2 workers,
# 45 heavy-atom distances, latent 2, lag 2 frames, 20 epochs, feature memory on, features saved,
# retrain_freq 1 (Trails-MD's default), n_bins [18, 18]) and reads what the run records:
#   - output.log's runner_s (the iteration's MD wall time) and analysis_s (everything after
#     the MD: features, projection, the wait for a training still running, spawn, commit);
#   - the info line of each network that trained during the MD (training seconds, the wait);
#   - the debug line of each iteration element (its seconds), summed per element, and of the
#     commit's first part: the elements' state (a new network's weights copied into it).
# Iteration 0 trains its first model before the spawn (nothing to overlap) and is left out.
# Not a test: prints two tables (the ratios, with the issue's own first, then the analysis per
# element in ms per iteration).
# Usage:
#   bash bench/learned_overhead.sh [TRAILS=build/trails] [MODES="tica tvae vampnet spib deep-tica"]
#                                  [ITERATIONS=6]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
trails=$(realpath "${1:-$here/build/trails}")
modes=${2:-"tica tvae vampnet spib deep-tica"}
iterations=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/examples/alanine-dipeptide/alanine-dipeptide.pdb" "$work/"

for mode in $modes; do
  cat > "$work/$mode.yaml" <<YAML
outdir: $work/run-$mode
random_seed: 42
iterations: $iterations
space_mode: $mode
n_bins: [18, 18]
adaptive_feature_type: distances
aggregate_memory: true
save_features: true
retrain_policy: fixed
retrain_freq: 1
adaptive_model:
  latent_dim: 2
  lagtime: 2
  epochs: 20
system:
  conf_file: alanine-dipeptide.pdb
  forcefield: [amber14-all.xml]
  feature_selection: protein and not (type H)
engine:
  md_engine: openmm
  platform_name: CPU
  temperature: 300.0
  dt: 0.002
  seed: 7
spawning:
  walker: 4
  step: 2000
  stride: 100
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
YAML
  (cd "$work" && "$trails" run "$mode.yaml" --log-level debug > "$mode.out" 2>&1)
done

# The issue's ratio (issue 31: frames projected + training amortised, over the MD): the
# learned-space element (the new frames' features and projection, the wait for a training still
# running, a new model's install) plus the model record (the elements' state, where a new
# network's weights are copied; its attachment's insert is inside the commit, not separated)
# ÷ MD. Beside it: the commit's share (state, shard fsync and rename, the ledger transaction)
# and everything after the MD.
sum_element() {  # OUT NAME: ms per iteration of one element over iterations >= 1
  { grep -h -oE "iteration [0-9]+: $2 [0-9.]+ s$" "$1" || true; } |
    awk '{ if ($2 + 0 >= 1) { t += $(NF - 1); n++ } } END { printf "%.3f\n", n ? 1000 * t / n : 0 }'
}
echo "| space_mode | iterations | MD per iteration | learned space (ms) | of it waited (ms) | model record (ms) | **issue ratio** | commit (ms) | commit ÷ MD | analysis ÷ MD | training ÷ MD |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for mode in $modes; do
  out="$work/$mode.out"
  log="$work/run-$mode/output.log"
  read -r md analysis n < <(awk -F'\t' '!/^#/ && $1 != "iteration" && $1 >= 1 {md += $2; an += $3; n++}
    END {printf "%.3f %.3f %d\n", md, an, n}' "$log")
  read -r trained waited < <( (grep -h "training during the MD" "$out" || true) |
    sed -E 's/.* ([0-9.]+) s of training during the MD, ([0-9.]+) s waited.*/\1 \2/' |
    awk '{t += $1; w += $2} END {printf "%.3f %.3f\n", t, w}')
  space=$(sum_element "$out" "learned space")
  record=$(sum_element "$out" "state")
  commit=$(sum_element "$out" "commit")
  awk -v m="$mode" -v n="$n" -v md="$md" -v an="$analysis" -v tr="$trained" -v wt="$waited" \
    -v sp="$space" -v rc="$record" -v cm="$commit" 'BEGIN {
      mdi = 1000 * md / n
      printf "| %s | %d | %.2f s | %.1f | %.1f | %.1f | **%.2f %%** | %.1f | %.2f %% | %.2f %% | %.3f |\n",
        m, n, md / n, sp, 1000 * wt / n, rc, 100 * (sp + rc) / mdi, cm, 100 * cm / mdi,
        100 * an / md, tr / md }'
done

# The elements after the MD, in iteration order (campaign_iteration.cpp), in ms per iteration.
echo
elements=$(grep -h -oE "iteration [0-9]+: [a-z ]+ [0-9.]+ s$" "$work/"*.out |
  sed -E 's/iteration [0-9]+: (.*) [0-9.]+ s$/\1/' | awk '!seen[$0]++' |
  grep -vxE "space training|segments" | paste -sd'|')
echo "| space_mode | ${elements//|/ | } |"
echo "|---|$(sed -E 's/[^|]+/---:/g' <<<"$elements")|"
for mode in $modes; do
  grep -h -oE "iteration [0-9]+: [a-z ]+ [0-9.]+ s$" "$work/$mode.out" |
    awk -v m="$mode" -v list="$elements" '
      { it = $2 + 0; name = $0; sub(/^iteration [0-9]+: /, "", name); sub(/ [0-9.]+ s$/, "", name)
        if (it >= 1) { sum[name] += $(NF - 1); iters[it] = 1 } }
      END { n = 0; for (i in iters) n++; k = split(list, e, "|"); row = "| " m " |"
            for (j = 1; j <= k; j++) row = row sprintf(" %.1f |", 1000 * sum[e[j]] / n); print row }'
done

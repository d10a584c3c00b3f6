#!/usr/bin/env bash
# The exploration spawners and the adaptive binners (docs/spawning.md) through `trails run`: a
# short built-in Müller–Brown campaign per scheme (voronoi, periodic Voronoi in target mode with a
# climbing cell ladder, lof, fps; the density spawner with binning.scheme gradient, mab and
# eigenvector, each with a history_window) killed by kill -9 (TRAILS_CRASH_AT) and continued with
# --resume exports byte for byte what an uninterrupted run exports; `trails status` shows the
# Voronoi cell count; the binners spawn differently from the uniform grid; `trails check` notes
# or refuses binning and Voronoi keys. That each scheme explores beyond its start and restarts
# only from frames inside its window is tested on the driver itself, without the shell
# (tests/campaign/exploration_window_test.cpp).
source "$(dirname "$0")/lib/common.bash"

# scheme_config FILE OUTDIR SCHEME [extra spawning lines...]; $BINNING (if set): the binning
# block's lines, e.g. "scheme: gradient"; $SPAWN_TYPE (if set) replaces spawn_type: hard.
scheme_config() {
  local file=$1 outdir=$2 scheme=$3
  shift 3
  write_config "$file" "$outdir" "history_window: 3" "$@"
  sed -i "s/spawn_scheme: density/spawn_scheme: $scheme/" "$file"
  [ -z "${SPAWN_TYPE:-}" ] || sed -i "s/spawn_type: hard/spawn_type: $SPAWN_TYPE/" "$file"
  if [ -n "${BINNING:-}" ]; then
    echo "binning:" >> "$file"
    local line
    while IFS= read -r line; do echo "  $line" >> "$file"; done <<< "$BINNING"
  fi
}

check_scheme() {  # NAME SCHEME [extra spawning lines...]
  local name=$1
  shift
  scheme_config "$name.yaml" "$name" "$@"
  "$TRAILS" run "$name.yaml" --iterations 12 > /dev/null || fail "$name: run failed"
  export_run "$name" "$name"
  scheme_config "$name-crash.yaml" "$name-crash" "$@"
  set +e
  TRAILS_CRASH_AT=md:6 "$TRAILS" run "$name-crash.yaml" --iterations 12 > "$name-crash.out" 2>&1
  local rc=$?
  set -e
  [ $rc -eq 137 ] || fail "$name: expected death by SIGKILL (137), got $rc: $(cat "$name-crash.out")"
  [ "$(committed "$name-crash")" -eq 6 ] || fail "$name: committed iterations after the crash"
  "$TRAILS" run "$name-crash.yaml" --iterations 12 --resume > /dev/null || fail "$name: resume failed"
  export_run "$name-crash" "$name-crash"
  cmp "$name.cvs.csv" "$name-crash.cvs.csv" || fail "$name: resumed CV export differs"
  cmp "$name.lineage.csv" "$name-crash.lineage.csv" || fail "$name: resumed lineage differs"
  pass "$name: kill -9 at md:6 + --resume is byte-identical"
}

check_scheme voronoi voronoi "voronoi_clusters: 20"
# The cell ladder climbs every iteration (patience 1) from 4 cells to 40: a resume that lost the
# cell count would spawn differently after the crash.
check_scheme voronoi-periodic voronoi "voronoi_periodic: true" "voronoi_clusters: 4" \
  "voronoi_max_clusters: 40" "resolution_check_patience: 1" "search_mode: target" \
  "target: [0.6, 0.0]"
# trails status shows the cell count the ladder reached (4 → 6 → 9 → 13 → 19 → 28 → 40, capped).
"$TRAILS" status voronoi-periodic > vp-status.txt || fail "status of the Voronoi run failed"
grep -q "Voronoi cells 40 (max 40)" vp-status.txt || fail "status lacks the cell count: $(cat vp-status.txt)"
"$TRAILS" status voronoi-periodic --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)["resolution"]
assert r["voronoi_cells"] == 40 and r["voronoi_max_clusters"] == 40, r' ||
  fail "status --json lacks the cell count"
pass "trails status shows the Voronoi cell count (text and --json)"
check_scheme lof lof "lof_neighbors: 10"
check_scheme fps fps
check_scheme fps-target fps "search_mode: target" "target: [0.6, 0.0]"

# The adaptive binners behind the density spawner. The resolution ladder climbs every iteration
# (patience 1) in the gradient run: its bin counts must reach the binner, before and after the
# crash.
BINNING=$'scheme: gradient\nn_fine: 60\nsmoothing: 5' check_scheme gradient density \
  "resolution_check_patience: 1"
BINNING="scheme: mab" SPAWN_TYPE=soft check_scheme mab-soft-target density \
  "search_mode: target" "target: [0.6, 0.0]"
BINNING="scheme: eigenvector" check_scheme eigenvector density
# Each binner changes what is spawned: none of the runs restarts from the frames a uniform grid
# picks (the uniform run is the density spawner with the same seed).
scheme_config uniform.yaml uniform density "resolution_check_patience: 1"
"$TRAILS" run uniform.yaml --iterations 12 > /dev/null || fail "uniform: run failed"
export_run uniform uniform
for run in gradient eigenvector; do
  ! cmp -s uniform.lineage.csv "$run.lineage.csv" || fail "$run: spawned what the uniform grid did"
done
pass "gradient and eigenvector binning spawn differently from the uniform grid"
! "$TRAILS" status uniform | matches "Voronoi cells" || fail "a density run shows Voronoi cells"

# binning.scheme is read by the density (and weighted-ensemble) spawners only: with another
# spawner it is accepted with a note, as Trails-MD ignores it.
BINNING="scheme: mab" scheme_config note.yaml note lof
"$TRAILS" check note.yaml > note.out 2>&1 || fail "binning.scheme with lof refused: $(cat note.out)"
grep -q "binning.scheme: has no effect with spawning.spawn_scheme: lof" note.out ||
  fail "no note for binning.scheme with lof: $(cat note.out)"
pass "binning.scheme with spawn_scheme lof: accepted with a note"

# Bad combinations are refused before anything is written.
write_config bad.yaml bad "voronoi_clusters: 300" "voronoi_max_clusters: 200"
sed -i "s/spawn_scheme: density/spawn_scheme: voronoi/" bad.yaml
expect_exit 2 "voronoi_clusters above its cap" "voronoi_max_clusters" "$TRAILS" check bad.yaml
sed -i "s/n_bins: \[30, 30\]/n_bins: [30, 30, 30]/" bad.yaml
expect_exit 2 "3-D Voronoi" "2-D CV space" "$TRAILS" check bad.yaml
[ ! -e bad ] || fail "a refused configuration created its run directory"
pass "voronoi_clusters > voronoi_max_clusters and a 3-D Voronoi space are refused (exit 2)"

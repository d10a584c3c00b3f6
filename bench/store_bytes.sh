#!/usr/bin/env bash
# Stored bytes per frame against XTC (docs/performance.md, "Stored bytes per frame"): one short
# OpenMM campaign on the Na+-Cl- pair in 486 TIP3P waters (1460 atoms, PME, CPU platform) run
# with output.position_precision 0.001 nm (the default grid), exact float64 and float32, each
# run's frames exported to XTC by the repo's own trajio writer (trails export --trajectory,
# precision 0.001 nm). Prints
# the shard's position bytes per frame (HDF5 storage size of /particles/walkers/position/value),
# the whole shards' bytes per frame, and the XTC file's bytes per frame, with the ratios.
# usage: bench/store_bytes.sh TRAILS [ITERATIONS]
set -euo pipefail
TRAILS=$(readlink -f "$1")
ITERATIONS=${2:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trails-bytes-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
output_block() {
  case $1 in
    grid) ;;  # the default: output.position_precision 0.001
    float64) printf 'output:\n  position_precision: exact\n' ;;
    float32) printf 'output:\n  precision: float32\n' ;;
  esac
}
for precision in grid float64 float32; do
  cat > $precision.yaml <<YAML
outdir: $precision
random_seed: 1
iterations: $ITERATIONS
cvs:
  - {name: d_na_cl, kind: distance, atoms: [0, 1]}
n_bins: [20]
min_values: [0.2]
max_values: [1.2]
system:
  conf_file: $ROOT/examples/swarm-ion-pair/ion-pair.pdb
  forcefield: [amber14-all.xml, amber14/tip3p.xml]
engine:
  md_engine: openmm
  platform_name: CPU
  dt: 0.002
spawning:
  walker: 4
  step: 500
  stride: 25
  max_workers: 1
  history_window: 0
YAML
  output_block $precision >> $precision.yaml
  "$TRAILS" run $precision.yaml > $precision.out 2>&1 || { cat $precision.out; exit 1; }
  "$TRAILS" export $precision --trajectory $precision.xtc > /dev/null
done
/usr/bin/python3 - <<'PY'
import glob, os
import h5py
rows = []
for p in ("grid", "float64", "float32"):
    frames = position = shards = 0
    for f in sorted(glob.glob(p + "/shards/iter_*.h5")):
        with h5py.File(f, "r") as h:
            d = h["/particles/walkers/position/value"]
            frames += d.shape[0]
            position += d.id.get_storage_size()
        shards += os.path.getsize(f)
    xtc = os.path.getsize(p + ".xtc")
    rows.append((p, frames, position / frames, shards / frames, xtc / frames))
xtc_ref = rows[0][4]
print("%-9s %7s %16s %14s %12s %10s %10s" % ("precision", "frames", "positions B/fr", "shards B/fr", "XTC B/fr", "pos/XTC", "shard/XTC"))
for p, n, pos, sh, x in rows:
    print("%-9s %7d %16.0f %14.0f %12.0f %10.2f %10.2f" % (p, n, pos, sh, x, pos / x, sh / x))
PY

#!/usr/bin/env bash
# `make demo`: a 20-iteration density-spawner campaign on alanine dipeptide (OpenMM, amber14 in
# vacuum, Reference platform, 8 walkers × 10 ps) over φ/ψ of residue 2, then its table, status
# and Ramachandran coverage plot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../run-example.sh" "$here" alanine-dipeptide \
  "Ramachandran coverage (phi/psi in degrees)" "${1:-build/trails}"

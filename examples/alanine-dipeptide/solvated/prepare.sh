#!/usr/bin/env bash
# Regenerates the committed solvated system: solvated.pdb, then prepared/ (system.xml,
# topology.pdb, prepare.json) with Trails' own preparation step (PME 1.0 nm, HBonds, rigid water,
# hydrogen mass 1.5 amu).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../.."
cd "$here"
/usr/bin/python3 solvate.py
rm -rf prepared
/usr/bin/python3 "$root/share/trails/prepare_openmm.py" --conf solvated.pdb \
  --forcefield amber14-all.xml --forcefield amber14/tip3p.xml --out prepared

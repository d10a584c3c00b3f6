#!/usr/bin/env bash
# OpenMM system preparation errors reach the user as exit 2 with the key and OpenMM's message,
# from `trails check` as from `trails run`, and neither leaves a run directory (or the missing
# parents of one) behind.
source "$(dirname "$0")/lib/common.bash"
cp "$ROOT/tests/data/structures/alanine-dipeptide.pdb" alad.pdb

openmm_config() {  # $1 file, rest: extra system-block lines
  local file=$1
  shift
  {
    printf 'outdir: run\nn_bins: [30, 30]\nmin_values: [-3.15, -3.15]\nmax_values: [3.15, 3.15]\n'
    printf 'system:\n  conf_file: alad.pdb\n'
    for line in "$@"; do printf '  %s\n' "$line"; done
    printf 'engine:\n  md_engine: openmm\n  platform_name: Reference\n'
    printf 'spawning:\n  walker: 2\n  step: 20\n  stride: 10\n'
  } > "$file"
}

check_case() {  # $1 config, $2 expected substring
  local cmd rc
  for cmd in check run; do
    set +e
    "$TRAILS" "$cmd" "$1" > out.txt 2> err.txt
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "trails $cmd $1: exit $rc, expected 2 ($(cat err.txt))"
    grep -qF -- "$2" err.txt || fail "trails $cmd $1: message lacks '$2': $(cat err.txt)"
    [ ! -e run ] && [ ! -e nested ] || fail "trails $cmd $1: left a run directory behind"
  done
}

openmm_config ff.yaml "forcefield: [no-such-forcefield.xml]"
check_case ff.yaml "system.forcefield: cannot load force field"
openmm_config bare.yaml
check_case bare.yaml "system.top_file:"
openmm_config missing.yaml "top_file: nothing.prmtop"
check_case missing.yaml "system.top_file: file not found"
# CV columns against n_bins need the prepared topology: `check` prepares in a scratch
# directory, and a failing run removes the parents it created for its outdir.
openmm_config dims.yaml "forcefield: [amber14-all.xml]"
sed -i 's/^outdir: run/outdir: nested\/deeper\/run/; s/^n_bins: .*/n_bins: [30, 30, 30]/' dims.yaml
sed -i 's/^min_values: .*/min_values: [-3.15, -3.15, -3.15]/; s/^max_values: .*/max_values: [3.15, 3.15, 3.15]/' dims.yaml
printf 'cvs:\n  - {name: phi, kind: phi, resid: 2}\n  - {name: psi, kind: psi, resid: 2}\n' >> dims.yaml
check_case dims.yaml "n_bins has 3 entries but the CVs give 2 columns (phi, psi)"
pass "OpenMM preparation errors: exit 2, key named, nothing written"

# system.initial_trajectory is read and checked against the prepared system by check as by run.
/usr/bin/python3 - <<'PY2'
import mdtraj as md, numpy as np
t = md.load("alad.pdb")
md.Trajectory(np.repeat(t.xyz, 5, axis=0), t.topology).save_xtc("good.xtc")
five = t.atom_slice(range(5))
md.Trajectory(np.repeat(five.xyz, 5, axis=0), five.topology).save_xtc("five-atoms.xtc")
data = open("good.xtc", "rb").read()
open("truncated.xtc", "wb").write(data[: len(data) // 2 + 7])
PY2
seeded() {  # FILE TRAJECTORY
  openmm_config "$1" "forcefield: [amber14-all.xml]" "initial_trajectory: $2"
  printf 'cvs:\n  - {name: phi, kind: phi, resid: 2}\n  - {name: psi, kind: psi, resid: 2}\n' >> "$1"
}
seeded atoms.yaml five-atoms.xtc
check_case atoms.yaml "system.initial_trajectory: $PWD/five-atoms.xtc: XTC file has 5 atoms, expected 22"
seeded truncated.yaml truncated.xtc
check_case truncated.yaml "truncated.xtc: not a readable XTC file: frame 2"
seeded pdb.yaml alad.pdb
check_case pdb.yaml "system.initial_trajectory: $PWD/alad.pdb: unknown trajectory format '.pdb'"
seeded good.yaml good.xtc
"$TRAILS" check good.yaml > /dev/null || fail "check refused a good initial_trajectory"
pass "a bad initial_trajectory (atom count, truncated XTC, a PDB): exit 2 from check and run"

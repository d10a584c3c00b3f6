#!/usr/bin/env bash
# OpenMM system preparation errors reach the user as exit 2 with the key and OpenMM's message,
# and `trails run` leaves no run directory behind.
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
  set +e
  "$TRAILS" run "$1" > out.txt 2> err.txt
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$1: exit $rc, expected 2 ($(cat err.txt))"
  grep -qF -- "$2" err.txt || fail "$1: message lacks '$2': $(cat err.txt)"
  [ ! -e run ] || fail "$1: left a run directory behind"
}

openmm_config ff.yaml "forcefield: [no-such-forcefield.xml]"
check_case ff.yaml "system.forcefield: cannot load force field"
openmm_config bare.yaml
check_case bare.yaml "system.top_file:"
openmm_config missing.yaml "top_file: nothing.prmtop"
check_case missing.yaml "system.top_file: file not found"
pass "OpenMM preparation errors: exit 2, key named, nothing written"

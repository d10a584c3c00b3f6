# Shared helper of the GROMACS shell tests (sourced after common.bash; not a test itself).
# GMX is the gmx program the tests give engine.gromacs_executable (tests/scripts/gmx-for-tests:
# native, or mdrun under qemu-x86_64 where the CPU lacks rdtscp). require_gmx_mdrun prints the
# route, or exits 77 (ctest's skip) saying why when this host can run gmx mdrun neither way.
GMX=$ROOT/tests/scripts/gmx-for-tests
require_gmx_mdrun() {
  local route rc
  set +e
  route=$("$GMX" --check 2> route.err)
  rc=$?
  set -e
  if [ $rc -eq 77 ]; then
    echo "SKIP: this host cannot run gmx mdrun:" >&2
    cat route.err >&2
    exit 77
  fi
  [ $rc -eq 0 ] || fail "gmx-for-tests --check: exit $rc: $(cat route.err)"
  echo "gmx mdrun: $route"
}

# The cvs, system and engine blocks of Trails-MD's AlaD (start.gro + topol.top in the working
# directory) on GROMACS: phi/psi of residue 2; one thread, -pin off, -reprod (bitwise repeats).
alad_phi_psi_gromacs() {
  cat <<YAML
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
system:
  conf_file: start.gro
  top_file: topol.top
engine:
  md_engine: gromacs
  gromacs_executable: $GMX
  gromacs_include_dir: /usr/share/gromacs/top
  gromacs_mdrun_ntomp: 1
  gromacs_mdrun_pin: 'off'
  gromacs_mdrun_extra_args: [-reprod]
  temperature: 300.0
YAML
}

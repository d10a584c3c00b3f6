#!/usr/bin/env bash
# OpenMM's OpenCL platform on PoCL's CPU device (installed by scripts/install-deps; this test
# fails, not skips, without it): a small alanine-dipeptide campaign in single precision with two
# Contexts on one device (execution.devices [0], workers_per_device 2, binding_check fail) runs,
# records the device and the fast re-arm for every walker, and `trails advise` reads it; a slot
# bound to a device PoCL lacks runs on device 0 and the binding check fails its walkers, saying
# so; a small swarm on mixed precision on 2 Contexts of one device completes (docs/engines.md,
# "Reproducibility", "Several Contexts on one device").
source "$(dirname "$0")/lib/common.bash"

clinfo -l 2> /dev/null | matches "Device #0" ||
  fail "no OpenCL device: install PoCL with scripts/install-deps (pocl-opencl-icd, clinfo)"

walkers_where() {
  sqlite3 "$1/ledger.sqlite" "SELECT DISTINCT platform || ' | ' || device FROM walkers"
}

alad_config cl.yaml cl 2
sed -i -e 's/platform_name: Reference/platform_name: OpenCL\n  precision: single/' \
  -e 's/^iterations: 3/iterations: 2/' cl.yaml
printf 'execution:\n  devices: [0]\n  workers_per_device: 2\n  binding_check: fail\n' >> cl.yaml
"$TRAILS" run cl.yaml > cl.out 2>&1 || fail "OpenCL campaign: $(cat cl.out)"
[ "$(committed cl)" -eq 2 ] || fail "2 iterations should be committed: $(cat cl.out)"
# Before the first Context of a platform was built alone, PoCL failed concurrent first builds
# (clCreateBuffer (-61)), which the recovery re-run then hid.
! grep -q "clCreateBuffer" cl.out || fail "a Context build failed: $(grep clCreateBuffer cl.out)"
where=$(walkers_where cl)
[ "$(echo "$where" | wc -l)" -eq 1 ] || fail "walkers ran in different places: $where"
case "$where" in
  "OpenCL | OpenCL device 0 "*"; re-arm fast") ;;
  *) fail "walker record: '$where'" ;;
esac
"$TRAILS" advise cl --json > advise.json || fail "advise on the OpenCL run"
/usr/bin/python3 -c 'import json,sys; a=json.load(open("advise.json")); assert a["execution"]["gpu"] is True, a["execution"]' ||
  fail "advise does not see a device engine: $(cat advise.json)"
pass "OpenCL campaign on 2 Contexts of one device, fast re-arm recorded: $where"

# Device 1 does not exist on PoCL: OpenMM rejects OpenCLDeviceIndex 1, the instance retries with
# the default device, and the binding check (fail) refuses those walkers naming both devices.
sed -e 's/^outdir: cl$/outdir: wrong/' -e 's/devices: \[0\]/devices: [1]/' \
  -e 's/workers_per_device: 2/workers_per_device: 1/' -e 's/^iterations: 2/iterations: 1/' \
  cl.yaml > wrong.yaml
set +e
"$TRAILS" run wrong.yaml > wrong.out 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "walkers on a missing device were accepted: $(cat wrong.out)"
grep -q "asked for device 1 but the walker ran on OpenCL device 0" wrong.out ||
  fail "the binding check did not name the devices: $(cat wrong.out)"
pass "the binding check catches a walker that ran on another OpenCL device"

# A swarm: alanine dipeptide escaping its start phi on 2 Contexts of one device, mixed precision.
cat > swarm.yaml <<YAML
workdir: swarm
pathgennie:
  mode: escape
  escape_metric: distance_from_start
  max_trial: 4
  tau1_steps: 20
  tau2_steps: 20
  max_cycle: 3
  sigma: 0.1
  seed: 3
  devices: [0]
  workers_per_device: 2
cvs:
  - {name: phi, kind: phi, resid: 2}
system:
  conf_file: $ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb
  forcefield: [amber14-all.xml]
engine:
  md_engine: openmm
  platform_name: OpenCL
  precision: mixed
  temperature: 300
  dt: 0.002
YAML
"$TRAILS" swarm swarm.yaml > swarm.out 2>&1 || fail "OpenCL swarm: $(cat swarm.out)"
grep -q "OpenCL platform" swarm.out || fail "the swarm is not on OpenCL: $(cat swarm.out)"
[ "$(grep -c '^[0-9]' swarm/path_0/metrics.csv)" -eq 3 ] || fail "not 3 cycles: $(cat swarm/path_0/metrics.csv)"
pass "OpenCL swarm (mixed precision) on 2 Contexts of one device"

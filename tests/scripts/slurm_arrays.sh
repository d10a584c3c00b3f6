#!/usr/bin/env bash
# execution.backend: slurm on a real (private, one-node) SLURM cluster (docs/execution.md,
# "Scheduler arrays"): a built-in campaign run as arrays of `trails worker --pack` tasks exports
# byte-identical CVs and lineage to the same campaign serial — plain, chunked under a small
# MaxArraySize (read from `scontrol show config`), and packed (walkers_per_task: 4, two array
# elements per iteration), and packed on the task's devices (devices [0, 1] x 2 workers per
# device, --gres rendered); the rendered #SBATCH script carries the keys.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/slurm.bash"
trap 'cancel_ours trails-arr; rm -rf "$WORK"' EXIT

ITER=3
serial_reference $ITER

# Plain: one array of 8 elements per iteration, one submission each.
write_config plain.yaml plain
with_slurm plain.yaml trails-arr
"$TRAILS" run --log-level info plain.yaml --iterations $ITER > plain.out 2>&1 || fail "slurm run: $(cat plain.out)"
same_as_serial plain p "plain array"
[ "$(summaries plain.out | grep -c "8 walkers in 8 array task(s), 0 reused, 1 attempt(s), 1 submission(s)")" -eq $ITER ] ||
  fail "plain: one submission of 8 elements per iteration: $(summaries plain.out)"
[ ! -e plain/jobs/iter_0 ] || fail "plain: the job files of a finished iteration stay behind"
pass "slurm array: byte-identical to serial, one submission per iteration"

# Chunked: scontrol states MaxArraySize = 3, so 8 elements go out as 3 + 3 + 2.
mkdir -p fakebin
cat > fakebin/scontrol <<'SH'
#!/bin/bash
if [ "$1 $2" = "show config" ]; then
  /usr/bin/scontrol show config | sed 's/^MaxArraySize .*/MaxArraySize            = 3/'
else
  exec /usr/bin/scontrol "$@"
fi
SH
chmod +x fakebin/scontrol
write_config chunked.yaml chunked
with_slurm chunked.yaml trails-arr
PATH=$PWD/fakebin:$PATH "$TRAILS" run --log-level info chunked.yaml --iterations $ITER > chunked.out 2>&1 ||
  fail "chunked run: $(cat chunked.out)"
same_as_serial chunked c "chunked array"
[ "$(summaries chunked.out | grep -c "8 walkers in 8 array task(s), 0 reused, 1 attempt(s), 3 submission(s)")" -eq $ITER ] ||
  fail "chunked: three arrays per iteration: $(summaries chunked.out)"
pass "MaxArraySize 3 (detected): chunks of 3, 3, 2, byte-identical"

# A site's ordinary request (Trails-MD's hpc_tests/configs/alad_cpu_slurm.yaml: memory "4G",
# cpus_per_task 2) fits the private cluster's node, which describes this machine's real memory
# and CPUs (scripts/slurm-local).
write_config site.yaml site
with_slurm site.yaml trails-arr 'memory: "4G"' "cpus_per_task: $(( $(nproc) < 2 ? 1 : 2 ))"
"$TRAILS" run site.yaml --iterations 1 > site.out 2>&1 || fail "a 4G, 2-CPU site request: $(cat site.out)"
pass "memory 4G and cpus_per_task 2 (a site config) run on the local node"

# Packed: 4 walkers back to back per array element, on one warm engine.
write_config packed.yaml packed
with_slurm packed.yaml trails-arr "walkers_per_task: 4" "max_in_flight: 2" "cpus_per_task: 1" \
  "extra_directives: ['--comment=trails-test']" "module_loads: ['echo module line ran']" \
  "scratch: $WORK/scratch"
mkdir -p scratch
"$TRAILS" run --log-level info packed.yaml --iterations $ITER > packed.out 2>&1 || fail "packed run: $(cat packed.out)"
same_as_serial packed k "packed array"
[ "$(summaries packed.out | grep -c "8 walkers in 2 array task(s), 0 reused, 1 attempt(s), 1 submission(s)")" -eq $ITER ] ||
  fail "packed: two elements per iteration: $(summaries packed.out)"
[ -z "$(ls -A scratch)" ] || fail "packed: scratch not cleaned: $(ls scratch)"
pass "walkers_per_task 4 through node-local scratch: 2 array elements per iteration, byte-identical"
# trails advise reads the recorded packing and prices walkers_per_task for the slurm backend.
"$TRAILS" advise packed > advise.out 2>&1 || fail "advise: $(cat advise.out)"
grep -q "array tasks of 4 walker(s), 2 at once, slurm backend" advise.out || fail "advise: $(cat advise.out)"
grep -A1 "execution.walkers_per_task" advise.out | matches -E "slurm array task|on the slurm backend" ||
  fail "advise: walkers_per_task not worded for slurm: $(cat advise.out)"
pass "trails advise prices walkers_per_task from the slurm run's timings"

# Packed on the task's devices: walkers_per_task 4 on devices [0, 1] x 2 workers per device.
# The test cluster has no GPUs: an sbatch wrapper notes the rendered --gres line, removes it
# and sends the element logs where they are kept; CUDA_VISIBLE_DEVICES=5,7 (exported, so the
# array task inherits it) stands for what the scheduler sets on the task's node.
mkdir -p gresbin keptlogs
cat > gresbin/sbatch <<SH
#!/bin/bash
script="\${!#}"
grep '^#SBATCH --gres=' "\$script" >> "$WORK/gres.seen"
sed -e '/^#SBATCH --gres=/d' -e 's|^#SBATCH --output=.*/|#SBATCH --output=$WORK/keptlogs/|' "\$script" > "\$script.local"
exec /usr/bin/sbatch "\${@:1:\$#-1}" "\$script.local"
SH
chmod +x gresbin/sbatch
SYNTHETIC_COST_MS=20 write_config devices.yaml devices
with_slurm devices.yaml trails-arr "walkers_per_task: 4" "devices: [0, 1]" "workers_per_device: 2"
PATH=$WORK/gresbin:$PATH CUDA_VISIBLE_DEVICES=5,7 "$TRAILS" run --log-level info devices.yaml --iterations $ITER \
  > devices.out 2>&1 || fail "devices run: $(cat devices.out)"
same_as_serial devices d "packed on devices (synthetic_cost_ms changes no result)"
[ "$(sort -u gres.seen)" = "#SBATCH --gres=gpu:2" ] || fail "devices [0, 1]: --gres=gpu:2 expected: $(cat gres.seen)"
[ "$(cat keptlogs/*.out | grep -c "4 walkers, 0 failed, packed on devices 0,1 (CUDA_VISIBLE_DEVICES=5,7 -> 5,7) x 2 worker(s) per device = 4 slots")" -eq $((2 * ITER)) ] ||
  fail "every array task packs its 4 walkers on 2 devices x 2 workers: $(cat keptlogs/*.out)"
grep -q "placement: devices 0,1 x 2 worker(s) per device = 4 slots in each array task" devices.out ||
  fail "no placement line: $(cat devices.out)"
pass "walkers_per_task 4 packed on the task's devices (2 x 2 slots, --gres=gpu:2): byte-identical"

# The rendered script (kept when a walker fails; here rendered by a run whose last iteration
# fails for good, so its job files stay).
write_config kept.yaml kept
with_slurm kept.yaml trails-arr "walkers_per_task: 4" "max_in_flight: 2" "max_retries: 0" \
  "extra_directives: ['--comment=trails-test']" "module_loads: ['echo module line ran']"
set +e
TRAILS_TEST_FAULT=throw:1:1 "$TRAILS" run --log-level info kept.yaml --iterations 2 > kept.out 2>&1
set -e
script=kept/jobs/iter_1/submit_a0_c0.sh
[ -f "$script" ] || fail "no job script kept: $(cat kept.out)"
for directive in "#SBATCH --job-name=trails-arr" "#SBATCH --array=0-1%2" "#SBATCH --time=00:05:00" \
  "#SBATCH --cpus-per-task=1" "#SBATCH --comment=trails-test" "echo module line ran" \
  "'worker' '--heartbeat' '60.000' --pack"; do
  grep -qF -- "$directive" "$script" || fail "job script lacks '$directive': $(cat "$script")"
done
grep -q "module line ran" kept/jobs/iter_1/logs_a0_c0/*.out || fail "module line not run"
grep -q "walker 1 of iteration 1" kept.out || fail "the failed walker is not named: $(cat kept.out)"
pass "#SBATCH script carries the keys; a walker failed for good is reported with its log kept"

# Keys that cannot apply to array tasks are refused at the key, nothing written.
write_config refused.yaml refused
with_slurm refused.yaml trails-arr "persistent_workers: true" "devices: [0, 1]" "gpus_per_task: 1"
expect_exit 2 "persistent_workers with slurm" \
  "execution.persistent_workers: starts worker processes of the local backend; with execution.backend: slurm each array task already is one warm worker" \
  "$TRAILS" run refused.yaml
grep -qF "execution.gpus_per_task: asks for 1 GPU(s) per array task, but the devices of each task go up to logical index 1" err.txt ||
  fail "gpus_per_task below the devices not refused: $(cat err.txt)"
[ ! -e refused ] || fail "a refused configuration wrote its run directory"
pass "persistent_workers and too few gpus_per_task refused with slurm (exit 2, at the keys)"

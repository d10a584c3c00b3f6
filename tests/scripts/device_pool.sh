#!/usr/bin/env bash
# Device pools (docs/execution.md, "Devices and packing"): a built-in campaign run serially and
# on 4 "devices" x 2 workers per device exports byte-identical CVs and lineage (the built-in
# engine ignores the device, so devices are just slots); engine.gpu_ids and execution.devices
# together, and a logical device beyond CUDA_VISIBLE_DEVICES, exit 2 naming the keys and write
# nothing; progress.json and the `trails status` line appear while an iteration runs.
source "$(dirname "$0")/lib/common.bash"
MAX_WORKERS=1 write_config serial.yaml serial
write_config pool.yaml pool
printf 'execution:\n  devices: [0, 1, 2, 3]\n  workers_per_device: 2\n' >> pool.yaml
"$TRAILS" run serial.yaml --iterations 6 > /dev/null
CUDA_VISIBLE_DEVICES=4,5,6,7 "$TRAILS" run pool.yaml --iterations 6 > pool.out
grep -qF "placement   devices 0,1,2,3 (CUDA_VISIBLE_DEVICES=4,5,6,7 -> 4,5,6,7) x 2 worker(s) per device = 8 slots; MPS control daemon: no" pool.out ||
  fail "the banner lacks the device plan: $(cat pool.out)"
grep -qF "8 worker(s)" pool.out || fail "the banner lacks the slot count: $(cat pool.out)"
export_run serial s
export_run pool p
cmp s.cvs.csv p.cvs.csv || fail "CV exports differ between serial and 4x2 device runs"
cmp s.lineage.csv p.lineage.csv || fail "lineage exports differ"
[ ! -e pool/progress.json ] || fail "progress.json left behind after the run finished"
pass "serial and 4 devices x 2 workers export identical bytes ($(wc -l < s.cvs.csv) rows)"

# Trails-MD's engine.gpu_ids is the same setting: it works alone, and both together are refused.
write_config gpu_ids.yaml gpu_ids
sed -i 's/^engine:$/engine:\n  gpu_ids: [0, 1]/' gpu_ids.yaml
"$TRAILS" run gpu_ids.yaml --iterations 2 > gpu_ids.out
grep -qF "placement   devices 0,1" gpu_ids.out || fail "engine.gpu_ids not used: $(cat gpu_ids.out)"
printf 'execution:\n  devices: [0, 1]\n' >> gpu_ids.yaml
sed -i 's#^outdir: gpu_ids$#outdir: both#' gpu_ids.yaml
expect_exit 2 "gpu_ids and devices" "engine.gpu_ids and execution.devices" \
  "$TRAILS" run gpu_ids.yaml --iterations 1
[ ! -e both ] || fail "a refused config wrote its outdir"
pass "engine.gpu_ids alone places walkers; with execution.devices it exits 2 naming both"

write_config beyond.yaml beyond
printf 'execution:\n  devices: [0, 2]\n' >> beyond.yaml
CUDA_VISIBLE_DEVICES=3,5 expect_exit 2 "device beyond CUDA_VISIBLE_DEVICES" \
  'execution.devices[1] = 2: logical device 2 is beyond CUDA_VISIBLE_DEVICES="3,5"' \
  "$TRAILS" run beyond.yaml --iterations 1
[ ! -e beyond ] || fail "a refused device plan wrote its outdir"
CUDA_VISIBLE_DEVICES=3,5 expect_exit 2 "check: device beyond CUDA_VISIBLE_DEVICES" \
  'execution.devices[1] = 2: logical device 2 is beyond' "$TRAILS" check beyond.yaml
CUDA_VISIBLE_DEVICES=3,5,9 "$TRAILS" check beyond.yaml > /dev/null || fail "3 visible devices: check"
write_config twice.yaml twice
printf 'execution:\n  devices: [1, 1]\n' >> twice.yaml
expect_exit 2 "a device listed twice" "device 1 is listed twice" "$TRAILS" check twice.yaml
pass "a logical device beyond CUDA_VISIBLE_DEVICES and a repeated device exit 2"

# Progress inside an iteration: 16 walkers of 150 ms on 2 slots take about 1.2 s per iteration;
# poll until progress.json and the status line show walkers done, then let the run finish.
SYNTHETIC_COST_MS=150 WALKERS=16 write_config slow.yaml slow
printf 'execution:\n  devices: [0]\n  workers_per_device: 2\n' >> slow.yaml
"$TRAILS" run slow.yaml --iterations 3 > slow.out 2>&1 &
run_pid=$!
seen_file="" seen_status=""
for _ in $(seq 1 600); do
  if [ -z "$seen_file" ] && [ -s slow/progress.json ]; then
    /usr/bin/python3 - slow/progress.json 2> /dev/null <<'PY' && seen_file=yes || true
import json, sys
p = json.load(open(sys.argv[1]))
assert p["format"] == "trails-progress" and p["version"] == 1
assert p["walkers"] == 16 and p["done"] + p["running"] + p["queued"] == 16
assert 0 <= p["running"] <= 2 and p["done"] >= 1 and p["eta_s"] is not None
PY
  fi
  if [ -z "$seen_status" ] && "$TRAILS" status slow > status.txt 2> /dev/null &&
    grep -qE "^in progress     iteration [0-9]+: walkers [0-9]+/16 done \(0 failed\), [0-2] running, [0-9]+ queued" status.txt; then
    seen_status=yes
  fi
  [ -n "$seen_file" ] && [ -n "$seen_status" ] && break
  kill -0 "$run_pid" 2> /dev/null || break
  sleep 0.05
done
wait "$run_pid" || fail "the slow run failed: $(cat slow.out)"
[ -n "$seen_file" ] || fail "progress.json never showed walkers done during the run"
[ -n "$seen_status" ] || fail "trails status never showed the running iteration: $(cat status.txt)"
"$TRAILS" status slow > status.txt
! grep -q "in progress" status.txt || fail "status shows progress of a finished run"
pass "progress.json and the status line follow the running iteration"

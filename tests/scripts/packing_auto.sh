#!/usr/bin/env bash
# execution.workers_per_device: auto (docs/execution.md, "Walkers per device from measurement")
# on the built-in engine over 2 "devices": the walkers sleep 5 ms each (synthetic_cost_ms, a
# device-bound walker), so the search measures k = 1, 2, ... across the first iterations. The
# exports are byte-identical to a run with a fixed 2 walkers per device (a built-in walker is a
# pure function of its task); the ledger holds the trials, trails advise shows them with their
# ratio to k = 1, a resume continues the search from the ledger, and auto without devices or
# with worker processes exits 2 naming the key.
source "$(dirname "$0")/lib/common.bash"
SYNTHETIC_COST_MS=5 WALKERS=24 write_config auto.yaml auto
printf 'execution:\n  devices: [0, 1]\n  workers_per_device: auto\n' >> auto.yaml
SYNTHETIC_COST_MS=5 WALKERS=24 write_config fixed.yaml fixed
printf 'execution:\n  devices: [0, 1]\n  workers_per_device: 2\n' >> fixed.yaml
"$TRAILS" run auto.yaml --iterations 3 > auto.out 2>&1 || fail "auto run: $(cat auto.out)"
grep -qF "x auto worker(s) per device" auto.out || fail "the banner lacks auto: $(cat auto.out)"
"$TRAILS" advise auto --json > advise3.json || fail "advise --json after 3 iterations"
"$TRAILS" run auto.yaml --iterations 5 --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
"$TRAILS" run fixed.yaml --iterations 5 > /dev/null
export_run auto a
export_run fixed f
cmp a.cvs.csv f.cvs.csv || fail "CV exports differ between auto and 2 walkers per device"
cmp a.lineage.csv f.lineage.csv || fail "lineage exports differ"
pass "auto and a fixed 2 walkers per device export identical bytes ($(wc -l < a.cvs.csv) rows)"

# The search, as committed with the last iteration and as trails advise reads it.
"$TRAILS" advise auto --json > advise.json || fail "advise --json"
/usr/bin/python3 - advise.json <<'PY' || fail "advise's packing record"
import json, sys
a = json.load(open(sys.argv[1]))
p = a["packing"]
trials = p["trials"]
assert [t["workers_per_device"] for t in trials] == [2 ** i for i in range(len(trials))], trials
assert len(trials) >= 2, trials  # 120 walkers cover k = 1 (6 walkers) and 2 (12)
assert all(not t["failed"] and t["steps_per_s"] > 0 and t["walkers"] > 0 for t in trials), trials
assert trials[0]["ratio_to_1"] == 1.0, trials[0]
assert all(t["ns_per_day"] is None for t in trials)  # reduced units: no ns/day
assert p["workers_per_device"] in (1, 2, 4, 8), p
assert a["execution"]["workers_per_device"] == p["workers_per_device"], a["execution"]
PY
"$TRAILS" advise auto > advise.txt || fail "advise"
grep -qF "walkers per device (execution.workers_per_device: auto" advise.txt ||
  fail "advise lacks the packing section: $(cat advise.txt)"
grep -qE "^ +1 +[0-9.e+]+ +- +1.00 +[0-9]+$" advise.txt || fail "advise's k = 1 row: $(cat advise.txt)"
pass "the ledger holds the trials; trails advise shows them against k = 1"

# Resume continued the search from the ledger: the trials after 3 iterations are a prefix of
# those after 5, each measured once.
/usr/bin/python3 - advise3.json advise.json <<'PY' || fail "the resumed search did not start from the ledger"
import json, sys
before = json.load(open(sys.argv[1]))["packing"]["trials"]
after = json.load(open(sys.argv[2]))["packing"]["trials"]
assert before == after[: len(before)], (before, after)
PY
pass "a resumed run continues the search from the ledger"

write_config nodev.yaml nodev
printf 'execution:\n  workers_per_device: auto\n' >> nodev.yaml
expect_exit 2 "auto without devices" "execution.workers_per_device" "$TRAILS" check nodev.yaml
write_config procs.yaml procs
printf 'execution:\n  devices: [0]\n  workers_per_device: auto\n  persistent_workers: true\n' >> procs.yaml
expect_exit 2 "auto with worker processes" "auto measures walkers in this process's device pool" \
  "$TRAILS" check procs.yaml
[ ! -e nodev ] && [ ! -e procs ] || fail "a refused config wrote its outdir"
pass "auto without devices, or with worker processes, exits 2 naming the key"

#!/usr/bin/env bash
# What may change on resume (docs/reliability.md): a campaign that failed in iteration 0 leaves
# nothing behind; a committed one continues with min_success_fraction or engine.dt changed; each change is recorded in the
# ledger with the iteration it took effect in and shown by `trails status`; CV space, grid and
# seed changes stay refused with nothing written.
source "$(dirname "$0")/lib/common.bash"

# Walker 1 of 4 starts where the Müller–Brown exponentials overflow: with min_success_fraction
# 1.0 iteration 0 aborts and, nothing being committed, leaves nothing behind.
stuck() { bad_start_config "$1" stuck "$2" "$3" "${4:-7}"; }  # FILE FRACTION DT [SEED]

stuck strict.yaml 1.0 0.0001
# check refuses what run would fail on, and only that: one bad start of four is fatal at 1.0.
expect_exit 2 "check strict" "3 of 4 walkers would succeed, min_success_fraction 1" \
  "$TRAILS" check strict.yaml
expect_exit 1 "strict run" "only 3 of 4 walkers succeeded" "$TRAILS" run strict.yaml
cp err.txt strict.err
grep -q "^error: iteration 0: only 3 of 4" strict.err || fail "error numbering: $(cat strict.err)"
grep -q "nothing was kept" strict.err || fail "the failure does not say nothing was kept: $(cat strict.err)"
[ ! -e stuck ] || fail "the failed iteration 0 left $(find stuck)"
expect_exit 2 "strict resume" "is not a Trails run directory" "$TRAILS" run strict.yaml --resume
pass "below min_success_fraction iteration 0 fails and leaves nothing to resume"

# At 0.75 the same campaign runs; a later resume may lower it further, recorded from the
# iteration it takes effect in.
stuck relaxed.yaml 0.75 0.0001
"$TRAILS" run relaxed.yaml --iterations 2 > relaxed.out 2> relaxed.err ||
  fail "min_success_fraction 0.75: $(cat relaxed.err)"
[ "$(committed stuck)" -eq 2 ] || fail "expected 2 committed iterations"
# One numbering everywhere: iterations count from 0 in the banner, progress lines and errors.
grep -q "iterations  0 to 1 (target 2)" relaxed.out || fail "banner: $(cat relaxed.out)"
grep -q "^iteration 0 (1/2) " relaxed.out && grep -q "^iteration 1 (2/2) " relaxed.out ||
  fail "progress lines do not number from 0: $(cat relaxed.out)"
stuck half.yaml 0.5 0.0001
"$TRAILS" check half.yaml --resume > /dev/null || fail "check --resume refused an allowed change"
"$TRAILS" run half.yaml --iterations 3 --resume > half.out 2> half.err ||
  fail "resume with min_success_fraction 0.5: $(cat half.err)"
grep -q "changed     min_success_fraction 0.75 → 0.5 from iteration 2" half.out ||
  fail "the banner does not show the change: $(cat half.out)"
grep -q "iterations  2 to 2 (target 3, resumed)" half.out || fail "banner: $(cat half.out)"
grep -q "^iteration 2 (3/3) " half.out || fail "progress lines of the resume: $(cat half.out)"

# With iterations committed, a refused key (the seed) next to an allowed one (dt): refused,
# naming only the seed, nothing written.
stuck seed.yaml 0.5 0.00005 8
before=$(snapshot stuck)
expect_exit 2 "seed change" "random_seed: 7 -> 8" "$TRAILS" run seed.yaml --resume
grep -q "engine.dt:" err.txt && fail "an allowed key was listed as refused: $(cat err.txt)"
grep -q "may change on resume" err.txt || fail "the message does not say what may change: $(cat err.txt)"
expect_exit 2 "check of the seed change" "random_seed: 7 -> 8" "$TRAILS" check seed.yaml --resume
[ "$before" = "$(snapshot stuck)" ] || fail "a refused resume changed the run directory"
pass "a seed change is refused with the allowed keys named, nothing written"

# Then a smaller time step from iteration 3; a repeated resume records nothing new.
stuck smaller-dt.yaml 0.5 0.00005
"$TRAILS" run smaller-dt.yaml --iterations 4 --resume > dt.out || fail "resume with engine.dt 5e-05"
"$TRAILS" run smaller-dt.yaml --iterations 5 --resume > dt2.out || fail "a second resume"
grep -q "changed" dt2.out && fail "an unchanged resume reported a change: $(cat dt2.out)"
/usr/bin/python3 - stuck <<'PY' || fail "ledger: config changes or per-iteration dt are wrong"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
rows = db.execute("SELECT iteration, key, before, after FROM config_changes ORDER BY seq").fetchall()
assert rows == [(2, "min_success_fraction", "0.75", "0.5"), (3, "engine.dt", "0.0001", "5e-05")], rows
dts = [r[0] for r in db.execute("SELECT dt FROM iterations ORDER BY iteration")]
assert dts == [0.0001, 0.0001, 0.0001, 5e-05, 5e-05], dts
config = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
assert config["engine"]["dt"] == 5e-05 and config["min_success_fraction"] == 0.5, config
PY
"$TRAILS" status stuck > status.txt
grep -q "changed         min_success_fraction 0.75 -> 0.5 from iteration 2" status.txt ||
  fail "status does not show the first change: $(cat status.txt)"
grep -q "changed         engine.dt 0.0001 -> 5e-05 from iteration 3" status.txt ||
  fail "status does not show the dt change: $(cat status.txt)"
"$TRAILS" status stuck --json | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)["config_changes"]
assert [(x["iteration"], x["key"]) for x in c] == [(2, "min_success_fraction"), (3, "engine.dt")], c
' || fail "status --json config_changes"
pass "min_success_fraction and engine.dt changes continue the campaign and are recorded"

# Going back to the original dt is another recorded change, not a refusal.
stuck back.yaml 0.5 0.0001
"$TRAILS" run back.yaml --iterations 6 --resume > /dev/null || fail "resume back to dt 1e-4"
[ "$("$TRAILS" status stuck --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["config_changes"]))')" -eq 3 ] ||
  fail "the change back was not recorded"
pass "a change back is recorded too"

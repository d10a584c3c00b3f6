#!/usr/bin/env bash
# `trails check` refuses what `trails run` would refuse, a run that fails before its first commit
# leaves nothing behind, and the iteration target is always stated (docs/reliability.md, "What
# check verifies before a run"). Config-only cases are in tests/data/bad/cases.tsv.
source "$(dirname "$0")/lib/common.bash"

# A dt that blows up at once: check says so. run fails in iteration 0 and leaves nothing behind
# (nothing was committed), so the fixed config simply runs again, fresh.
write_config blowup.yaml blowup
sed -i 's/dt: 0.0001/dt: 1000000/' blowup.yaml
expect_exit 2 "check with dt 1e6" "the first 100 steps from system.start already fail" \
  "$TRAILS" check blowup.yaml
expect_exit 1 "run with dt 1e6" "iteration 0" "$TRAILS" run blowup.yaml --iterations 2
grep -qF "nothing was kept: the run stopped before its first commit and $WORK/blowup was left as it was before" err.txt ||
  fail "the failure does not say that nothing was kept: $(cat err.txt)"
[ ! -e blowup ] || fail "a run that failed before its first commit left $(find blowup)"
# Into an existing empty directory: emptied again, the directory itself kept.
mkdir blowup
expect_exit 1 "run with dt 1e6 into an empty directory" "nothing was kept" \
  "$TRAILS" run blowup.yaml --iterations 2
[ -d blowup ] && [ -z "$(ls -A blowup)" ] || fail "the empty outdir was not left empty: $(find blowup)"
# Into an outdir that holds a user's prepared/ (which counts as empty): only what the run added
# is removed, and the message says the directory was left as before only because it was.
mkdir -p blowup/prepared/mine && echo keep > blowup/prepared/mine/system.xml
listing() { (cd blowup && find . -mindepth 1 -printf '%P %s\n' | sort && cat prepared/mine/system.xml); }
before=$(listing)
expect_exit 1 "run with dt 1e6 into an outdir with a prepared/" "was left as it was before" \
  "$TRAILS" run blowup.yaml --iterations 2
[ "$(listing)" = "$before" ] || fail "the user's prepared/ was changed: $(find blowup)"
rm -rf blowup/prepared
sed -i 's/dt: 1000000/dt: 0.0001/' blowup.yaml
"$TRAILS" run blowup.yaml --iterations 1 > fixed.out 2>&1 || fail "the fixed run: $(cat fixed.out)"
[ "$(committed blowup)" -eq 1 ] || fail "the fixed run did not commit iteration 0"
pass "a first-step failure: check exit 2; run leaves nothing behind, and the fixed config runs"

# A crash before the first commit (SIGKILL at a named crash point) can still leave a store with no
# committed iteration: a fresh run into it names it as such; --resume accepts any fix, the seed
# too, since nothing depends on the old values.
write_config crashed.yaml crashed
set +e
TRAILS_CRASH_AT=md:0 "$TRAILS" run crashed.yaml --iterations 1 > crashed.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] && [ "$(committed crashed)" -eq 0 ] || fail "crash at md:0: exit $rc: $(cat crashed.out)"
expect_exit 2 "fresh run into the store of a crashed first iteration" \
  "it has no committed iteration (a run that stopped before its first commit)" \
  "$TRAILS" run crashed.yaml --iterations 1
sed -i 's/^random_seed: 7/random_seed: 8/' crashed.yaml
"$TRAILS" run crashed.yaml --iterations 1 --resume > fixed.out 2>&1 || fail "a fixed --resume: $(cat fixed.out)"
grep -q "changed     random_seed 7 → 8 from iteration 0" fixed.out || fail "the seed change is not shown: $(cat fixed.out)"
[ "$(committed crashed)" -eq 1 ] || fail "the fixed resume did not commit iteration 0"
pass "a store left by a crash before its first commit: named as such, and a changed --resume continues it"

# One iteration's frames against the available memory (needs the engine, so not in the config
# corpus): check and run exit 2 and write nothing.
WALKERS=100000 write_config memory.yaml memory
sed -i 's/step: 200$/step: 2000000000/' memory.yaml
for cmd in check run; do
  expect_exit 2 "$cmd with 3.2 PB of frames" \
    "spawning.walker × spawning.step / spawning.stride = 100000 × 200000000 frames" \
    "$TRAILS" $cmd memory.yaml
done
[ ! -e memory ] || fail "the memory estimate left a directory"
pass "the memory estimate refuses an iteration larger than the available memory"

# More workers than walkers: capped, check passes and the run starts one worker per walker.
MAX_WORKERS=1000000 WALKERS=3 write_config workers.yaml workers
"$TRAILS" check workers.yaml > /dev/null || fail "check refused max_workers above walker"
expect_exit 0 "run with max_workers 1000000" "3 worker(s)" "$TRAILS" run workers.yaml --iterations 1
pass "max_workers above spawning.walker is capped at it"

# check --resume compares the config with the stored one, as run --resume does.
write_config base.yaml base
"$TRAILS" run base.yaml --iterations 3 > /dev/null
sed 's/kT: 15.0/kT: 5.0/' base.yaml > changed.yaml
snap=$(snapshot base)
expect_exit 2 "check --resume with a changed kT" "engine.kT: 15.0 -> 5.0" \
  "$TRAILS" check changed.yaml --resume
expect_exit 2 "run --resume with a changed kT" "engine.kT: 15.0 -> 5.0" \
  "$TRAILS" run changed.yaml --resume
[ "$(snapshot base)" = "$snap" ] || fail "a refused --resume changed the run directory"
pass "check --resume refuses a changed configuration"

# A resume target at or below the committed iterations runs nothing, says so, exits 0.
expect_exit 0 "--resume --iterations 2 after 3" "Completed 0 iteration(s) (3 committed in total)" \
  "$TRAILS" run base.yaml --iterations 2 --resume
grep -qF "nothing was run or changed" out.txt || fail "no-op resume does not say nothing was changed"
[ "$(snapshot base)" = "$snap" ] || fail "a no-op resume changed the run directory"
[ "$(committed base)" = 3 ] || fail "a no-op resume changed the committed count"
pass "a resume target already reached: exit 0, said, nothing written"

# No iterations anywhere: the banner says the default of 1 applies.
write_config noiter.yaml noiter
sed -i '/^iterations:/d' noiter.yaml
expect_exit 0 "run without iterations" "neither --iterations nor \`iterations\` is set: 1 iteration" \
  "$TRAILS" run noiter.yaml
[ "$(committed noiter)" = 1 ] || fail "the default target is not 1 iteration"
pass "the banner states the default iteration target"

# --iterations must be a whole number in int64 range; the message is short.
for bad in -1 99999999999999999999 1.5; do
  expect_exit 2 "--iterations $bad" "--iterations: must be a whole number of iterations >= 0" \
    "$TRAILS" run noiter.yaml --iterations "$bad" --resume
  [ "$(wc -c < err.txt)" -lt 300 ] || fail "--iterations $bad: message too long: $(cat err.txt)"
done
pass "bad --iterations values: exit 2 with a short message"

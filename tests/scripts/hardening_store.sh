#!/usr/bin/env bash
# What is verified on read (docs/reliability.md): a flipped CV bit in ledger.sqlite, a deleted
# middle shard, a lost ledger.sqlite-wal.
source "$(dirname "$0")/lib/common.bash"
EXPECT_STREAMS=err.txt
write_config base.yaml run
"$TRAILS" run base.yaml --iterations 4 > /dev/null
cp -r run flip
/usr/bin/python3 - <<'PY'
import sqlite3
c = sqlite3.connect('flip/ledger.sqlite')
b = bytearray(c.execute("SELECT cvs FROM walkers WHERE iteration=2 AND walker=3").fetchone()[0])
b[0] ^= 1
c.execute("UPDATE walkers SET cvs=? WHERE iteration=2 AND walker=3", (bytes(b),))
c.commit()
PY
expect_exit 1 "export of a flipped CV" "rows of iteration 2" "$TRAILS" export flip --cvs x.csv
sed -i 's|^outdir: run|outdir: flip|' base.yaml
expect_exit 1 "resume of a flipped CV" "rows of iteration 2" "$TRAILS" run base.yaml --iterations 6 --resume
pass "a flipped CV bit fails export and resume"
cp -r run hole && rm hole/shards/iter_000001.h5
for cmd in "status hole" "export hole --cvs y.csv" "plot hole -o plots" "msm --run hole --lag 1"; do
  # shellcheck disable=SC2086
  expect_exit 1 "$cmd with a deleted shard" "iter_000001.h5" "$TRAILS" $cmd
done
pass "a deleted middle shard fails status, export, plot and msm --run"
write_config crash.yaml crash
set +e
TRAILS_CRASH_AT=md:3 "$TRAILS" run crash.yaml --iterations 6 > /dev/null 2>&1
set -e
rm crash/ledger.sqlite-wal
"$TRAILS" status crash > err.txt 2>&1
grep -q "ledger.sqlite-wal is missing" err.txt || fail "no warning for a lost WAL: $(cat err.txt)"
"$TRAILS" status crash > err.txt 2>&1
grep -q "lost commits" err.txt || fail "no lasting warning for a lost WAL: $(cat err.txt)"
pass "a lost WAL after a crash is warned about"

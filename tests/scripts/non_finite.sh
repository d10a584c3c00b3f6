#!/usr/bin/env bash
# One rule for non-finite values (docs/reliability.md, "Non-finite values"): a walker whose
# program exits 0 but wrote a NaN frame, an infinite coordinate or a non-finite final state
# fails alone, named with its reason; the failure policy (min_success_fraction) decides; nothing
# non-finite is committed, so the spawner never restarts from it and --resume keeps working.
# The command engine runs the built-in engine (`trails integrate`) and then spoils one walker's
# output, so the good walkers are the built-in engine's own.
source "$(dirname "$0")/lib/common.bash"
export TRAILS_EXECUTABLE=$TRAILS
WALKERS=4 write_config builtin.yaml builtin
sed -i 's/^iterations: 12$/iterations: 3\nmin_success_fraction: 0.5/' builtin.yaml
export TRAILS_BUILTIN_CONFIG=$WORK/builtin.yaml

# spoil.sh WHAT: walker 1 of every iteration writes WHAT (nan frame, -inf frame, nan final).
cat > spoil.sh <<'SH'
#!/bin/sh
"$TRAILS_EXECUTABLE" integrate "$TRAILS_BUILTIN_CONFIG" "$TRAILS_TASK_FILE" || exit 1
[ "$TRAILS_WALKER" = 1 ] || exit 0
exec /usr/bin/python3 - "$SPOIL" <<'PY'
import os, sys
import numpy as np
what = sys.argv[1]
if what == "final":
    p = os.environ["TRAILS_FINAL_POSITIONS"]
    a = np.load(p); a[0, 0] = np.nan; np.save(p, a)
else:
    p = os.environ["TRAILS_FRAMES_NPY"]
    a = np.load(p); a[3, 0, 1] = {"nan": np.nan, "inf": -np.inf}[what]; np.save(p, a)
PY
SH
chmod +x spoil.sh
config_for() {  # FILE OUTDIR
  sed -e "s|^outdir: .*|outdir: $2|" -e '/potential:/d' -e '/integrator:/d' -e '/kT:/d' \
    -e '/synthetic_cost_ms:/d' \
    -e "s|md_engine: builtin|md_engine: command\n  command: [$WORK/spoil.sh]|" builtin.yaml > "$1"
}
no_non_finite() {  # RUN: the exports hold finite numbers only
  "$TRAILS" export "$1" --cvs "$1.cvs.csv" --lineage "$1.lineage.csv" > /dev/null
  ! grep -qi 'nan\|inf' "$1.cvs.csv" "$1.lineage.csv" || fail "$1: a non-finite value was committed"
}

declare -A reason=([nan]="frame 3 holds a non-finite coordinate (nan at atom 0, y)"
                   [inf]="frame 3 holds a non-finite coordinate (-inf at atom 0, y)"
                   [final]="final state: position of atom 0, x is nan")
for what in nan inf final; do
  config_for "$what.yaml" "$what"
  SPOIL=$what "$TRAILS" run "$what.yaml" > "$what.out" 2>&1 ||
    fail "$what: one bad walker of four stopped the campaign: $(cat "$what.out")"
  grep -qF "walker 1 of iteration 0: ${reason[$what]}" "$what.out" ||
    fail "$what: the walker and its reason are not named: $(cat "$what.out")"
  [ "$(sqlite3 "$what/ledger.sqlite" 'SELECT COUNT(*) FROM iterations')" -eq 3 ] ||
    fail "$what: not 3 iterations committed"
  failed=$(sqlite3 "$what/ledger.sqlite" "SELECT COUNT(*) FROM walkers WHERE ok = 0 AND walker = 1")
  [ "$failed" -eq 3 ] || fail "$what: walker 1 is not recorded as failed in each iteration ($failed)"
  no_non_finite "$what"
  # The good walkers are the built-in engine's: their export equals a built-in run's rows.
  SPOIL=$what "$TRAILS" run "$what.yaml" --iterations 4 --resume > "$what.resume.out" 2>&1 ||
    fail "$what: --resume after a non-finite walker: $(cat "$what.resume.out")"
done
pass "NaN frame, -inf coordinate, NaN final state: that walker fails, named; the run goes on and resumes"

# The failure policy decides: with min_success_fraction 1.0 the same walker stops the iteration.
config_for strict.yaml strict
sed -i 's/^min_success_fraction: .*/min_success_fraction: 1.0/' strict.yaml
SPOIL=inf expect_exit 1 "min_success_fraction 1.0" "walker 1 of iteration 0: frame 3 holds a non-finite" \
  "$TRAILS" run strict.yaml
grep -qF "only 3 of 4 walkers succeeded" err.txt || fail "the policy is not stated: $(cat err.txt)"
[ ! -e strict ] || fail "a run that failed before its first commit left strict/"
pass "min_success_fraction 1.0: the non-finite walker stops the iteration, nothing committed"

# A run that an older version committed with a non-finite CV (made here by writing NaN into one
# walker's CVs of a ledger without rows_checksum, the shape of ledgers older than that column):
# --resume stops with the iteration, walker and frame and what to do; nothing is changed.
WALKERS=4 write_config old.yaml old
"$TRAILS" run old.yaml --iterations 2 > /dev/null
/usr/bin/python3 - old/ledger.sqlite <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
db.execute("ALTER TABLE iterations DROP COLUMN rows_checksum")
blob = bytearray(db.execute("SELECT cvs FROM walkers WHERE iteration = 1 AND walker = 2").fetchone()[0])
blob[16:24] = struct.pack("<d", float("nan"))  # frame 1, CV 0
db.execute("UPDATE walkers SET cvs = ? WHERE iteration = 1 AND walker = 2", (bytes(blob),))
db.commit()
PY
snap=$(snapshot old)
expect_exit 2 "--resume of a run holding a non-finite CV" \
  "iteration 1 holds a non-finite CV (nan in frame 1 of walker 2)" "$TRAILS" run old.yaml --iterations 3 --resume
grep -qF "start a new run directory" err.txt || fail "no way forward: $(cat err.txt)"
[ "$(snapshot old)" = "$snap" ] || fail "a refused --resume changed the run directory"
pass "a committed non-finite CV from an older version: --resume names it and the way forward"

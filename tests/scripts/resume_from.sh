#!/usr/bin/env bash
# `trails run --resume N` (Trails-MD's --resume N; docs/reliability.md, "Resuming from an earlier
# iteration"): a 5-iteration campaign continued from committed iteration 2 recomputes iterations
# 3 and 4 exactly (the export and output.log rows are byte-identical: the run is deterministic);
# the iterations after 2 are not deleted but kept in RUN.superseded-after-2, a whole readable
# copy of the run as it was (trails status, export), named in the message; --resume latest is
# the plain --resume; an iteration beyond the last commit is refused with nothing changed.
source "$(dirname "$0")/lib/common.bash"
write_config cfg.yaml run
"$TRAILS" run cfg.yaml --iterations 5 > first.out || fail "run: $(cat first.out)"
export_run run a
cp run/output.log a.log

"$TRAILS" run cfg.yaml --resume 2 --iterations 5 > again.out 2>&1 || fail "--resume 2: $(cat again.out)"
grep -q "iterations 3..4 moved aside to .*run.superseded-after-2" again.out || fail "message: $(cat again.out)"
export_run run b
cmp a.cvs.csv b.cvs.csv || fail "the recomputed iterations differ (CVs)"
cmp a.lineage.csv b.lineage.csv || fail "the recomputed iterations differ (lineage)"
diff <(cut -f1,5- a.log | grep -v '^#') <(cut -f1,5- run/output.log | grep -v '^#') > /dev/null ||
  fail "output.log rows differ: $(diff a.log run/output.log)"
"$TRAILS" status run.superseded-after-2 > aside.txt || fail "status of the copy"
export_run run.superseded-after-2 c
cmp a.cvs.csv c.cvs.csv || fail "the copy is not the run as it was"
pass "--resume 2 recomputes iterations 3-4 identically; the old ones are kept readable beside it"

"$TRAILS" run cfg.yaml --resume latest --iterations 6 > latest.out 2>&1 || fail "--resume latest: $(cat latest.out)"
[ "$(committed run)" = 6 ] || fail "--resume latest did not continue to 6"
before=$(find run -type f | sort | xargs md5sum | md5sum)
expect_exit 2 "beyond the last commit" "committed iterations 0..5" "$TRAILS" run cfg.yaml --resume 9 --iterations 10
[ "$before" = "$(find run -type f | sort | xargs md5sum | md5sum)" ] || fail "a refused --resume 9 changed the run"
pass "--resume latest continues; --resume beyond the last commit exits 2 and changes nothing"

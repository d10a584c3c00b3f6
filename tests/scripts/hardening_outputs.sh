#!/usr/bin/env bash
# Inputs and outputs under a hostile user (docs/reliability.md#inputs-and-outputs):
# (YAML alias bombs: tests/scripts/hardening_yaml.sh)
# 1. an output target never destroys anything: run-store files, non-regular files and two outputs
#    naming one file are refused (exit 2, nothing written); a symlink is written through;
# 2. a full disk (the LD_PRELOAD shim tests/support/enospc_shim.c, path in $TRAILS_ENOSPC_SHIM)
#    fails the command (exit 1, path and reason), leaves no temporary and the old target intact.
source "$(dirname "$0")/lib/common.bash"

# Refusals are errors: their message must be on stderr.
EXPECT_STREAMS=err.txt

# --- 1. output targets ---
write_config base.yaml run
"$TRAILS" run base.yaml --iterations 2 > /dev/null
export_run run good
mkdir plotted && "$TRAILS" plot run -o plotted > /dev/null
snap=$(snapshot run)
n=0
for f in $(cd run && find . -type f -o -type d -path './shards*' | sed 's|^\./||'); do
  [ "$f" = . ] && continue
  expect_exit 2 "export --cvs run/$f" "run store owns" "$TRAILS" export run --cvs "run/$f"
  n=$((n + 1))
done
[ $n -ge 4 ] || fail "the run directory has only $n files"
for spelling in run/./ledger.sqlite "$WORK/run/ledger.sqlite" plotted/../run/ledger.sqlite \
                run/ledger.sqlite-wal run/ledger.sqlite-shm run/shards/new.csv; do
  expect_exit 2 "export --lineage $spelling" "run store owns" "$TRAILS" export run --lineage "$spelling"
done
ln -s run/ledger.sqlite to_ledger.csv
expect_exit 2 "export through a link to the ledger" "run store owns" "$TRAILS" export run --cvs to_ledger.csv
expect_exit 2 "export --trajectory into the store" "run store owns" "$TRAILS" export run --trajectory run/shards/t.xtc
expect_exit 2 "msm --json into the store" "run store owns" "$TRAILS" msm --run run --lag 1 --json run/ledger.sqlite
expect_exit 2 "analyze --json into the store" "run store owns" "$TRAILS" analyze run --json run/output.log
expect_exit 2 "analyze --outfile into the store" "run store owns" "$TRAILS" analyze run --outfile run/shards/x.png
expect_exit 2 "plot into the store" "run store owns" "$TRAILS" plot run -o run/shards
expect_exit 2 "init over the ledger" "run store owns" "$TRAILS" init -o run/ledger.sqlite --force
# pca checks its outputs before it reads the structure, so any existing file stands in for one.
expect_exit 2 "pca -o over the ledger" "run store owns" "$TRAILS" pca base.yaml -o run/ledger.sqlite
expect_exit 2 "pca --poses over a shard" "run store owns" \
  "$TRAILS" pca base.yaml -o m.json --poses run/shards/iter_000000.h5
[ ! -e m.json ] || fail "a refused pca wrote its model"
[ "$(snapshot run)" = "$snap" ] || fail "a refused output changed the run directory"
pass "$n run-store files and 14 other spellings refused; the run is intact"

mkfifo fifo && mkdir adir
for target in fifo /dev/full /dev/null adir; do
  expect_exit 2 "export --cvs $target" "not a regular file" "$TRAILS" export run --cvs $target
  expect_exit 2 "msm --json $target" "not a regular file" "$TRAILS" msm --run run --lag 1 --json $target
  expect_exit 2 "init -o $target" "not a regular file" "$TRAILS" init -o $target --force
done
expect_exit 2 "plot -o a FIFO" "not a directory" "$TRAILS" plot run -o fifo
mkdir linkplots && ln -s /dev/full linkplots/coverage.png
expect_exit 2 "plot over a link to a device" "character device" "$TRAILS" plot run -o linkplots
[ -p fifo ] && [ -c /dev/full ] && [ -d adir ] && [ -L linkplots/coverage.png ] ||
  fail "a non-regular target was replaced"
[ -z "$(ls adir)" ] || fail "something was written into adir"
pass "FIFO, devices and a directory refused as targets, left as they were"

expect_exit 2 "--cvs and --lineage one file" "same file" "$TRAILS" export run --cvs x.csv --lineage ./x.csv
expect_exit 2 "same file via a path" "same file" "$TRAILS" export run --cvs x.csv --lineage adir/../x.csv
ln -s x.csv y.csv
expect_exit 2 "same file via a link" "same file" "$TRAILS" export run --cvs y.csv --lineage x.csv
expect_exit 2 "analyze --outfile and --json one file" "same file" "$TRAILS" analyze run --outfile r.png --json ./r.png
[ ! -e x.csv ] && [ ! -e r.png ] || fail "a refused pair wrote a file"
pass "two outputs naming one file refused, nothing written"

ln -s real.csv link.csv
"$TRAILS" export run --cvs link.csv > /dev/null
[ -L link.csv ] && [ "$(readlink link.csv)" = real.csv ] || fail "the link was replaced"
cmp -s real.csv good.cvs.csv || fail "export did not write through the link"
pass "a symlink target is written through, the link kept"

# --- 2. a full disk ---
SHIM=${TRAILS_ENOSPC_SHIM:?the ctest registration sets TRAILS_ENOSPC_SHIM}
[ -f "$SHIM" ] || fail "no shim at $SHIM"
full() {  # MATCH AFTER command...: the command with writes to paths containing MATCH failing
  local match=$1 after=$2
  shift 2
  LD_PRELOAD=$SHIM TRAILS_ENOSPC_MATCH=$match TRAILS_ENOSPC_AFTER=$after "$@"
}
no_temporaries() { [ -z "$(find "$@" -name '*.tmp*' 2>/dev/null)" ] || fail "temporaries left: $(find "$@" -name '*.tmp*')"; }

cp good.cvs.csv before.csv
expect_exit 1 "export --cvs on a full disk" "No space left on device" full cvs.csv 100 "$TRAILS" export run --cvs good.cvs.csv
grep -qF "good.cvs.csv" err.txt || fail "the export error does not name the file"
cmp -s before.csv good.cvs.csv || fail "a failed export changed the earlier file"
expect_exit 1 "export --cvs, disk full from the start" "No space left on device" full new.csv 0 "$TRAILS" export run --cvs new.csv
[ ! -e new.csv ] || fail "a failed export left new.csv"
no_temporaries .

expect_exit 1 "msm --json on a full disk" "No space left on device" full m.json 10 "$TRAILS" msm --run run --lag 1 --json m.json
[ ! -e m.json ] || fail "a failed msm --json left m.json"
expect_exit 1 "init on a full disk" "No space left on device" full init.yaml 10 "$TRAILS" init -o init.yaml
[ ! -e init.yaml ] || fail "a failed init left init.yaml"
no_temporaries .

snap=$(snapshot plotted | grep png)
expect_exit 1 "plot, gnuplot writes nothing" "no picture" full /occupancy.png 0 "$TRAILS" plot run -o plotted
expect_exit 1 "plot, gnuplot's picture cut short" "incomplete picture" full /coverage.png 4096 "$TRAILS" plot run -o plotted
expect_exit 1 "plot, installing the picture" "No space left on device" full .occupancy.png 100 "$TRAILS" plot run -o plotted
[ "$(snapshot plotted | grep png)" = "$snap" ] || fail "a failed plot changed the earlier pictures"
no_temporaries plotted
expect_exit 1 "plot into a new directory on a full disk" "no picture" full /coverage.png 0 "$TRAILS" plot run -o fresh
[ ! -e fresh/coverage.png ] && [ ! -e fresh/occupancy.png ] || fail "a failed plot left pictures"
pass "full disk: export, msm --json, init and plot fail with the path and the reason; nothing lost"

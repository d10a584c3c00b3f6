#!/usr/bin/env bash
# Bad input gets a clear error (exit 2, a message naming the file/line/key) and nothing is
# created or changed. Part 1: the configuration corpus tests/data/bad/cases.tsv through
# `trails check` and `trails run`. Part 2: bad run directories and command lines.
source "$(dirname "$0")/lib/common.bash"
BAD="$ROOT/tests/data/bad"

expect_exit2() {  # $1 description, $2 substring, rest: command
  local what=$1 needle=$2
  shift 2
  set +e
  "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2 ($(cat err.txt))"
  grep -qF -- "$needle" err.txt || fail "$what: message lacks '$needle': $(cat err.txt)"
}

# Part 1: each corpus case, copied into a scratch dir so relative outdirs land there.
before=$(snapshot "$BAD")
n=0
while IFS=$'\t' read -r file needle; do
  [ -z "$file" ] && continue
  case "$file" in \#*) continue ;; esac
  rm -rf scratch && mkdir -p scratch/bad && cp -r "$BAD"/. scratch/bad/
  snap=$(snapshot scratch)
  expect_exit2 "check $file" "$needle" "$TRAILS" check "scratch/bad/$file"
  expect_exit2 "run $file" "$needle" "$TRAILS" run "scratch/bad/$file"
  [ "$(snapshot scratch)" = "$snap" ] || fail "$file: files were created or changed"
  n=$((n + 1))
done < "$BAD/cases.tsv"
[ "$(snapshot "$BAD")" = "$before" ] || fail "the corpus itself was modified"
[ $n -ge 30 ] || fail "corpus has only $n cases"
pass "$n configuration cases: exit 2, message, nothing written"

# Part 2: run directories and command lines.
write_config good.yaml run
"$TRAILS" run good.yaml --iterations 2 > /dev/null

snap=$(snapshot run)
expect_exit2 "existing run dir" "--resume" "$TRAILS" run good.yaml
[ "$(snapshot run)" = "$snap" ] || fail "run without --resume touched the run directory"

mkdir foreign && echo hello > foreign/notes.txt
snap=$(snapshot foreign)
for cmd in status export plot; do
  args=(); [ $cmd = export ] && args=(--cvs x.csv)
  expect_exit2 "$cmd on a foreign dir" "not a Trails run directory" "$TRAILS" $cmd foreign "${args[@]}"
done
write_config foreign.yaml foreign
expect_exit2 "run into a non-empty foreign outdir" "not empty" "$TRAILS" run foreign.yaml
expect_exit2 "resume a foreign outdir" "not a Trails run directory" "$TRAILS" run foreign.yaml --resume
[ "$(snapshot foreign)" = "$snap" ] || fail "foreign directory changed"
[ ! -e x.csv ] || fail "export wrote a file for a foreign directory"

cp -r run truncated && truncate -s 100 truncated/ledger.sqlite
cp -r run garbage && head -c 8192 /dev/urandom > garbage/ledger.sqlite
for d in truncated garbage; do
  snap=$(snapshot $d)
  expect_exit2 "status on $d ledger" "ledger.sqlite" "$TRAILS" status $d
  write_config $d.yaml $d
  expect_exit2 "resume with $d ledger" "ledger.sqlite" "$TRAILS" run $d.yaml --resume
  [ "$(snapshot $d)" = "$snap" ] || fail "$d run directory changed"
done

cp -r run newer
sqlite3 newer/ledger.sqlite "UPDATE meta SET value = '999' WHERE key = 'schema_version'; PRAGMA user_version = 999;"
snap=$(snapshot newer)
expect_exit2 "newer schema" "newer" "$TRAILS" status newer
write_config newer.yaml newer
expect_exit2 "resume newer schema" "newer" "$TRAILS" run newer.yaml --resume
[ "$(snapshot newer)" = "$snap" ] || fail "newer-schema run directory changed"

echo "not a directory" > blocker
write_config unwritable.yaml "$WORK/blocker/run"
expect_exit2 "outdir under a file" "cannot be created" "$TRAILS" run unwritable.yaml
expect_exit2 "check outdir under a file" "cannot be created" "$TRAILS" check unwritable.yaml
[ ! -e blocker/run ] || fail "outdir created under a file"

snap=$(snapshot .)
expect_exit2 "unknown flag" "--frobnicate" "$TRAILS" run good.yaml --frobnicate
expect_exit2 "unknown subcommand" "launch" "$TRAILS" launch good.yaml
expect_exit2 "missing argument" "CONFIG" "$TRAILS" run
expect_exit2 "bad --iterations" "--iterations" "$TRAILS" run good.yaml --iterations -3
expect_exit2 "bad --log-level" "--log-level" "$TRAILS" run good.yaml --log-level loud
expect_exit2 "missing config file" "nowhere.yaml" "$TRAILS" check nowhere.yaml
expect_exit2 "export without outputs" "--cvs" "$TRAILS" export run
[ "$(snapshot . | grep -v -e '^out.txt' -e '^err.txt')" = "$(echo "$snap" | grep -v -e '^out.txt' -e '^err.txt')" ] ||
  fail "a bad command line changed files"
pass "run-directory and command-line cases: exit 2, message, nothing written"

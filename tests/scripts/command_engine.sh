#!/usr/bin/env bash
# The command engine (docs/engines.md, "The command engine") in whole campaigns:
# 1. a program that runs the built-in engine on each task file (`trails integrate`,
#    examples/command-engine/runseg_builtin.sh) gives bitwise the built-in campaign's CVs and
#    lineage on the same seeds;
# 2. walker files stay out of the run directory: after each iteration the run directory holds
#    the same files as the built-in run's (one shard per iteration) and the scratch root is
#    empty; with engine.keep_walker_files they are under RUN_DIR/walker_files, one directory
#    per walker;
# 3. a failing program stops the run with its stderr (its directory kept in scratch); a
#    short output fails the walker; TRAILS_MD_TIMEOUT limits the program, a bad value is exit 2;
# 4. the numpy example (examples/command-engine/runseg.py) runs.
source "$(dirname "$0")/lib/common.bash"
export TRAILS_EXECUTABLE=$TRAILS
WALKERS=4 write_config builtin.yaml builtin
export TRAILS_BUILTIN_CONFIG=$WORK/builtin.yaml
mkdir scratch

# command.yaml: the same campaign with md_engine: command (the built-in-only keys removed).
command_config() {
  sed -e "s|^outdir: .*|outdir: $2|" -e '/potential:/d' -e '/integrator:/d' -e '/kT:/d' \
    -e '/synthetic_cost_ms:/d' \
    -e "s|md_engine: builtin|md_engine: command\n  command: [$3]|" builtin.yaml > "$1"
  with_execution "$1" "scratch: $WORK/scratch"
}
command_config command.yaml command "$ROOT/examples/command-engine/runseg_builtin.sh"

# Both runs one iteration at a time: after each, the same files (no walker files) in both.
listing() { find "$1" -type f -printf '%P\n' | grep -v -e '\.lock$' | sort; }
for it in 1 2 3; do
  resume=$([ $it -gt 1 ] && echo --resume || true)
  "$TRAILS" run builtin.yaml --iterations $it $resume > /dev/null
  "$TRAILS" run command.yaml --iterations $it $resume > /dev/null
  diff <(listing builtin) <(listing command) ||
    fail "iteration $it: the command run's directory holds other files than the built-in run's"
  [ "$(ls command/shards | wc -l)" -eq $it ] || fail "iteration $it: shards $(ls command/shards)"
  [ -z "$(ls scratch)" ] || fail "iteration $it: walker directories left in scratch: $(ls scratch)"
  echo "iteration $it: $(listing command | wc -l) files in the run directory, as the built-in run"
done
export_run builtin b
export_run command c
cmp b.cvs.csv c.cvs.csv || fail "command-engine CVs differ from the built-in engine's"
cmp b.lineage.csv c.lineage.csv || fail "command-engine lineage differs from the built-in's"
pass "command engine running trails integrate is bitwise the built-in engine ($(wc -l < c.cvs.csv) rows)"

command_config keep.yaml keep "$ROOT/examples/command-engine/runseg_builtin.sh"
sed -i 's|^  md_engine: command|  md_engine: command\n  keep_walker_files: true|' keep.yaml
"$TRAILS" run keep.yaml --iterations 2 > /dev/null
[ "$(find keep/walker_files -mindepth 2 -maxdepth 2 -type d | wc -l)" -eq 8 ] ||
  fail "expected 2 iterations x 4 walkers kept: $(find keep/walker_files)"
[ -s keep/walker_files/iteration_000001/walker_000003/task.json ] || fail "no task.json kept"
[ -z "$(ls scratch)" ] || fail "kept walker directories also left in scratch"
pass "engine.keep_walker_files keeps one directory per walker under walker_files/"

cat > fail.sh <<'SH'
#!/bin/sh
echo "runseg: cannot open restart file (bad input)" >&2
exit 3
SH
chmod +x fail.sh
command_config fail.yaml failrun "$WORK/fail.sh"
expect_exit 1 "a failing program" "cannot open restart file (bad input)" \
  "$TRAILS" run fail.yaml --iterations 1
grep -qF "exited with status 3" err.txt || fail "the exit status is not reported: $(cat err.txt)"
kept=$(sed -n "s/.*(the walker's files are kept in \(.*\))\$/\1/p" err.txt | head -1)
[ -n "$kept" ] && [ -s "$kept/walker.log" ] || fail "a failed walker's directory is not kept: $(cat err.txt)"
rm -rf scratch/*

cat > short.sh <<'SH'
#!/bin/sh
"$TRAILS_EXECUTABLE" integrate "$TRAILS_BUILTIN_CONFIG" "$TRAILS_TASK_FILE" || exit 1
/usr/bin/python3 -c "import numpy as np; f = np.load('$TRAILS_FRAMES_NPY'); np.save('$TRAILS_FRAMES_NPY', f[:-3])"
SH
chmod +x short.sh
command_config short.yaml shortrun "$WORK/short.sh"
expect_exit 1 "a short output" "17 frames, expected 20" "$TRAILS" run short.yaml --iterations 1
pass "a failing program and a short output are failed walkers with the reason; its files are kept"

# TRAILS_MD_TIMEOUT (docs/engines.md, "Subprocess time limit"): the program's limit when engine.command_timeout is unset.
cat > slow.sh <<'SH'
#!/bin/sh
exec sleep 30
SH
chmod +x slow.sh
command_config slow.yaml slowrun "$WORK/slow.sh"
TRAILS_MD_TIMEOUT=0.5 expect_exit 1 "a program past TRAILS_MD_TIMEOUT" "timed out after" \
  "$TRAILS" run slow.yaml --iterations 1
for bad in ten -1; do
  TRAILS_MD_TIMEOUT=$bad expect_exit 2 "TRAILS_MD_TIMEOUT=$bad" "TRAILS_MD_TIMEOUT=$bad: expected a number" \
    "$TRAILS" run command.yaml --iterations 4 --resume
done
TRAILS_MD_TIMEOUT=ten expect_exit 2 "check with TRAILS_MD_TIMEOUT=ten" "TRAILS_MD_TIMEOUT=ten" \
  "$TRAILS" check slow.yaml
[ "$(ls command/shards | wc -l)" -eq 3 ] || fail "a refused TRAILS_MD_TIMEOUT wrote an iteration"
pass "TRAILS_MD_TIMEOUT limits the program; a bad value is exit 2 naming it, nothing written"

mkdir example-src
cp "$ROOT/examples/command-engine/runseg.py" example-src/
sed -e "s|^outdir: .*|outdir: $WORK/example|" "$ROOT/examples/command-engine/config.yaml" \
  > example-src/config.yaml
"$TRAILS" run example-src/config.yaml --iterations 2 > /dev/null
[ "$(ls example/shards | wc -l)" -eq 2 ] || fail "the numpy example did not run 2 iterations"
pass "the numpy example runs"

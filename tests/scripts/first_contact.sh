#!/usr/bin/env bash
# What a new user meets first (README.md, docs/quickstart.md) stays true: the README's command
# blocks (a campaign in three commands, a reactive path in two) and the quickstart's first
# campaign run as written; the run directory holds exactly what the quickstart's table lists;
# `trails init --list` names every template and each one written by `trails init --template`
# passes `trails check` with the inputs it says it expects (the swarm one runs with trails
# swarm); `make demo` builds only the trails command, `make test` everything.
source "$(dirname "$0")/lib/common.bash"

# The ```bash blocks of a Markdown section (between its heading and the next), `build/trails`
# replaced by the binary under test.
section_commands() {  # FILE HEADING
  /usr/bin/python3 - "$1" "$2" "$TRAILS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
start = text.index(sys.argv[2])
end = text.find("\n## ", start + len(sys.argv[2]))
body = text[start:end if end > 0 else len(text)]
for block in re.findall(r"```bash\n(.*?)```", body, re.S):
    for line in block.splitlines():
        line = line.split("  #")[0].strip()
        if line.startswith("build/trails"):
            print(sys.argv[3] + line[len("build/trails"):])
PY
}

# README: a campaign in three commands, then a reactive path in two (from a copy of the example).
mkdir -p readme/examples && cp -r "$ROOT/examples/swarm-muller-brown" readme/examples/
rm -rf readme/examples/swarm-muller-brown/runs
section_commands "$ROOT/README.md" "## A campaign in three commands" > campaign.cmds
section_commands "$ROOT/README.md" "## A reactive path in two commands" > swarm.cmds
[ "$(wc -l < campaign.cmds)" -eq 3 ] && [ "$(wc -l < swarm.cmds)" -eq 2 ] ||
  fail "README command blocks: $(cat campaign.cmds swarm.cmds)"
(cd readme && bash -e ../campaign.cmds > ../campaign.out 2>&1) || fail "README campaign: $(cat campaign.out)"
[ -s readme/runs/muller-brown/plots/coverage.png ] || fail "README: no coverage.png"
(cd readme && bash -e ../swarm.cmds > ../swarm.out 2>&1) || fail "README swarm: $(cat swarm.out)"
ls readme/examples/swarm-muller-brown/runs/swarm-muller-brown/plots/progress.png > /dev/null ||
  fail "README swarm: no progress.png"
pass "README's command blocks run as written"

# Quickstart: the first campaign's commands, and the run directory its table describes.
section_commands "$ROOT/docs/quickstart.md" "## A first campaign" > first.cmds
mkdir quick && (cd quick && bash -e ../first.cmds > ../first.out 2>&1) || fail "quickstart: $(cat first.out)"
/usr/bin/python3 - "$ROOT/docs/quickstart.md" quick/runs/muller-brown <<'PY' || fail "the quickstart's run-directory table is out of date"
import glob, os, re, sys
text = open(sys.argv[1]).read()
table = text[text.index("The run directory (`outdir`"):]
table = table[:table.index("\n\n", table.index("| file |"))]
listed = re.findall(r"^\| `([^`]+)` \|", table, re.M)
run = sys.argv[2]
for name in listed:
    pattern = os.path.join(run, re.sub(r"N+", "*", name))
    assert glob.glob(pattern), f"listed but absent: {name}"
present = sorted(os.listdir(run))
top = {n.split("/")[0] for n in listed}
assert set(present) <= top, f"present but not listed: {sorted(set(present) - top)}"
print("table matches", present)
PY
pass "the quickstart's first campaign runs and its run-directory table lists exactly what is there"

# trails init: the templates, each passing trails check with the inputs it expects.
"$TRAILS" init --list > list.out || fail "init --list"
for t in muller-brown openmm gromacs we-kinetics swarm; do
  grep -q "^$t " list.out || fail "init --list lacks $t: $(cat list.out)"
done
[ "$(wc -l < list.out)" -eq 6 ] || fail "init --list: $(cat list.out)"
cp "$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb" structure.pdb
cp "$ROOT/tests/data/trails-md-examples/AlaD/"{start.gro,topol.top} .
for t in muller-brown openmm gromacs we-kinetics swarm; do
  "$TRAILS" init --template "$t" -o "$t.yaml" > init.out || fail "init --template $t: $(cat init.out)"
  "$TRAILS" check "$t.yaml" > check.out 2>&1 || fail "check of the $t template: $(cat check.out)"
  grep -q "Preflight checks passed" check.out || fail "$t: $(cat check.out)"
done
grep -q "&& trails swarm s2.yaml" <("$TRAILS" init --template swarm -o s2.yaml) || fail "swarm template's next step"
expect_exit 2 "unknown template" "the templates are muller-brown, openmm" "$TRAILS" init --template amber -o x.yaml
[ ! -e x.yaml ] || fail "an unknown template wrote a file"
pass "trails init --list: 5 templates, each passes trails check"

# make demo builds the trails command only; make test builds everything.
make -n -C "$ROOT" BUILD=/nonexistent demo > make-demo.txt 2>/dev/null || fail "make -n demo"
grep -q -- "--target trails" make-demo.txt || fail "make demo does not build only the trails target"
grep -q -- "install-deps --demo" make-demo.txt || fail "make demo does not install only the demo's packages"
grep -q -- "-DCMAKE_BUILD_TYPE=Release" make-demo.txt || fail "make demo does not configure a Release build"
make -n -C "$ROOT" BUILD=/nonexistent test > make-test.txt 2>/dev/null || fail "make -n test"
grep -qE "cmake --build /nonexistent -j [0-9]+$" make-test.txt || fail "make test does not build every target"
pass "make demo builds the trails target only, make test everything"

#!/usr/bin/env bash
# The kinetics and convergence pictures of docs/report.md on a built-in Müller–Brown campaign
# with Bayesian MSM builds and PCCA+ (msm.estimator: bayesian, msm.n_metastable: 2):
# `trails plot` writes convergence.png, its.png, timescales.png, fes_msm.png and
# network.png as complete PNGs of their sizes, and network.json / network.txt whose coarse
# transition matrix, populations and MFPTs equal an independent numpy computation from the
# ledger's latest build; the same run relabelled as molecular (dt in ps) gives the MFPTs in
# physical time; `trails msm --run --plot` draws its ITS (frames here, ps for the relabelled
# run); `trails analyze` still draws its report.
source "$(dirname "$0")/lib/common.bash"

write_config mb.yaml mb
cat >> mb.yaml <<'YAML'
msm:
  enabled: true
  min_frames: 300
  n_microstates: 20
  lagtime: 2
  lagtimes: [1, 2, 5, 10]
  estimator: bayesian
  n_bayesian_samples: 20
  n_metastable: 2
  convergence_patience: 0
YAML
"$TRAILS" run mb.yaml --iterations 10 > run.out 2>&1 || fail "MSM campaign failed: $(cat run.out)"
"$TRAILS" plot mb -o pics > plot.out 2>&1 || fail "plot failed: $(cat plot.out)"

png_size() {  # FILE -> "W H" of a complete PNG, else fails
  /usr/bin/python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", sys.argv[1]
assert b[-8:-4] == b"IEND", sys.argv[1] + ": no IEND chunk"
w, h = struct.unpack(">II", b[16:24])
assert len(b) > 8000, (sys.argv[1], len(b))  # something drawn, not a blank page
print(w, h)
PY
}
expect_png() {  # FILE "W H"
  local got
  got=$(png_size "$1") || fail "$1 is not a complete PNG"
  [ "$got" = "$2" ] || fail "$1 is $got, expected $2"
}
expect_png pics/its.png "1000 560"
expect_png pics/timescales.png "1000 560"
expect_png pics/fes_msm.png "900 680"
expect_png pics/network.png "900 480"  # two sets side by side
expect_png pics/convergence.png "1000 860"  # three panels: explored, occupied, slowest timescale
expect_png pics/coverage.png "900 760"
for f in convergence its timescales fes_msm network; do
  grep -q "^wrote pics/$f.png$" plot.out || fail "no 'wrote pics/$f.png': $(cat plot.out)"
done
grep -q "^wrote pics/network.json$" plot.out && grep -q "^wrote pics/network.txt$" plot.out ||
  fail "network tables not reported: $(cat plot.out)"
pass "trails plot: convergence, its, timescales, fes_msm, network PNGs (complete, sized)"

# --- the network's numbers against numpy, from the ledger's latest build ---
cat > network_check.py <<'PY'
import json, sqlite3, sys
import numpy as np
run, net_file, frame_ps = sys.argv[1], sys.argv[2], float(sys.argv[3])
db = sqlite3.connect(run + "/ledger.sqlite")
builds = [(it, json.loads(m)) for it, m in db.execute("SELECT iteration, model FROM msm_builds ORDER BY iteration")]
it, m = [(i, b) for i, b in builds if b["note"] == "" and b["n_active"] >= 2][-1]
assert m["estimator"] == "bayesian" and m["metastable_memberships"] is not None
n = json.load(open(net_file))
T = np.array(m["transition_matrix"]); pi = np.array(m["stationary_distribution"])
chi = np.array(m["metastable_memberships"]); k = chi.shape[1]
D = np.diag(pi)
Tc = np.linalg.solve(chi.T @ D @ chi, chi.T @ D @ T @ chi)
assert n["iteration"] == it and n["lag_frames"] == m["lagtime"], (n["iteration"], it)
assert np.max(np.abs(np.array(n["coarse_transition_matrix"]) - Tc)) < 1e-10, (n["coarse_transition_matrix"], Tc)
sets = [np.flatnonzero(np.array(m["metastable_assignments"]) == a) for a in range(k)]
pops = [pi[s].sum() for s in sets]
assert np.allclose([s["population"] for s in n["sets"]], pops, rtol=0, atol=1e-12)
assert [s["microstates"] for s in n["sets"]] == [len(s) for s in sets]
# MFPT A -> B: (I - T_{B'B'}) t = 1 on the complement of B, pi-weighted mean over A, x lag
for a in range(k):
    for b in range(k):
        got = n["mfpt_frames"][a][b]
        if a == b:
            assert got == 0.0
            continue
        rest = np.setdiff1d(np.arange(len(pi)), sets[b])
        t = np.zeros(len(pi))
        t[rest] = np.linalg.solve(np.eye(len(rest)) - T[np.ix_(rest, rest)], np.ones(len(rest)))
        want = (pi[sets[a]] * t[sets[a]]).sum() / pi[sets[a]].sum() * m["lagtime"]
        assert abs(got - want) < 1e-8 * want, (a, b, got, want)
        scale = {"frames": 1.0, "fs": frame_ps * 1e3, "ps": frame_ps, "ns": frame_ps * 1e-3}[n["mfpt_unit"]]
        assert abs(n["mfpt"][a][b] - want * scale) < 1e-8 * want * scale, (n["mfpt"][a][b], want * scale)
print(n["mfpt_unit"], n["mfpt"])
PY
/usr/bin/python3 network_check.py mb pics/network.json 1 > net.out || fail "network.json differs from numpy"
/usr/bin/python3 -c '
import json, sys
n = json.load(open("pics/network.json"))
assert n["mfpt_unit"] == "frames" and n["frame_ps"] is None, n  # built-in engine: reduced time
' || fail "built-in run: MFPTs not in frames"
grep -q "^PCCA+ network of the MSM built at iteration" pics/network.txt &&
  grep -q "^coarse transition matrix (probability per lag" pics/network.txt &&
  grep -q "^mean first passage time (frames; row: from, column: to)" pics/network.txt ||
  fail "network.txt: $(cat pics/network.txt)"
pass "network.json: coarse transition matrix, populations, MFPTs equal numpy (frames)"

# --- a molecular engine's frames have a physical length: MFPTs and ITS in physical time ---
cp -r mb om
rm -rf om/plots
/usr/bin/python3 - om <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
c = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
c["engine"]["dt"] = 0.002
db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(c),))
s = json.loads(db.execute("SELECT value FROM meta WHERE key = 'engine_system'").fetchone()[0])
s.update({"dt": 0.002, "time_unit": "ps"})  # still not molecular: the CVs stay x and y
db.execute("UPDATE meta SET value = ? WHERE key = 'engine_system'", (json.dumps(s),))
db.commit()
PY
"$TRAILS" plot om -o ompics > omplot.out 2>&1 || fail "plot of the relabelled run: $(cat omplot.out)"
# frame = stride x dt = 10 x 0.002 ps
/usr/bin/python3 network_check.py om ompics/network.json 0.02 > omnet.out || fail "physical MFPTs"
/usr/bin/python3 -c '
import json
n = json.load(open("ompics/network.json"))
assert n["frame_ps"] == 0.02 and n["mfpt_unit"] in ("fs", "ps", "ns"), n
' || fail "relabelled run: no physical MFPT unit"
expect_png ompics/its.png "1000 560"
pass "frame = stride x dt: MFPTs in $(cut -d' ' -f1 omnet.out), equal numpy"

# --- trails msm --plot: its ITS, frames for the built-in run, ps-based for the relabelled one ---
"$TRAILS" msm --run mb --clusters 15 --lag 2 --its 1,2,5 --plot msm_its.png --json m.json > msm.out ||
  fail "msm --plot: $(cat msm.out)"
expect_png msm_its.png "1000 560"
grep -q "^wrote msm_its.png$" msm.out || fail "msm --plot: no wrote line: $(cat msm.out)"
"$TRAILS" msm --run om --clusters 15 --lag 2 --its 1,2,5 --json om.json > /dev/null
/usr/bin/python3 -c '
import json
assert json.load(open("m.json"))["clustering"]["frame_ps"] is None
assert json.load(open("om.json"))["clustering"]["frame_ps"] == 0.02
' || fail "msm --run: clustering.frame_ps"
set +e
"$TRAILS" msm --run mb --clusters 15 --lag 2 --its 1,2 --plot nodir/x.png --json never.json > bad.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && [ ! -e never.json ] || fail "msm --plot into a missing directory: rc $rc: $(cat bad.out)"
pass "trails msm --plot: ITS PNG; clustering.frame_ps; a bad --plot path exits 2, nothing written"

"$TRAILS" analyze mb > analyze.out 2>&1 || fail "analyze: $(cat analyze.out)"
expect_png mb/analysis/convergence_report.png "1650 1350"
pass "trails analyze: report with the shared ITS panels"

#!/usr/bin/env bash
# `trails analyze`: the MSM convergence report of a short built-in campaign. The PNG is a real
# 1650x1350 PNG; the --json numbers are the ledger's latest build; the free-energy surface equals
# an independent numpy recomputation from `trails export --cvs` (pi-weighted via nearest
# microstate centre, numpy's histogram bins) to 1e-9; --tau-ps, --temperature,
# --discard-fraction, an optional PCCA+ block, a 1-D CV space; a run without MSM gets the
# histogram free energy; bad flags exit 2 and write nothing.
source "$(dirname "$0")/lib/common.bash"

msm_config() {  # FILE OUTDIR
  write_config "$1" "$2"
  cat >> "$1" <<'YAML'
msm:
  enabled: true
  min_frames: 300
  n_microstates: 25
  lagtime: 2
  lagtimes: [1, 2, 5, 10]
  convergence_patience: 0
YAML
}

msm_config mb.yaml mb
"$TRAILS" run mb.yaml --iterations 12 > run.out 2>&1 || fail "MSM campaign failed: $(cat run.out)"
"$TRAILS" analyze mb --json mb.json > analyze.out 2>&1 || fail "analyze failed: $(cat analyze.out)"
# A built-in run's numbers are in its own reduced units at its engine.kT, never kJ/mol at 300 K.
grep -q "kJ/mol\| K;" analyze.out && fail "analyze of a built-in run speaks kJ/mol: $(cat analyze.out)"
grep -q "; kT = 15 (reduced units); max [0-9.]* reduced units$" analyze.out ||
  fail "analyze does not state the run's kT: $(cat analyze.out)"
"$TRAILS" export mb --cvs mb.cvs.csv

# A run whose middle shard is gone fails analyze (exit 1, naming the shard), no report. (analyze
# reads the ledger's CVs, verified by the rows checksum, and its MSM builds, not shard positions.)
cp -r mb hole && rm -rf hole/analysis && rm hole/shards/iter_000003.h5
EXPECT_STREAMS=err.txt expect_exit 1 "analyze with a deleted shard" "iter_000003.h5" \
  "$TRAILS" analyze hole --json hole.json
[ ! -e hole.json ] && [ ! -e hole/analysis/convergence_report.png ] ||
  fail "analyze wrote output for a damaged run"
pass "analyze refuses a run with a deleted shard, writing nothing"

# --- the picture: a valid PNG of the report's size ---
/usr/bin/python3 - mb/analysis/convergence_report.png <<'PY' || fail "convergence_report.png is not a plausible PNG"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
assert b[12:16] == b"IHDR"
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1650, 1350), (w, h)
assert len(b) > 20000, len(b)  # four drawn panels, not a blank page
assert b[-8:-4] == b"IEND", b[-12:]
PY
grep -q "^wrote mb/analysis/convergence_report.png$" analyze.out || fail "no 'wrote' line: $(cat analyze.out)"
pass "convergence_report.png: 1650x1350 PNG"

# --- the numbers: the ledger's builds, and the FES against numpy ---
/usr/bin/python3 - mb mb.json mb.cvs.csv analyze.out <<'PY' || fail "analyze --json differs from the ledger / numpy"
import json, math, sqlite3, sys
import numpy as np
run, out, csv, text = sys.argv[1:5]
a = json.load(open(out))
db = sqlite3.connect(run + "/ledger.sqlite")
builds = [(it, json.loads(m)) for it, m in db.execute("SELECT iteration, model FROM msm_builds ORDER BY iteration")]
models = [(it, m) for it, m in builds if m["note"] == "" and m["n_active"] >= 2]
it, m = models[-1]
L = a["latest"]
assert L["iteration"] == it and L["lagtime"] == m["lagtime"] and L["n_active"] == m["n_active"], L
assert L["timescales"] == m["timescales"], (L["timescales"], m["timescales"])  # exact doubles
assert L["vamp2"] == m["vamp2"] and L["converged"] == m["converged"] and L["streak"] == m["streak"]
assert L["its"] == m["its"], (L["its"], m["its"])
assert a["series"]["iterations"] == [i for i, _ in models]
assert a["series"]["vamp2"] == [x["vamp2"] for _, x in models]
assert a["series"]["timescales"] == [x["timescales"] for _, x in models]
# built-in engine: dt is in reduced units, so the time axis stays in frames
assert a["time"]["unit"] == "frames" and a["time"]["frame_ps"] is None and L["timescales_ps"] is None, a["time"]
# tail means over the builds after floor(n * 0.5)
n = len(models); skip = n // 2
assert a["tail"]["n_skip"] == skip and a["tail"]["first_iteration"] == models[skip][0], a["tail"]
v = np.array([x["vamp2"] for _, x in models[skip:]])
assert abs(a["tail"]["vamp2_mean"] - v.mean()) < 1e-12
t2 = np.array([x["timescales"][0] for _, x in models[skip:]])
assert abs(a["tail"]["timescales_mean"][0] - t2.mean()) < 1e-9 * t2.mean()
h = len(t2) // 2
assert abs(a["tail"]["timescales_plateau"][0] - t2[h:].mean() / t2[:h].mean()) < 1e-12
# the text summary says the same
s = open(text).read()
assert f"latest build    iteration {it}: lag {m['lagtime']} frames, {m['n_active']}/{m['n_microstates']} active" in s, s
assert "t2 %s frames" % format(m["timescales"][0], ".6g") in s, s
# FES: frames weighted by pi_i / n_i via the nearest centre, 60x60 bins, F = -kT ln p, min 0
X = np.loadtxt(csv, delimiter=",", skiprows=1)[:, 3:5]
C = np.array(m["cluster_centers"]).reshape(m["n_microstates"], -1)
lab = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1).argmin(1)
pi = np.zeros(len(C)); pi[m["active_set"]] = m["stationary_distribution"]
cnt = np.bincount(lab, minlength=len(C))
w = pi[lab] / cnt[lab]
H, ex, ey = np.histogram2d(X[:, 0], X[:, 1], bins=60, weights=w, density=True)
# the built-in run's own energy unit: engine.kT = 15 in the potential's reduced units
assert a["energy_unit"] == "reduced units" and a["temperature_k"] is None and a["kT"] == 15.0, a
assert a["free_energy"]["unit"] == "reduced units"
kT = 15.0
with np.errstate(divide="ignore"):
    F = np.where(H > 0, -kT * np.log(np.where(H > 0, H, 1.0)), np.nan)
F -= np.nanmin(F)
fe = a["free_energy"]
assert fe["dims"] == 2 and fe["bins"] == 60 and fe["weighted"] and fe["frames"] == len(X), fe["weighting"]
G = np.array([[np.nan if x is None else x for x in row] for row in fe["F"]])
assert G.shape == (60, 60)
assert (np.isnan(G) == np.isnan(F)).all(), "occupied bins differ"
assert np.nanmin(G) == 0.0 and fe["min"] == 0.0
assert np.nanmax(np.abs(G - F)) < 1e-9, np.nanmax(np.abs(G - F))
assert np.allclose(fe["edges"][0], ex, rtol=0, atol=0) and np.allclose(fe["edges"][1], ey, rtol=0, atol=0)
assert abs(fe["max"] - np.nanmax(F)) < 1e-9 and fe["occupied_bins"] == int((H > 0).sum())
print("ok", len(X), "frames", fe["occupied_bins"], "bins", "max F", fe["max"])
PY
pass "--json equals the ledger's latest build; FES equals numpy to 1e-9"

# --- --tau-ps, --temperature, --discard-fraction, --outfile ---
"$TRAILS" analyze mb --tau-ps 2.0 --temperature 600 --discard-fraction 0 --outfile out/r.png \
  --json t.json > t.out || fail "analyze with options failed"
[ -s out/r.png ] || fail "--outfile not written"
/usr/bin/python3 - mb.json t.json <<'PY' || fail "--tau-ps/--temperature/--discard-fraction"
import json, sys
import numpy as np
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["energy_unit"] == "kJ/mol" and b["temperature_k"] == 600 and b["free_energy"]["unit"] == "kJ/mol"
# frame interval = tau x stride / step = 2 ps x 10 / 200
assert b["time"] == {"unit": "ps", "frame_ps": 0.1, "tau_ps": 2.0, "source": "--tau-ps"}, b["time"]
assert b["latest"]["lag_ps"] == b["latest"]["lagtime"] * 0.1
for t, tp in zip(b["latest"]["timescales"], b["latest"]["timescales_ps"]):
    assert tp == t * 0.1, (t, tp)
# F scales with kT: the run's own kT = 15 (reduced units), then k_B x 600 K in kJ/mol
Fa = np.array([[np.nan if x is None else x for x in r] for r in a["free_energy"]["F"]])
Fb = np.array([[np.nan if x is None else x for x in r] for r in b["free_energy"]["F"]])
assert np.nanmax(np.abs(Fb - 0.00831446 * 600 / 15.0 * Fa)) < 1e-9
assert b["tail"]["n_skip"] == 0 and b["tail"]["vamp2_mean"] == b["tail"]["vamp2_mean"]
v = [x for x in b["series"]["vamp2"]]
assert abs(b["tail"]["vamp2_mean"] - np.mean(v)) < 1e-12
PY
grep -q "(--tau-ps)" t.out || fail "the summary does not name the time source: $(cat t.out)"
pass "--tau-ps (frame = tau x stride / step), --temperature, --discard-fraction 0, --outfile"

# --- a molecular engine's dt is in ps: frame = stride x dt from the stored configuration ---
# (the stored config and engine system of a copy are relabelled; an OpenMM campaign is too slow
# for this test)
cp -r mb om
rm -rf om/analysis
/usr/bin/python3 - om <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
c = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
c["engine"]["md_engine"] = "openmm"
c["engine"]["dt"] = 0.002
db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(c),))
# What an OpenMM engine reports about its system (reports read units from it, not md_engine).
s = json.loads(db.execute("SELECT value FROM meta WHERE key = 'engine_system'").fetchone()[0])
s.update({"engine": "openmm", "molecular": True, "dt": 0.002, "time_unit": "ps", "length_unit": "nm"})
db.execute("UPDATE meta SET value = ? WHERE key = 'engine_system'", (json.dumps(s),))
db.commit()
PY
"$TRAILS" analyze om --json om.json > om.out || fail "analyze of the relabelled run failed: $(cat om.out)"
/usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["time"]
assert t["unit"] == "ps" and t["source"] == "config" and abs(t["frame_ps"] - 0.02) < 1e-15 and abs(t["tau_ps"] - 0.4) < 1e-15, t
' om.json || fail "config-derived time axis: $(cat om.json | head -20)"
pass "molecular run: frame interval = stride x dt (0.02 ps) from the configuration"

# --- PCCA+ populations, when a build carries them (msm.n_metastable; known values injected
# here so the free energies are exact; msm_loop_models.sh analyzes a real PCCA+ run) ---
cp -r mb pc
rm -rf pc/analysis
/usr/bin/python3 - pc <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
it, m = list(db.execute("SELECT iteration, model FROM msm_builds ORDER BY iteration"))[-1]
m = json.loads(m)
m["n_metastable"] = 2
m["metastable_populations"] = [0.75, 0.25]
m["metastable_assignments"] = [0] * m["n_active"]
db.execute("UPDATE msm_builds SET model = ? WHERE iteration = ?", (json.dumps(m), it))
db.commit()
PY
"$TRAILS" analyze pc --json pc.json > pc.out || fail "analyze with PCCA+ populations failed"
grep -q "^metastable      2 PCCA+ sets: populations 0.75, 0.25 (F 0, 16.5 reduced units)$" pc.out \
  || fail "no metastable line: $(cat pc.out)"
"$TRAILS" analyze pc --temperature 300 > pc300.out
grep -q "^metastable      2 PCCA+ sets: populations 0.75, 0.25 (F 0, 2.74 kJ/mol)$" pc300.out \
  || fail "no metastable line at 300 K: $(cat pc300.out)"
grep -q "^metastable" analyze.out && fail "metastable line without PCCA+"
pass "PCCA+ populations reported when present (F = kT ln 3: 16.5 at the run's kT 15, 2.74 kJ/mol at 300 K), absent otherwise"

# --- 1-D CV space: a free-energy profile ---
double_well_config dw.yaml dw 1000
cat >> dw.yaml <<'YAML'
msm:
  enabled: true
  min_frames: 300
  n_microstates: 20
  lagtime: 5
  lagtimes: [1, 2, 5, 10]
  convergence_patience: 0
YAML
"$TRAILS" run dw.yaml --iterations 6 > /dev/null
"$TRAILS" analyze dw --json dw.json > dw.out || fail "1-D analyze failed: $(cat dw.out)"
"$TRAILS" export dw --cvs dw.cvs.csv
/usr/bin/python3 - dw dw.json dw.cvs.csv <<'PY' || fail "1-D profile differs from numpy"
import json, sqlite3, sys
import numpy as np
run, out, csv = sys.argv[1:4]
a = json.load(open(out))
m = json.loads(list(sqlite3.connect(run + "/ledger.sqlite").execute(
    "SELECT model FROM msm_builds ORDER BY iteration"))[-1][0])
X = np.loadtxt(csv, delimiter=",", skiprows=1)[:, 3]
C = np.array(m["cluster_centers"])
lab = np.abs(X[:, None] - C[None, :]).argmin(1)
pi = np.zeros(len(C)); pi[m["active_set"]] = m["stationary_distribution"]
w = pi[lab] / np.bincount(lab, minlength=len(C))[lab]
H, e = np.histogram(X, bins=60, weights=w, density=True)
with np.errstate(divide="ignore"):
    F = np.where(H > 0, -0.5 * np.log(np.where(H > 0, H, 1.0)), np.nan)  # engine.kT 0.5
F -= np.nanmin(F)
G = np.array([np.nan if x is None else x for x in a["free_energy"]["F"]])
assert a["free_energy"]["dims"] == 1 and G.shape == (60,)
assert (np.isnan(G) == np.isnan(F)).all() and np.nanmin(G) == 0.0
assert np.nanmax(np.abs(G - F)) < 1e-9, np.nanmax(np.abs(G - F))
# two basins near -1 and +1, a barrier in between (V's is 1 in the reduced units F is in)
c = 0.5 * (e[1:] + e[:-1])
assert np.nanmax(F[np.abs(c) < 0.2]) > np.nanmin(F[np.abs(c + 1) < 0.3]) + 0.5
PY
pass "1-D CV space: free-energy profile equals numpy to 1e-9"

# --- a run without MSM: the histogram free energy is the report, the store is untouched ---
write_config plain.yaml plain
"$TRAILS" run plain.yaml --iterations 3 > /dev/null
before=$(snapshot plain)
"$TRAILS" analyze plain --json none.json --outfile none.png > none.out 2>&1 ||
  fail "no-MSM run: analyze failed: $(cat none.out)"
grep -q "no MSM model    no MSM builds" none.out || fail "message: $(cat none.out)"
grep -q "wrote none.png" none.out || fail "no-MSM run: $(cat none.out)"
[ "$before" = "$(snapshot plain)" ] || fail "no-MSM run: the run directory changed"
"$TRAILS" export plain --cvs plain.cvs.csv
/usr/bin/python3 - none.png none.json plain.cvs.csv <<'PY' || fail "no-MSM free energy is wrong"
import json, struct, sys
import numpy as np
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b.endswith(b"IEND\xaeB`\x82"), "not a complete PNG"
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (900, 680), (w, h)
a = json.load(open(sys.argv[2]))
assert a["builds"] == 0 and a["builds_with_model"] == 0
f = a["free_energy"]
assert f["dims"] == 2 and f["bins"] == 60 and f["unit"] == "reduced units" and not f["weighted"]
assert a["energy_unit"] == "reduced units" and a["kT"] == 15.0 and a["temperature_k"] is None
x = np.loadtxt(sys.argv[3], delimiter=",", skiprows=1)[:, 3:5]
H, ex, ey = np.histogram2d(x[:, 0], x[:, 1], bins=60)
kT = 15.0
with np.errstate(divide="ignore"):
    F = -kT * np.log(H / (H.sum() * (ex[1] - ex[0]) * (ey[1] - ey[0])))
F -= F[np.isfinite(F)].min()
F[~np.isfinite(F)] = np.nan
G = np.array([[np.nan if v is None else v for v in row] for row in f["F"]], dtype=float)
assert f["frames"] == len(x) and f["occupied_bins"] == int((H > 0).sum())
assert (np.isnan(G) == np.isnan(F)).all() and np.nanmax(np.abs(G - F)) < 1e-9
PY
pass "no MSM builds: the histogram free energy (equal to numpy to 1e-9), run untouched"

# --- bad flags and bad directories: exit 2, nothing written ---
rm -rf mb/analysis
before=$(snapshot mb)
expect_2() {  # DESCRIPTION ARGS...
  local what=$1
  shift
  set +e
  "$TRAILS" analyze "$@" > bad.out 2>&1
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$what: expected exit 2, got $rc: $(cat bad.out)"
  [ "$before" = "$(snapshot mb)" ] || fail "$what: the run directory changed"
  [ ! -e bad.json ] || fail "$what: wrote --json"
}
expect_2 "negative temperature" mb --temperature -5 --json bad.json
expect_2 "zero temperature" mb --temperature 0 --json bad.json
expect_2 "discard fraction 1" mb --discard-fraction 1 --json bad.json
expect_2 "negative discard fraction" mb --discard-fraction -0.1 --json bad.json
expect_2 "zero tau" mb --tau-ps 0 --json bad.json
expect_2 "non-numeric tau" mb --tau-ps fast --json bad.json
expect_2 "unknown flag" mb --bins 30 --json bad.json
expect_2 "missing RUN_DIR" --json bad.json
expect_2 "json into a missing directory" mb --json nodir/bad.json
mkdir -p adir
expect_2 "outfile is a directory" mb --outfile adir --json bad.json
expect_2 "not a run directory" "$WORK" --json bad.json
expect_2 "missing run directory" nosuchrun --json bad.json
pass "bad flags and directories: exit 2, nothing written"

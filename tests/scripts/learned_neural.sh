#!/usr/bin/env bash
# Neural learned CV spaces in the loop (space_mode tvae | vampnet | spib | deep-tica; built-in
# three_well, a 1-D latent space, tiny networks, few epochs): each runs and names its CVs
# (tvae_0, deep_tica_0, ...); the model is stored with the iteration that applies it, with its
# training record; a retrain decided at iteration k takes effect at k+1 (docs/cvs.md, "When a new
# model takes effect"); serial and threaded runs are identical; a SIGKILL at named points (a
# retrain pending, right after a model's commit) then --resume, and a run extended past a pending
# retrain, reproduce the uninterrupted run byte for byte.
source "$(dirname "$0")/lib/common.bash"

neural_config() {  # FILE OUTDIR MAX_WORKERS MODE [ITERATIONS]
  local model=("  epochs: 4" "  batch_size: 64")
  case $4 in
    tvae) model+=("  encoder_hidden_dims: [16]" "  decoder_hidden_dims: [16]" "  tvae_beta: 0.5") ;;
    spib) model+=("  encoder_hidden_dims: [16]" "  spib_n_states: 4" "  spib_refine_rounds: 2") ;;
    deep-tica) model+=("  deep_tica_hidden_dims: [16]") ;;
    vampnet) model+=("  encoder_hidden_dims: [16]") ;;
    *) model=() ;;
  esac
  three_well_learned_config "$1" "$2" "$3" "$4" "${5:-7}" "${model[@]}"
}

# What the ledger stores: the space_model element (weights format 2) at iteration 0 (the first model)
# and 4 (decided at 3, trained during 4's MD), each with its training record and its weights as
# a raw attachment whose size and CRC-32 the element records; iteration 6 leaves its retrain
# pending for a later --resume.
check_models() {  # RUN MODE
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$2: stored models"
import json, math, sqlite3, sys, zlib
run, mode = sys.argv[1], sys.argv[2]
db = sqlite3.connect(f"{run}/ledger.sqlite")
rows = db.execute("SELECT iteration, version, blob FROM element_state WHERE key = 'space_model' "
                  "ORDER BY iteration").fetchall()
assert [r[0] for r in rows] == [0, 4], [r[0] for r in rows]
weights = dict(db.execute("SELECT iteration, bytes FROM element_attachments "
                          "WHERE key = 'space_model' AND member = 'weights'"))
for it, version, blob in rows:
    m = json.loads(blob)
    assert version == 1 and m["version"] == 2, (version, m["version"])
    assert m["kind"] == mode and m["applied_at"] == it, m.keys()
    assert m["trained_at"] == (0 if it == 0 else 3), m["trained_at"]
    t = m["training"]
    assert t["epochs_run"] >= 4 and len(t["loss"]) == t["epochs_run"], t
    assert all(math.isfinite(x) for x in t["loss"]), t["loss"]
    if mode == "spib":
        assert t["spib_final_states"] <= t["spib_initial_states"] == 4, t
    w = m["weights"]["trails_attachment"]
    assert w["bytes"] == len(weights[it]) > 0 and w["crc32"] == f"{zlib.crc32(weights[it]):08x}", w
space = {it: json.loads(b) for it, b in
         db.execute("SELECT iteration, blob FROM element_state WHERE key = 'space'")}
assert space[6]["pending_training"] == 6 and space[5]["pending_training"] is None
assert [space[i]["space_version"] for i in range(7)] == [1, 1, 1, 1, 2, 2, 2]
assert space[6]["model_iteration"] == 4
PY
}

for mode in tvae vampnet spib deep-tica; do
  neural_config "$mode.yaml" "$mode" 1 "$mode"
  "$TRAILS" run "$mode.yaml" > "$mode.out" || fail "$mode: run failed: $(cat "$mode.out")"
  "$TRAILS" export "$mode" --cvs "$mode.named.csv" --cv-names > /dev/null
  [ "$(head -1 "$mode.named.csv")" = "iteration,walker,frame,${mode/-/_}_0" ] ||
    fail "--cv-names of a $mode space: $(head -1 "$mode.named.csv")"
  [ "$(wc -l < "$mode.named.csv")" -eq 1261 ] || fail "$mode: CV export rows"
  check_models "$mode" "$mode"
  pass "$mode campaign: 1260 frames, models stored at iterations 0 and 4 with their records"
done
export_run vampnet ref

# A run made before the weights became an attachment (space_model format 1, base64 in the JSON;
# tests/data/runs/README.md) still exports its model and resumes: 5 iterations made then,
# continued to 7 now, equal the 7-iteration run byte for byte.
tar xzf "$ROOT/tests/data/runs/vampnet-space-model-v1.tar.gz"
[ "$(sqlite3 v1run/ledger.sqlite "SELECT group_concat(json_extract(CAST(blob AS TEXT),
      '$.version') || json_type(CAST(blob AS TEXT), '$.weights')) FROM element_state
      WHERE key = 'space_model'")" = "1text,1text" ] || fail "the fixture is not a format-1 run"
"$TRAILS" export v1run --model v1.pt > /dev/null || fail "export --model of a format-1 run"
[ -s v1.pt ] || fail "export --model of a format-1 run wrote no v1.pt"
"$TRAILS" run v1.yaml --iterations 7 --resume > v1.out 2>&1 || fail "v1 resume: $(cat v1.out)"
export_run v1run v1run
cmp ref.cvs.csv v1run.cvs.csv || fail "format-1 run resumed: CV export differs"
cmp ref.lineage.csv v1run.lineage.csv || fail "format-1 run resumed: lineage differs"
pass "a format-1 run (base64 weights) exports its model and resumes bitwise"

# The Python reader: the learned CVs under their names, and the networks' training records.
PYTHONPATH="$ROOT/share/trails/python" /usr/bin/python3 - <<'PY' || fail "python reader"
import csv
import numpy as np
from trails_run import Run
run = Run("spib")
assert run.cv_names == ["spib_0"], run.cv_names
cvs = run.cvs()
rows = list(csv.DictReader(open("spib.named.csv")))
assert np.array_equal(cvs["spib_0"], np.array([float(r["spib_0"]) for r in rows]))
models = run.space_models()
assert [m["applied_at"] for m in models] == [0, 4], models
assert models[1]["trained_at"] == 3 and models[1]["training"]["spib_initial_states"] == 4
PY
pass "python reader: spib_0 CVs as exported, two networks with their training records"

# The stored network: TorchScript that PyTorch loads and that reproduces the stored CVs from the
# scaled features (the coordinates, for the built-in engine); trails project gives the same CVs.
"$TRAILS" export vampnet --model model.pt > /dev/null
[ -s model.pt ] && [ -s model.json ] || fail "export --model wrote no model.pt / model.json"
expect_exit 2 "project of a missing file" "missing.csv" \
  "$TRAILS" project vampnet missing.csv --out projected.csv
/usr/bin/python3 - <<'PY' || fail "coordinates of iteration 6"
import h5py, numpy as np
with h5py.File("vampnet/shards/iter_000006.h5", "r") as f:
    x = f["particles/walkers/position/value"][:, 0, :]
np.savetxt("coords6.csv", x, delimiter=",", header="x,y", comments="")
PY
"$TRAILS" project vampnet coords6.csv --out projected.csv > /dev/null || fail "trails project"
/usr/bin/python3 - <<'PY' || fail "project / TorchScript against the stored CVs"
import csv, json
import numpy as np
stored = np.array([float(r["vampnet_0"]) for r in csv.DictReader(open("vampnet.named.csv"))
                   if r["iteration"] == "6"])
projected = np.array([float(r["vampnet_0"]) for r in csv.DictReader(open("projected.csv"))])
assert np.array_equal(stored, projected), (stored[:3], projected[:3])
side = json.load(open("model.json"))
assert side["space_mode"] == "vampnet" and side["applied_at"] == 4 and side["cv_names"] == ["vampnet_0"]
try:
    import torch
except ImportError:
    print("python3-torch missing: TorchScript not loaded")
else:
    x = np.loadtxt("coords6.csv", delimiter=",", skiprows=1)
    xs = (x[:, side["columns"]] - np.array(side["min_values"])) / np.array(side["scale"])
    m = torch.jit.load("model.pt")
    y = m(torch.from_numpy(xs)).detach().numpy()[:, 0]
    assert np.allclose(y, stored, rtol=1e-6, atol=1e-6), np.abs(y - stored).max()
PY
expect_exit 2 "export --model past the last iteration" "--iteration 99: vampnet holds iterations 0 to 6" \
  "$TRAILS" export vampnet --model late.pt --iteration 99
neural_config pca.yaml pca 1 pca 2
"$TRAILS" run pca.yaml > /dev/null
expect_exit 2 "export --model of a pca space" "has no network to export" \
  "$TRAILS" export pca --model pca.pt
[ ! -e pca.pt ] && [ ! -e pca.json ] || fail "a refused export --model wrote files"
pass "export --model: TorchScript reproduces the stored CVs; trails project gives them bit for bit"

neural_config threads.yaml threads 4 vampnet
"$TRAILS" run threads.yaml > /dev/null
export_run threads threads
cmp ref.cvs.csv threads.cvs.csv || fail "4 workers: CV export differs from 1 worker"
cmp ref.lineage.csv threads.lineage.csv || fail "4 workers: lineage differs from 1 worker"
pass "vampnet: serial and 4-thread runs identical"

# Crash while the retrain decided at 3 trains during 4's MD, after its decision's commit, after
# the commit of the model it became, and inside a later ledger transaction.
for spec in md:4=4 after-commit:3=4 after-commit:4=5 ledger-commit:5=5; do
  point=${spec%=*}
  expect=${spec#*=}
  dir=crash-${point/:/-}
  neural_config "$dir.yaml" "$dir" 2 vampnet
  crash_resume_matches "$dir" "$point" "$expect" ref
  pass "vampnet, crash at $point: $got committed, resumed run identical"
done

# The retrain decided at the last iteration (6) is pending in the ledger: a run extended to 9
# iterations trains it during 7's MD exactly as a 9-iteration run does.
neural_config long.yaml long 2 spib 9
"$TRAILS" run long.yaml > /dev/null
neural_config short.yaml short 2 spib 7
"$TRAILS" run short.yaml > /dev/null
"$TRAILS" run short.yaml --iterations 9 --resume > /dev/null || fail "extend: resume failed"
export_run long long
export_run short short
cmp long.cvs.csv short.cvs.csv || fail "extended run: CV export differs from the 9-iteration run"
cmp long.lineage.csv short.lineage.csv || fail "extended run: lineage differs"
pass "spib: 7 iterations then --resume to 9 equals 9 straight (the pending retrain resumed)"

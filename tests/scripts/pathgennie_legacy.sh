#!/usr/bin/env bash
# PathGennie's own files and command lines (docs/swarm.md, "PathGennie's legacy command line"):
# a system.py written as PathGennie's examples are (`from openmm.app import *`, class
# Simulation_obj(device_idx) building its Simulation on a hard-coded CUDA platform with
# DeviceIndex/Precision properties) and a pca_model.pkl made as pcagen.py makes it (a
# scikit-learn PCA of 10 components saved by joblib). `trails unbind` with PathGennie's options
# (and one it does not know) runs them: the CUDA fallback is warned, the unknown option noted,
# the anchors' CVs are the pickle's first 4 components of the start's features exactly as
# scikit-learn's transform gives them, trajectory.xtc is written (not with --no_save), --resume
# raises the cycle cap, and `trails pca --from-pickle` converts the pickle to the JSON model
# with the same arrays. `trails unfold` and `trails fold` run their options on a small helix;
# `from openmm.app import *` without a Simulation is named in the error; a campaign config
# given to `trails swarm` is pointed at `trails run`.
source "$(dirname "$0")/lib/common.bash"
export OPENMM_CPU_THREADS=1

# Eight CA atoms around a 4-atom ligand LIG (as tests/scripts/ligand_pca.sh), 12 atoms.
/usr/bin/python3 - <<'PY'
import math
lines = []
ca = [(6 * math.cos(k * math.pi / 4), 6 * math.sin(k * math.pi / 4), 0.3 * k) for k in range(7)]
ca.append((30.0, 0.0, 0.0))
for i, (x, y, z) in enumerate(ca):
    lines.append("ATOM  %5d  CA  ALA A%4d    %8.3f%8.3f%8.3f  1.00  0.00           C" % (i + 1, i + 1, x, y, z))
lig = [("C1", "C", (0.0, 0.0, 0.0)), ("C2", "C", (1.5, 0.0, 0.0)), ("O1", "O", (2.1, 1.1, 0.0)),
       ("H1", "H", (-0.5, -0.9, 0.0))]
for j, (name, el, (x, y, z)) in enumerate(lig):
    lines.append("HETATM%5d %-4s LIG B%4d    %8.3f%8.3f%8.3f  1.00  0.00          %2s" % (len(ca) + j + 1, name, 9, x, y, z, el))
open("complex.pdb", "w").write("\n".join(lines) + "\nEND\n")
PY
mkdir -p sim
cat > sim/system.py <<'PY'
# As PathGennie's examples: star imports (which bind `simulation` to a module), a class whose
# instance holds the Simulation, a hard-coded CUDA platform with its properties.
from openmm import *
from openmm.app import *
from openmm.unit import *


class Simulation_obj:
    def __init__(self, device_idx):
        pdb = PDBFile("../complex.pdb")
        system = System()
        for atom in pdb.topology.atoms():
            system.addParticle(12.0)
        hold = CustomExternalForce("500*((x-x0)^2+(y-y0)^2+(z-z0)^2)")
        for p in ("x0", "y0", "z0"):
            hold.addPerParticleParameter(p)
        for atom, xyz in zip(pdb.topology.atoms(), pdb.getPositions(asNumpy=True).value_in_unit(nanometer)):
            if atom.name == "CA":
                hold.addParticle(atom.index, list(xyz))
        system.addForce(hold)
        bonds = HarmonicBondForce()
        for i, j in ((8, 9), (9, 10), (8, 11)):
            bonds.addBond(i, j, 0.14, 2000.0)
        system.addForce(bonds)
        integrator = LangevinMiddleIntegrator(300 * kelvin, 1 / picosecond, 0.002 * picoseconds)
        platform = Platform.getPlatformByName("CUDA")
        self.simulation = Simulation(pdb.topology, system, integrator, platform,
                                     {"Precision": "mixed", "DeviceIndex": str(device_idx)})
PY

# pcagen.py's model: 10-component scikit-learn PCA of pocket CA - ligand heavy-atom distances,
# saved with joblib (the samples: the ligand shifted around the pocket).
"$TRAILS" pca complex.pdb -n 40 --max-radius 8 --max-distance 7 --clash-cutoff 2 --rmsd-threshold 1.0 \
  --around-distance 12 --seed 1 -o unused.json --poses poses.npy > pca.out 2>&1 || fail "trails pca: $(cat pca.out)"
/usr/bin/python3 - <<'PY' || fail "could not write the scikit-learn pickle"
import numpy as np, joblib
from sklearn.decomposition import PCA
poses = np.load("poses.npy")  # samples x 4 ligand atoms x 3 (Å)
xyz = np.array([[float(l[30:38]), float(l[38:46]), float(l[46:54])] for l in open("complex.pdb") if l.startswith(("ATOM", "HETATM"))])
f = np.linalg.norm(xyz[:7][None, :, None, :] - poses[:, None, :3, :], axis=3).reshape(len(poses), -1)
joblib.dump(PCA(n_components=10).fit(f), "pca_model.pkl")
PY

legacy=(--structure_file complex.pdb --model_file pca_model.pkl --ligand_name LIG --selection_radius 12
        --module_dir sim --relax1 3 --relax2 4 --max_probes 4 --temperature 300)
"$TRAILS" unbind "${legacy[@]}" --max_cycles 3 --made_up_option 7 > unbind.out 2>&1 || fail "trails unbind: $(cat unbind.out)"
grep -q "note: --made_up_option is not an option of PathGennie's unbind that Trails knows; ignored" unbind.out ||
  fail "no note for the unknown option: $(cat unbind.out)"
grep -q "OpenMM CUDA platform unusable here" unbind.out || fail "no CUDA fallback warning: $(cat unbind.out)"
grep -q "path 0: 3 cycle(s)" unbind.out || fail "not 3 cycles: $(cat unbind.out)"
[ -s trajectory.xtc ] || fail "no trajectory.xtc"
cmp trajectory.xtc pathgennie-unbind/path_0/reactive_path.xtc || fail "trajectory.xtc is not the reactive path"
grep -q "^  mode: unbind" pathgennie-unbind.yaml || fail "generated config: $(cat pathgennie-unbind.yaml)"
/usr/bin/python3 - <<'PY' || fail "the anchors' CVs are not scikit-learn's transform of their features"
import csv, warnings
import numpy as np, joblib, mdtraj as md
warnings.filterwarnings("ignore")
model = joblib.load("pca_model.pkl")
rows = list(csv.DictReader(open("pathgennie-unbind/path_0/reactive_path.csv")))
t = md.load("pathgennie-unbind/path_0/reactive_path.xtc", top="pathgennie-unbind/path_0/reactive_path.pdb")
cols = [c for c in rows[0] if c.startswith("pca:pc")]
assert cols == ["pca:pc1", "pca:pc2", "pca:pc3", "pca:pc4"], cols  # PathGennie's 4 components
for k, r in enumerate(rows):
    x = t.xyz[k].astype(np.float64) * 10.0
    f = np.linalg.norm(x[:7][:, None, :] - x[8:11][None, :, :], axis=2).reshape(1, -1)
    z = model.transform(f)[0][:4]
    ours = np.array([float(r[c]) for c in cols])
    assert np.abs(z - ours).max() < 0.05, (k, z, ours)  # the XTC keeps 0.01 Å per coordinate
# Closer: the same frames from reactive_path.pdb (0.001 Å per coordinate).
pdb = md.load("pathgennie-unbind/path_0/reactive_path.pdb")
assert pdb.n_frames == len(rows)
for k, r in enumerate(rows):
    x = pdb.xyz[k].astype(np.float64) * 10.0
    f = np.linalg.norm(x[:7][:, None, :] - x[8:11][None, :, :], axis=2).reshape(1, -1)
    ours = np.array([float(r[c]) for c in cols])
    assert np.abs(model.transform(f)[0][:4] - ours).max() < 0.01, (k, model.transform(f)[0][:4], ours)
print("unbind's CVs are the pickle's first 4 components")
PY
pass "trails unbind runs PathGennie's system.py (Simulation_obj, CUDA fallback) and pca_model.pkl"

rm trajectory.xtc
"$TRAILS" unbind "${legacy[@]}" --max_cycles 5 --resume --no_save > resume.out 2>&1 || fail "--resume: $(cat resume.out)"
grep -q "path 0: 5 cycle(s)" resume.out || fail "resume did not reach 5 cycles: $(cat resume.out)"
[ ! -e trajectory.xtc ] || fail "--no_save wrote trajectory.xtc"
"$TRAILS" status pathgennie-unbind > status.out 2>&1 || fail "status: $(cat status.out)"
pass "--resume raises --max_cycles on the same run; --no_save writes no trajectory; status reads it"

"$TRAILS" pca complex.pdb --from-pickle pca_model.pkl --ligand-sel "resname LIG" --around-distance 12 \
  -o converted.json > convert.out 2>&1 || fail "pca --from-pickle: $(cat convert.out)"
grep -q "7 pocket CA atoms x 3 ligand heavy atoms = 21 features, 10 components" convert.out || fail "$(cat convert.out)"
/usr/bin/python3 - <<'PY' || fail "the converted model's arrays differ from the pickle's"
import json, numpy as np, joblib
m, p = json.load(open("converted.json")), joblib.load("pca_model.pkl")
assert m["ca_indices"] == list(range(7)) and m["ligand_indices"] == [8, 9, 10]
assert np.array_equal(np.array(m["mean"]), p.mean_) and np.array_equal(np.array(m["components"]), p.components_)
PY
expect_exit 2 "wrong radius" "the model has 21 features" \
  "$TRAILS" pca complex.pdb --from-pickle pca_model.pkl --ligand-sel "resname LIG" --around-distance 5 -o bad.json
[ ! -e bad.json ] || fail "a refused conversion wrote its model"
pass "trails pca --from-pickle converts the pickle bit for bit; a mismatched radius exits 2"

# A system.py whose star import leaves `simulation` the module: named in the error.
mkdir -p bad && printf 'from openmm.app import *\n' > bad/system.py
sed 's/--module_dir sim/--module_dir bad/' <<< "${legacy[*]}" > bad.args
# shellcheck disable=SC2046  # the options are split on purpose
expect_exit 2 "star import" "is the module openmm.app.simulation (brought in by \`from openmm.app import *\`)" \
  "$TRAILS" unbind $(cat bad.args) --workdir badrun

# unfold and fold: a deca-alanine helix in implicit solvent (examples/swarm-unfold).
cp "$ROOT/examples/swarm-unfold/helix.pdb" helix.pdb
mkdir -p helix && cat > helix/system.py <<'PY'
from openmm import *
from openmm.app import *
from openmm.unit import *


class Simulation_obj:
    def __init__(self, device_idx=0):
        pdb = PDBFile("../helix.pdb")
        ff = ForceField("amber14-all.xml", "implicit/gbn2.xml")
        system = ff.createSystem(pdb.topology, nonbondedMethod=NoCutoff, constraints=HBonds)
        integrator = LangevinMiddleIntegrator(300 * kelvin, 1 / picosecond, 0.002 * picoseconds)
        self.simulation = Simulation(pdb.topology, system, integrator,
                                     Platform.getPlatformByName("CUDA"), {"DeviceIndex": str(device_idx)})
PY
common=(--ref_config helix.pdb --start_config helix.pdb --module_dir helix --relax1 2 --relax2 2
        --max_probes 3 --max_cycles 2 --temperature 300)
"$TRAILS" unfold "${common[@]}" --save_frequency 1 --no_change_threshold 0.05 > unfold.out 2>&1 ||
  fail "trails unfold: $(cat unfold.out)"
grep -q "note: --no_change_threshold has no effect" unfold.out || fail "no note: $(cat unfold.out)"
head -1 pathgennie-unfold/path_0/reactive_path.csv | matches "rmsd,q" || fail "unfold CVs: $(head -1 pathgennie-unfold/path_0/reactive_path.csv)"
"$TRAILS" fold "${common[@]}" --target_projection 0.0 1.0 --verbose > fold.out 2>&1 || fail "trails fold: $(cat fold.out)"
grep -q "^  mode: fold" pathgennie-fold.yaml && grep -q "target_projection: \[0.0,1.0\]" pathgennie-fold.yaml ||
  fail "fold config: $(cat pathgennie-fold.yaml)"
pass "trails unfold and trails fold run PathGennie's options on RMSD (Å) and Q"

write_config campaign.yaml out
expect_exit 2 "campaign to swarm" "is a campaign config (it has no \`pathgennie:\` block): run it with \`trails run campaign.yaml\`" \
  "$TRAILS" swarm campaign.yaml
pass "trails swarm on a campaign config points at trails run"

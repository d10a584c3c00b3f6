#!/usr/bin/env bash
# `trails pca` (docs/swarm.md, "trails pca"): on a hand-made system (eight CA atoms and a 3-heavy-
# atom ligand with one hydrogen) the features and the PCA in the model equal numpy's on the
# written poses (features from the poses, mean, components up to sign convention, explained
# variance); every pose obeys the clash, distance and uniqueness rules and the input pose is the
# last sample; the same seed gives the same bytes with 1 or 4 threads, another seed another
# model; bad selections exit 2 and write nothing; and `trails swarm` reads the model as a
# pca_model CV (unbind mode on alanine dipeptide, NME as the "ligand"), its columns equal to the
# model's projection of the reactive path's frames.
source "$(dirname "$0")/lib/common.bash"

/usr/bin/python3 - <<'PY'
# Eight CA atoms on a ring of radius 6 Å, one off-plane, one far away (beyond --around-distance);
# the ligand LIG (C1, C2, O1, H1) in the middle.
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
open("small.pdb", "w").write("\n".join(lines) + "\nEND\n")
PY

opts=(-n 60 --max-radius 8 --max-distance 7 --clash-cutoff 2 --rmsd-threshold 1.5 --around-distance 12 --components 5)
OMP_NUM_THREADS=1 "$TRAILS" pca small.pdb "${opts[@]}" --seed 3 -o m1.json --poses poses.npy > pca.out 2>&1 ||
  fail "trails pca: $(cat pca.out)"
grep -q "7 pocket CA atoms x 3 ligand heavy atoms = 21 features" pca.out || fail "features: $(cat pca.out)"
grep -q "component(s) reach 95% of the variance; the model keeps 5" pca.out || fail "report: $(cat pca.out)"
/usr/bin/python3 - <<'PY' || fail "the model differs from numpy's PCA of the poses"
import json
import numpy as np
m = json.load(open("m1.json"))
poses = np.load("poses.npy")  # samples x 4 ligand atoms x 3, Å
pdb = [l for l in open("small.pdb") if l.startswith(("ATOM", "HETATM"))]
xyz = np.array([[float(l[30:38]), float(l[38:46]), float(l[46:54])] for l in pdb])
assert m["format"] == "trails-ligand-pca" and m["version"] == 1
assert m["ca_indices"] == list(range(7)), m["ca_indices"]   # the far CA is not in the pocket
assert m["ligand_indices"] == [8, 9, 10], m["ligand_indices"]  # heavy atoms only
assert np.allclose(poses[-1], xyz[8:12]), "the input pose is not the last sample"
# Pose rules: clash >= 2 Å, some atom within 7 Å, pairwise plain RMSD >= 1.5 Å (not the input).
prot = xyz[:8]
for p in poses[:-1]:
    d = np.linalg.norm(p[:, None, :] - prot[None, :, :], axis=2)
    assert d.min() >= 2.0 and d.min() <= 7.0, d.min()
gen = poses[:-1].reshape(len(poses) - 1, -1)
for i in range(len(gen)):
    r = np.sqrt(((gen[i + 1:] - gen[i]) ** 2).sum(axis=1) / 4)
    assert (r >= 1.5).all(), r.min()
# Features: CA-major distances to the heavy atoms (C1, C2, O1), Å.
f = np.linalg.norm(xyz[:7][None, :, None, :] - poses[:, None, :3, :], axis=3).reshape(len(poses), -1)
mean = f.mean(axis=0)
cov = (f - mean).T @ (f - mean) / (len(f) - 1)
w, v = np.linalg.eigh(cov)
w, v = w[::-1], v[:, ::-1]
v = v * np.sign(v[np.abs(v).argmax(axis=0), range(v.shape[1])])  # largest |entry| positive
assert m["n_samples"] == len(poses)
assert np.allclose(m["mean"], mean, rtol=0, atol=1e-9)
assert np.allclose(m["explained_variance"], w[:5], rtol=1e-9, atol=1e-9), (m["explained_variance"], w[:5])
assert np.allclose(m["explained_variance_ratio"], (w / w.sum())[:5], atol=1e-9)
assert np.allclose(np.array(m["components"]), v[:, :5].T, atol=1e-7)
print(f"{len(poses)} samples, 21 features, PCA matches numpy")
PY
pass "features and PCA of trails pca equal numpy's on the generated poses; the poses obey the rules"

OMP_NUM_THREADS=4 "$TRAILS" pca small.pdb "${opts[@]}" --seed 3 -o m2.json > /dev/null 2>&1 || fail "second run"
cmp m1.json m2.json || fail "the same seed gave another model (1 vs 4 threads)"
"$TRAILS" pca small.pdb "${opts[@]}" --seed 4 -o m3.json > /dev/null 2>&1 || fail "third run"
! cmp -s m1.json m3.json || fail "another seed gave the same model"
pass "same seed -> same bytes with 1 or 4 threads; another seed -> another model"

expect_exit 2 "empty ligand selection" "--ligand-sel" "$TRAILS" pca small.pdb --ligand-sel "resname XXX" -o bad.json
expect_exit 2 "missing structure" "no such structure file" "$TRAILS" pca nothere.pdb -o bad.json
expect_exit 2 "no pocket" "no CA atom within --around-distance" "$TRAILS" pca small.pdb --around-distance 0.5 -o bad.json
[ ! -e bad.json ] || fail "a refused pca wrote its model"
pass "bad selections and files exit 2 and write nothing"

# The model as a swarm CV: alanine dipeptide, NME (N, CH3) as the ligand around ACE-ALA's CA.
export OPENMM_CPU_THREADS=1
cp "$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb" ala.pdb
"$TRAILS" pca ala.pdb --protein-sel "resname ACE ALA" --ligand-sel "resname NME" -n 20 --max-radius 3 \
  --max-distance 4 --clash-cutoff 1 --rmsd-threshold 0.5 -o ala.json > ala.out 2>&1 || fail "pca on alanine dipeptide: $(cat ala.out)"
cat > swarm.yaml <<YAML
workdir: run
pathgennie:
  mode: unbind
  max_trial: 3
  tau1_steps: 10
  tau2_steps: 10
  max_cycle: 3
  save_freq: 1
  seed: 2
cvs:
  - {name: pca, kind: pca_model, file: ala.json, components: 2}
system:
  conf_file: ala.pdb
  forcefield: [amber14-all.xml]
engine:
  md_engine: openmm
  platform_name: Reference
  temperature: 300
YAML
"$TRAILS" swarm swarm.yaml > swarm.out 2>&1 || fail "swarm with a pca_model CV: $(cat swarm.out)"
head -1 run/path_0/reactive_path.csv | matches "pca:pc1,pca:pc2" || fail "columns: $(head -1 run/path_0/reactive_path.csv)"
/usr/bin/python3 - <<'PY' || fail "the swarm's PCA CVs differ from the model's projection"
import csv, json, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
m = json.load(open("ala.json"))
rows = list(csv.DictReader(open("run/path_0/reactive_path.csv")))
t = md.load("run/path_0/reactive_path.xtc", top="run/path_0/reactive_path.pdb")
assert t.n_frames == len(rows) == 3
ca, lig = m["ca_indices"], m["ligand_indices"]
for k, r in enumerate(rows):
    x = t.xyz[k] * 10.0
    f = np.linalg.norm(x[ca][:, None, :] - x[lig][None, :, :], axis=2).reshape(-1)
    z = (f - np.array(m["mean"])) @ np.array(m["components"])[:2].T
    ours = np.array([float(r["pca:pc1"]), float(r["pca:pc2"])])
    assert np.abs(z - ours).max() < 0.05, (z, ours)  # the XTC keeps 0.01 Å per coordinate
    # unbind's progress: the distance from the start in the 2 PCs
print("swarm pca CVs equal the model's projection")
PY
sed -e "s#components: 2#components: 9#" -e "s#workdir: run#workdir: run2#" swarm.yaml > bad_swarm.yaml
expect_exit 2 "too many components" "components must be an integer from 1 to 2" "$TRAILS" swarm bad_swarm.yaml
pass "trails swarm reads the model as a pca_model CV (unbind mode), its CVs the model's projection"

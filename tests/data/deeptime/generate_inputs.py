#!/usr/bin/python3
"""Inputs of the deeptime known-answer tests (docs/analysis.md, "Known answers from deeptime").

Usage: generate_inputs.py OUTDIR NAME[,NAME...]     (names: dtraj, chain3, dw2d, feat50)

Runs make_datasets.py (numpy only, fixed PCG64 seeds) for the named data sets into OUTDIR and
checks every generated file against the sha256 in dataset_manifest.json, the manifest of the
run whose outputs deeptime was given. Files already present with the right sha256 are kept
(no regeneration).

dtraj and chain3 use only the PCG64 streams and arithmetic, and must match byte for byte.
dw2d and feat50 integrate the three-hole potential with numpy's exp, whose SIMD kernels differ in
the last bit between CPUs (this checkout's AVX2 host gives other bytes than the AVX-512 host the
manifest came from). For them a hash mismatch is accepted, with a warning, when the generated
manifest's summary statistics (fractions of frames per well, exact counts over 10^6 frames;
for feat50 also the mixing matrix' condition number to 1e-12) equal the reference ones; the
known-answer tests themselves then bound the difference to deeptime's results.
Exit status 1 with a message naming the file otherwise.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_datasets import sha256  # noqa: E402  (the generator's own file hash)
FILES = {
    "dtraj": ["dtraj.npy", "dtraj_C.npy", "dtraj_P.npy", "dtraj_pi.npy", "dtraj_blocks.npy"],
    "chain3": ["chain3.npy", "chain3_P.npy"],
    "dw2d": ["dw2d.npy"],
    "feat50": ["feat50.npy", "feat50_M.npy", "feat50_b.npy", "feat50_phi.npy",
               "feat50_latent_xy.npy"],
}


# Summary statistics compared when the bytes of a libm-dependent data set differ.
SUMMARY = {"dw2d": ["frac_left", "frac_upper_well"],
           "feat50": ["mixing_condition_number", "noise_autocorr_at_lag10_sorted_desc"]}


def close(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, names = sys.argv[1], sys.argv[2].split(",")
    for name in names:
        if name not in FILES:
            print(f"generate_inputs.py: unknown data set '{name}' (known: {', '.join(FILES)})",
                  file=sys.stderr)
            return 2
    expected = json.load(open(os.path.join(HERE, "dataset_manifest.json")))["files"]
    os.makedirs(outdir, exist_ok=True)

    def ok(f):
        p = os.path.join(outdir, f)
        return os.path.exists(p) and sha256(p) == expected[f]["sha256"]

    ref = json.load(open(os.path.join(HERE, "dataset_manifest.json")))

    def verdict(n):
        """'exact', 'summary' (libm-dependent bytes, equal statistics) or None."""
        wrong = [f for f in FILES[n] if not ok(f)]
        if not wrong:
            return "exact"
        mpath = os.path.join(outdir, "manifest.json")
        made = json.load(open(mpath)) if os.path.exists(mpath) else {}
        if (n in SUMMARY and n in made and
                all(os.path.exists(os.path.join(outdir, f)) for f in FILES[n]) and
                all(close(made[n][k], ref[n][k]) for k in SUMMARY[n])):
            return "summary"
        return None

    missing = [n for n in names if verdict(n) is None]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "make_datasets.py"), outdir,
                        "--only", ",".join(missing)], check=True, stdout=subprocess.DEVNULL)
    bad = []
    for n in names:
        v = verdict(n)
        if v == "summary":
            print(f"generate_inputs.py: warning: {n} differs from the reference bytes (numpy exp "
                  f"on this CPU); its statistics {', '.join(SUMMARY[n])} equal the reference",
                  file=sys.stderr)
        elif v is None:
            bad += [f for f in FILES[n] if not ok(f)]
    for f in bad:
        print(f"generate_inputs.py: {os.path.join(outdir, f)}: sha256 differs from "
              f"dataset_manifest.json ({expected[f]['sha256']}); the regenerated data is not "
              f"the data deeptime was run on", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

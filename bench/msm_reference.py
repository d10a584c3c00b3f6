#!/usr/bin/python3
"""Reference reversible MLE for bench/msm: a numpy/scipy implementation of the fixed-point
algorithm that deeptime documents for MaximumLikelihoodMSM(reversible=True), written from the
papers' description (Bowman et al., JCP 131, 124101 (2009); Prinz et al., JCP 134, 174105
(2011)), not from deeptime's code. It is NOT deeptime (which is not installed here); its
speed says nothing exact about deeptime's compiled kernel.

Usage: bench/msm_reference.py DIR [--tight]
  DIR holds the workload written by `bench_msm ... --export DIR` (counts_lag10.npy,
  active_set.npy, trails_T_lag10.npy, trails_pi_lag10.npy, trails_mle.json).
  Default run: deeptime's documented defaults, maxerr = 1e-8 on the Euclidean norm of the
  relative stationary-probability changes e_i = (p_i' - p_i) / (p_i' + p_i), maxiter = 10^6.
  --tight also runs Trails' stopping test (max_i |pi_i' - pi_i| < 1e-12, then < 1e-14).
Prints a markdown table: time, iterations, max |T_ref - T_trails|, and the KKT violation
max_ij |X_ij (c_i/x_i + c_j/x_j) - S_ij| / S_ij of each result (0 at the exact MLE).
"""
import json
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components


def largest_connected_set(C):
    """Largest strongly connected set of the graph i -> j where C_ij > 0 (ties: smallest id)."""
    A = sp.csr_matrix(C > 0)
    n_comp, labels = connected_components(A, directed=True, connection="strong")
    best = None
    for k in range(n_comp):
        members = np.flatnonzero(labels == k)
        if best is None or len(members) > len(best) or (len(members) == len(best) and members[0] < best[0]):
            best = members
    return best


def reversible_fixed_point(C, criterion, tol, maxiter=1_000_000):
    """X <- S / (c_i/x_i + c_j/x_j) on the nonzero pattern of S = C + C^T, from X = S."""
    S = sp.coo_matrix(C + C.T)
    row, col, s = S.row, S.col, S.data
    n = C.shape[0]
    c = C.sum(axis=1)
    x = np.bincount(row, weights=s, minlength=n)
    p = x / x.sum()
    for it in range(1, maxiter + 1):
        q = c / x
        X = s / (q[row] + q[col])
        x = np.bincount(row, weights=X, minlength=n)
        p_new = x / x.sum()
        if criterion == "deeptime":
            err = np.linalg.norm((p_new - p) / (p_new + p))
        else:
            err = np.max(np.abs(p_new - p))
        p = p_new
        if err < tol:
            break
    T = sp.csr_matrix((X / x[row], (row, col)), shape=(n, n)).toarray()
    return T, p, it, err < tol


def kkt_violation(C, T, p):
    S = C + C.T
    c = C.sum(axis=1)
    X = p[:, None] * T
    mask = S > 0
    V = X * (c[:, None] / p[:, None] + c[None, :] / p[None, :])
    return float(np.max(np.abs(V[mask] - S[mask]) / S[mask]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    tight = "--tight" in sys.argv[2:]
    C_full = np.load(f"{d}/counts_lag10.npy")
    active = np.load(f"{d}/active_set.npy")
    T_trails = np.load(f"{d}/trails_T_lag10.npy")
    trails = json.load(open(f"{d}/trails_mle.json"))
    t0 = time.perf_counter()
    ref_active = largest_connected_set(C_full)
    t_scc = time.perf_counter() - t0
    if not np.array_equal(ref_active, active):
        sys.exit("active sets differ between Trails and the reference")
    C = C_full[np.ix_(active, active)]
    pi_trails = np.load(f"{d}/trails_pi_lag10.npy").ravel()
    runs = [("deeptime", 1e-8, "maxerr 1e-8 (deeptime default: ‖e‖₂, e_i = Δp_i/(p_i'+p_i))")]
    if tight:
        runs.append(("maxabs", 1e-12, "Trails' test: max abs Δπ_i < 1e-12"))
        runs.append(("maxabs", 1e-14, "Trails' test, tighter: max abs Δπ_i < 1e-14"))
    print(f"workload: {d}, {len(active)} active states, lag {trails['lag']}, "
          f"largest SCC in {t_scc:.4f} s (scipy)")
    print("| solver | stopping test | time (s) | iterations | converged | max abs dT vs Trails | KKT violation |")
    print("|---|---|---|---|---|---|---|")
    print(f"| Trails (Newton + fixed-point test) | max abs dpi < 1e-12 | {trails['best_seconds']:.4f} | "
          f"{trails['newton_steps']} Newton + {trails['iterations'] - trails['newton_steps']} fixed point | "
          f"{trails['converged']} | 0 | {kkt_violation(C, T_trails, pi_trails):.2e} |")
    results = []
    for criterion, tol, label in runs:
        t0 = time.perf_counter()
        T, p, it, ok = reversible_fixed_point(C, criterion, tol)
        dt = time.perf_counter() - t0
        dT = float(np.max(np.abs(T - T_trails)))
        results.append({"criterion": criterion, "tol": tol, "seconds": dt, "iterations": it,
                        "converged": bool(ok), "max_abs_dT": dT, "kkt": kkt_violation(C, T, p),
                        "ratio_time_ref_over_trails": dt / trails["best_seconds"]})
        print(f"| numpy implementation of deeptime's algorithm (not deeptime) | {label} | {dt:.3f} | "
              f"{it} | {ok} | {dT:.2e} | {results[-1]['kkt']:.2e} |")
    for r in results:
        print(f"time ratio numpy-reference / Trails ({r['criterion']}, tol {r['tol']:g}): "
              f"{r['ratio_time_ref_over_trails']:.1f}x")
    json.dump(results, open(f"{d}/reference_mle.json", "w"), indent=1)


if __name__ == "__main__":
    main()

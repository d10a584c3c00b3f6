#!/usr/bin/env bash
# `trails path` and `trails log` on a built-in Müller–Brown campaign, checked against
# `trails export --cvs/--lineage` with Python: the start/end frames are the nearest frames, the
# path is lineage-connected through the lowest common ancestor (computed independently), batch
# mode, the error cases (exit 2, nothing written), the re-binned coverage table (exact, from the
# exported CSV), and that `trails log` never writes into the run directory. Then a tiny OpenMM
# campaign: the path trajectory opens with mdtraj and holds the stored frames.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
write_config cfg.yaml run
"$TRAILS" run cfg.yaml --iterations 5 > run.out || fail "run failed: $(cat run.out)"
export_run run out

# lineage_targets PREFIX FRAME: the CVs of the last exported frame and of frame FRAME of the
# iteration-0 walker its lineage starts from (one lineage tree), then those of frames 0:0:3 and
# 0:1:3 (separate roots: no common ancestor).
lineage_targets() {
  $PY - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1] + ".cvs.csv")))[1:]
parent = dict(csv.reader(open(sys.argv[1] + ".lineage.csv")))
def root(k):
    while parent.get(k):
        k = parent[k]
    return k
cv = {":".join(r[:3]): (r[3], r[4]) for r in rows}
end = ":".join(rows[-1][:3])
start = root(end).rsplit(":", 1)[0] + ":" + sys.argv[2]
print(",".join(cv[start]), ",".join(cv[end]), ",".join(cv["0:0:3"]), ",".join(cv["0:1:3"]))
PY
}
read -r START END LONE_A LONE_B < <(lineage_targets out 7)

check_path() {  # METADATA START END: nearest frames, lineage-connected, LCA, CVs and times
  $PY - "$@" <<'PY' || fail "path metadata $1"
import csv, json, sys
meta = json.load(open(sys.argv[1]))
start = [float(v) for v in sys.argv[2].split(",")]
end = [float(v) for v in sys.argv[3].split(",")]
rows = list(csv.reader(open("out.cvs.csv")))[1:]
keys = [":".join(r[:3]) for r in rows]
cvs = {k: [float(v) for v in r[3:]] for k, r in zip(keys, rows)}
parent = {k: (p or None) for k, p in csv.reader(open("out.lineage.csv")) if k != "key"}
def nearest(t):
    d = [sum((a - b) ** 2 for a, b in zip(cvs[k], t)) for k in keys]
    return keys[d.index(min(d))]
assert meta["start_frame"] == nearest(start), (meta["start_frame"], nearest(start))
assert meta["end_frame"] == nearest(end), (meta["end_frame"], nearest(end))
def lineage(k):
    out = [k]
    while parent.get(out[-1]):
        out.append(parent[out[-1]])
    return out
up, down = lineage(meta["start_frame"]), lineage(meta["end_frame"])
lca = next(k for k in down if k in up)
expect = up[: up.index(lca) + 1] + down[: down.index(lca)][::-1]
got = [f["key"] for f in meta["frames"]]
assert meta["lca"] == lca and got == expect, (meta["lca"], lca, got, expect)
assert got[0] == meta["start_frame"] and got[-1] == meta["end_frame"]
i = got.index(lca)
for a, b in zip(got[:i], got[1 : i + 1]):
    assert parent[a] == b, (a, b)  # start side: each frame's parent is the next
for a, b in zip(got[i:], got[i + 1 :]):
    assert parent[b] == a, (a, b)  # end side: each frame is the next one's parent
for f in meta["frames"]:
    it, w, fr = map(int, f["key"].split(":"))
    assert (f["iteration"], f["walker"], f["frame"]) == (it, w, fr)
    assert f["cvs"] == cvs[f["key"]], f
    assert f["parent"] == parent[f["key"]], f
    assert f["time"] == (fr + 1) * 10 * 0.0001 and f["time_ps"] is None, f
assert meta["time_unit"] == "reduced" and meta["trajectory"] is None
assert meta["n_frames"] == len(got)
print(len(got))
PY
}

"$TRAILS" path run --start "$START" --end "$END" --metadata p.json --plot p.png > path.out ||
  fail "trails path: $(cat path.out)"
n=$(check_path p.json "$START" "$END")
grep -q "via lowest common ancestor" path.out || fail "path summary line: $(cat path.out)"
head -c 8 p.png | od -An -tx1 | matches "89 50 4e 47 0d 0a 1a 0a" || fail "p.png is not a PNG"
pass "single path of $n frames: nearest frames, lineage-connected through the LCA"

# Negative values with and without '=', the default metadata name path.json.
mkdir -p here && (cd here && "$TRAILS" path ../run --start=-0.558,1.442 --end -0.558,1.442 > out.txt) ||
  fail "negative --start/--end values: $(cat here/out.txt)"
[ -f here/path.json ] || fail "default metadata path.json not written"
check_path here/path.json -0.558,1.442 -0.558,1.442 > /dev/null
pass "negative values parse; default metadata file path.json"

# Errors: exit 2 and nothing written.
listing() { ls -A | grep -vx -e out.txt -e err.txt | sort; }
before=$(listing)
expect_exit 2 "no common ancestor" "do not share a recorded lineage" \
  "$TRAILS" path run --start "$LONE_A" --end "$LONE_B" --metadata lone.json --plot lone.png
# The error names the frame nearest to --start within the end frame's lineage tree.
$PY - "$LONE_A" "$LONE_B" <<'PY' || fail "no-common-ancestor hint: $(cat err.txt)"
import csv, re, sys
err = open("err.txt").read()
hint = re.search(r"shares (\S+)'s lineage is (\S+) at", err)
assert hint, err
rows = list(csv.reader(open("out.cvs.csv")))[1:]
parent = {k: p for k, p in csv.reader(open("out.lineage.csv"))}
def root(k):
    while parent.get(k):
        k = parent[k]
    return k
start = [float(v) for v in sys.argv[1].split(",")]
end_root = root(hint.group(1))
tree = [r for r in rows if root(":".join(r[:3])) == end_root]
best = min(tree, key=lambda r: sum((float(a) - b) ** 2 for a, b in zip(r[3:], start)))
assert ":".join(best[:3]) == hint.group(2), (best, hint.group(2))
PY
expect_exit 2 "dimension mismatch" "--start: 3 value(s) given but the run's CV space has 2" \
  "$TRAILS" path run --start 1,2,3 --end 0,0 --metadata x.json
expect_exit 2 "bad number" "--end '0,abc': 'abc' is not a finite number" \
  "$TRAILS" path run --start 1,2 --end 0,abc
expect_exit 2 "built-in -o" "built-in (analytic) run" \
  "$TRAILS" path run --start "$START" --end "$END" -o p.xtc
expect_exit 2 "metadata into the store" "which its run store owns" \
  "$TRAILS" path run --start "$START" --end "$END" --metadata run/output.log
expect_exit 2 "no pairs and no ends" "give --start" "$TRAILS" path run
[ "$before" = "$(listing)" ] || fail "a failed trails path wrote files: $(listing)"
for f in lone.json lone.png x.json p.xtc; do [ ! -e "$f" ] || fail "$f written by a failed command"; done
pass "path errors exit 2 and write nothing"

# Batch: JSON (named) and CSV (unnamed) pairs files.
IFS=, read -r sx sy <<< "$START"
IFS=, read -r ex ey <<< "$END"
cat > pairs.json <<JSON
[{"name": "root to tip", "start": [$sx, $sy], "end": [$ex, $ey]},
 {"start": [$ex, $ey], "end": [$sx, $sy]}]
JSON
"$TRAILS" path run --pairs pairs.json --output-dir batch --plot batch.png > batch.out ||
  fail "batch: $(cat batch.out)"
[ -f batch/0000_root_to_tip.json ] && [ -f batch/path_0001.json ] || fail "batch names: $(ls batch)"
check_path batch/0000_root_to_tip.json "$START" "$END" > /dev/null
check_path batch/path_0001.json "$END" "$START" > /dev/null
$PY - <<'PY' || fail "paths_summary.json"
import json
s = json.load(open("batch/paths_summary.json"))
assert [e["name"] for e in s] == ["root to tip", ""], s
for e, f in zip(s, ["batch/0000_root_to_tip.json", "batch/path_0001.json"]):
    m = json.load(open(f))
    assert e["frames"] == len(m["frames"]) and e["start_frame"] == m["start_frame"], (e, m)
    assert e["end_frame"] == m["end_frame"] and e["lca"] == m["lca"] and e["output"] is None
    assert e["metadata"].endswith(f.split("/")[1])
a, b = (json.load(open(f)) for f in ["batch/0000_root_to_tip.json", "batch/path_0001.json"])
assert [x["key"] for x in a["frames"]] == [x["key"] for x in b["frames"]][::-1]
PY
printf 'start_0,start_1,end_0,end_1\n%s,%s\n' "$START" "$END" > pairs.csv
"$TRAILS" path run --pairs pairs.csv --output-dir batch_csv > /dev/null || fail "CSV batch"
cmp <($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' batch_csv/path_0000.json) \
    <($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' p.json) ||
  fail "CSV batch path differs from the single path"
printf '[{"start": [%s], "end": [%s]}, {"start": [%s], "end": [%s]}]\n' "$START" "$END" "$LONE_A" "$LONE_B" > bad_pairs.json
expect_exit 2 "batch with a pair of separate roots" "do not share a recorded lineage" \
  "$TRAILS" path run --pairs bad_pairs.json --output-dir bad_batch
[ ! -e bad_batch ] || fail "failed batch left $(ls bad_batch)"
expect_exit 2 "output over the pairs file" "is the pairs file" \
  "$TRAILS" path run --pairs pairs.json --output-dir . --plot pairs.json
pass "batch mode (JSON and CSV pairs, summary) and its errors"

# trails log: the exact table from the exported CSV, on a 10 x 7 grid of our own.
"$TRAILS" log run --n-bins 10,7 --min-values -1.5,-0.5 --max-values 1.2,2.0 > log.tsv ||
  fail "trails log: $(cat log.tsv)"
expected_log() {  # N1 N2 LO1 LO2 HI1 HI2
  $PY - "$@" <<'PY'
import csv, math, sys
n = [int(sys.argv[1]), int(sys.argv[2])]
lo = [float(sys.argv[3]), float(sys.argv[4])]
hi = [float(sys.argv[5]), float(sys.argv[6])]
rows = list(csv.reader(open("out.cvs.csv")))[1:]
seen, cum, out = set(), 0, []
for it in sorted({int(r[0]) for r in rows}):
    mine = [r for r in rows if int(r[0]) == it]
    before = len(seen)
    for r in mine:
        b = 0
        for k in range(2):
            idx = math.floor((float(r[3 + k]) - lo[k]) / ((hi[k] - lo[k]) / n[k]))
            b = b * n[k] + min(max(idx, 0), n[k] - 1)
        seen.add(b)
    cum += len(mine)
    total = n[0] * n[1]
    out.append(f"{it}\t{len(mine)}\t{cum}\t{len(seen) - before}\t{len(seen)}\t{total}\t{len(seen) / total:.8f}")
print("\n".join(out))
PY
}
diff <(grep -v '^#' log.tsv | tail -n +2) <(expected_log 10 7 -1.5 -0.5 1.2 2.0) ||
  fail "trails log table differs from the independent computation"
grep -q '^# source=rebin$' log.tsv && grep -q '^# n_bins=\[10,7\]$' log.tsv || fail "log header"
[ "$(grep -v '^#' log.tsv | head -1)" = "$(printf 'iteration\tframes\tcumulative_frames\tnew_bins\toccupied_bins\ttotal_bins\toccupied_fraction')" ] ||
  fail "log columns"
# Defaults: the run's grid (30 x 30 on its min/max); one --n-bins value for every axis.
"$TRAILS" log run > log_default.tsv
diff <(grep -v '^#' log_default.tsv | tail -n +2) <(expected_log 30 30 -1.5 -0.5 1.2 2.0) ||
  fail "trails log with the run's grid"
"$TRAILS" log run --n-bins 12 --min-values -2,-1 --max-values 2,3 -o log12.tsv > /dev/null
diff <(grep -v '^#' log12.tsv | tail -n +2) <(expected_log 12 12 -2 -1 2 3) || fail "--n-bins 12"
grep -q '^# grid_from=options$' log12.tsv || fail "grid_from header"
pass "trails log: exact per-iteration table (own grid, run grid, one --n-bins for all axes)"

log_sum=$(sha256sum run/output.log)
before=$(snapshot run)
expect_exit 2 "log into output.log" "which its run store owns" "$TRAILS" log run -o run/output.log
expect_exit 2 "log inside the run dir" "trails log never writes into a run" \
  "$TRAILS" log run -o run/coverage.tsv
expect_exit 2 "log bad grid" "--min-values/--max-values: axis 0" \
  "$TRAILS" log run --min-values 1,0 --max-values 0,1
expect_exit 2 "log bins per axis" "--n-bins: 3 value(s) given but the run has 2 CVs" \
  "$TRAILS" log run --n-bins 3,3,3
[ "$log_sum" = "$(sha256sum run/output.log)" ] && [ "$before" = "$(snapshot run)" ] ||
  fail "trails log changed the run directory"
pass "trails log refuses the run directory and leaves it untouched"

# A run still being written: path and log read only its committed iterations, and what they
# report for those never changes (the rows seen mid-run are a prefix of the final table).
start_live_campaign live 6
"$TRAILS" log live --n-bins 10,7 > live_mid.tsv || fail "trails log on a running campaign"
"$TRAILS" path live --start -0.558,1.442 --end -0.558,1.442 --metadata live_mid.json > /dev/null ||
  fail "trails path on a running campaign"
wait $live_pid || fail "live run: $(cat live.out)"
"$TRAILS" log live --n-bins 10,7 > live_end.tsv
mid_rows=$(grep -vc '^#' live_mid.tsv)
[ "$mid_rows" -ge 2 ] || fail "mid-run log has no rows"
cmp <(grep -v '^#' live_mid.tsv) <(grep -v '^#' live_end.tsv | head -n "$mid_rows") ||
  fail "the mid-run log is not a prefix of the final one"
pass "path and log on a campaign that is still running ($((mid_rows - 1)) of 6 iterations seen)"

# OpenMM: a path trajectory through the stored frames, checked with mdtraj.
alad_config alad.yaml alad 2
"$TRAILS" run alad.yaml > alad.out 2>&1 || fail "OpenMM run: $(cat alad.out)"
export_run alad alad
read -r ASTART AEND _ < <(lineage_targets alad 5)
"$TRAILS" path alad --start "$ASTART" --end "$AEND" -o apath.xtc --plot apath.png > apath.out ||
  fail "OpenMM path: $(cat apath.out)"
"$TRAILS" export alad --trajectory all.xtc > /dev/null
$PY - <<'PY' || fail "OpenMM path trajectory"
import csv, glob, json
import mdtraj, numpy as np
meta = json.load(open("apath.xtc.json"))
top = glob.glob("alad/prepared/*/topology.pdb")[0]
path = mdtraj.load("apath.xtc", top=top)
allf = mdtraj.load("all.xtc", top=top)
keys = [":".join(r[:3]) for r in list(csv.reader(open("alad.cvs.csv")))[1:]]
assert path.n_frames == meta["n_frames"] == len(meta["frames"]), (path.n_frames, meta["n_frames"])
for k, f in enumerate(meta["frames"]):
    assert np.array_equal(path.xyz[k], allf.xyz[keys.index(f["key"])]), f["key"]
    assert abs(f["time_ps"] - (f["frame"] + 1) * 20 * 0.002) < 1e-12, f
assert np.allclose(path.time, (np.arange(path.n_frames) + 1) * 20 * 0.002, atol=1e-3), path.time
assert meta["time_unit"] == "ps" and meta["trajectory"].endswith("apath.xtc")
PY
pass "OpenMM path: apath.xtc opens with mdtraj and holds the path's stored frames"

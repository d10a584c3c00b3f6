#!/usr/bin/env bash
# `trails msm`: known answers on tiny chains (closed form and a numpy cross-check), .npy header
# variants (versions 1/2, int8..int64, unsigned), text input, bad input exits 2 with file:line,
# --pcca on a three-well chain (and its usage errors), and --run on a built-in campaign.
source "$(dirname "$0")/lib/common.bash"

# A two-state chain with counts C = [[4, 2], [2, 4]] at lag 1: T = [[2/3, 1/3], [1/3, 2/3]],
# pi = [1/2, 1/2], lambda_2 = 1/3, t_2 = -1/ln(1/3).
printf '%s\n' 0 0 0 1 1 1 0 0 0 1 1 1 0 > two.txt
"$TRAILS" msm two.txt --lag 1 --its 1,2 --json two.json > two.out || fail "msm on two.txt: $(cat two.out)"
grep -q "2/2 states active" two.out || fail "summary line: $(cat two.out)"
/usr/bin/python3 - <<'PY' || fail "two-state known answer"
import json, math
j = json.load(open("two.json"))
assert j["active_set"] == [0, 1], j
T = j["transition_matrix"]
for (a, b) in [(T[0][0], 2/3), (T[0][1], 1/3), (T[1][0], 1/3), (T[1][1], 2/3)]:
    assert abs(a - b) < 1e-12, T
assert all(abs(p - 0.5) < 1e-12 for p in j["stationary_distribution"])
assert abs(j["timescales"][0] - (-1 / math.log(1 / 3))) < 1e-10, j["timescales"]
assert set(j["its"]) == {"1", "2"}
PY
pass "two-state chain: closed-form T, pi and timescale"

# --plot: the implied timescales as a complete PNG (dtrajs have no time unit: frames); the JSON
# is the same as without --plot.
"$TRAILS" msm two.txt --lag 1 --its 1,2 --plot two_its.png --json two_p.json > two_p.out ||
  fail "msm --plot: $(cat two_p.out)"
cmp two.json two_p.json || fail "--plot changed the model JSON"
/usr/bin/python3 - two_its.png <<'PY' || fail "two_its.png is not a complete 1000x560 PNG"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and b[-8:-4] == b"IEND"
assert struct.unpack(">II", b[16:24]) == (1000, 560)
PY
"$TRAILS" msm two.txt --lag 1 --its 1,2 --plot two_stdout.png > two_stdout.json 2> two_stdout.err ||
  fail "msm --plot with the model on stdout"
/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' two_stdout.json ||
  fail "--plot polluted the JSON on stdout"
grep -q "^wrote two_stdout.png$" two_stdout.err || fail "no wrote line on stderr: $(cat two_stdout.err)"
pass "--plot: ITS PNG, model JSON unchanged (stdout stays JSON)"

# A random 4-state chain (numpy, fixed seed) as .npy in several dtypes and as text; the
# non-reversible MLE must equal numpy's row-normalised counts and numpy's eigenvalues.
/usr/bin/python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
P = rng.random((4, 4)); P /= P.sum(1, keepdims=True)
x = [0]
for _ in range(5000):
    x.append(rng.choice(4, p=P[x[-1]]))
x = np.array(x)
np.save("a_i8.npy", x.astype("<i8"))
np.save("a_i4.npy", x.astype("<i4"))
np.save("a_u1.npy", x.astype("u1"))
np.save("a_i2.npy", x.astype("<i2"))
with open("a_v2.npy", "wb") as f:
    np.lib.format.write_array(f, x.astype("<u4"), version=(2, 0))
np.savetxt("a.txt", x, fmt="%d")
y = x[2500:]
np.save("b.npy", y)
C = np.zeros((4, 4))
for traj in (x, y):
    for a, b in zip(traj[:-3], traj[3:]):
        C[a, b] += 1
T = C / C.sum(1, keepdims=True)
ev = np.sort(np.abs(np.linalg.eigvals(T)))[::-1]
ts = -3 / np.log(ev[1:])
np.save("expect_T.npy", T); np.save("expect_ts.npy", ts)
np.save("bad_float.npy", x.astype(float))
np.save("bad_2d.npy", x[:10].reshape(2, 5))
np.save("bad_neg.npy", np.array([0, 1, -1, 2]))
np.save("bad_be.npy", x.astype(">i4"))
PY
for f in a_i8 a_i4 a_u1 a_i2 a_v2; do
  "$TRAILS" msm $f.npy b.npy --lag 3 --nonreversible --json $f.json > /dev/null || fail "msm on $f.npy"
done
"$TRAILS" msm a.txt b.npy --lag 3 --nonreversible --json txt.json > /dev/null
for f in a_i4 a_u1 a_i2 a_v2 txt; do cmp a_i8.json $f.json || fail "$f gives a different model than a_i8"; done
/usr/bin/python3 - <<'PY' || fail "non-reversible MLE vs numpy"
import json, numpy as np
j = json.load(open("a_i8.json"))
assert j["active_set"] == [0, 1, 2, 3] and j["n_trajectories"] == 2
assert np.max(np.abs(np.array(j["transition_matrix"]) - np.load("expect_T.npy"))) < 1e-12
assert np.max(np.abs(np.array(j["timescales"]) - np.load("expect_ts.npy"))) < 1e-8, (j["timescales"], np.load("expect_ts.npy"))
PY
pass "4-state chain: .npy (i8/i4/i2/u1/v2) and text agree; non-reversible MLE equals numpy"
"$TRAILS" msm a_i8.npy --lag 2 --json rev.json > /dev/null
/usr/bin/python3 - <<'PY' || fail "reversible MLE detailed balance"
import json, numpy as np
j = json.load(open("rev.json"))
T = np.array(j["transition_matrix"]); pi = np.array(j["stationary_distribution"])
F = pi[:, None] * T
assert np.max(np.abs(F - F.T)) < 1e-12 and abs(T.sum(1) - 1).max() < 1e-12
PY
pass "reversible MLE satisfies detailed balance"

# Bad input: exit 2, the file (and line) named, nothing written.
expect_bad() {  # message-substring args...
  local want=$1; shift
  set +e
  "$TRAILS" msm "$@" --json never.json > bad.out 2>&1
  local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "msm $*: exit $rc, expected 2: $(cat bad.out)"
  grep -qF -- "$want" bad.out || fail "msm $*: message lacks '$want': $(cat bad.out)"
  [ ! -e never.json ] || fail "msm $*: wrote output despite the error"
}
printf '%s\n' 0 1 x 2 > bad.txt
expect_bad "bad.txt:3: 'x' is not a state id" bad.txt --lag 1
printf '%s\n' 0 1 -4 > neg.txt
expect_bad "neg.txt:3: '-4' is not a state id" neg.txt --lag 1
expect_bad "bad_float.npy: dtype <f8 is not an integer array" bad_float.npy --lag 1
expect_bad "bad_2d.npy: shape (2, 5) is not one-dimensional" bad_2d.npy --lag 1
expect_bad "bad_neg.npy: element 2 = -1 is not a state id" bad_neg.npy --lag 1
expect_bad "bad_be.npy: big-endian dtype >i4" bad_be.npy --lag 1
expect_bad "missing.npy: no such file" missing.npy --lag 1
expect_bad "no transition at lag 20" two.txt --lag 20
expect_bad "--its: 'a' is not a lag" two.txt --lag 1 --its 1,a
printf 'NUMPY' > notnpy.npy
expect_bad "notnpy.npy: not an NPY file" notnpy.npy --lag 1
pass "bad input: exit 2 naming the file (and line), nothing written"

# --pcca: a three-well chain of six states, blocks {0,1}, {2,3}, {4,5} (free hops inside a
# block, 0.2% per step to another block): PCCA+ with 3 sets must find the blocks.
/usr/bin/python3 - <<'PY'
import random
rng = random.Random(7)
s, x = 0, []
for _ in range(80000):
    x.append(s)
    if rng.random() < 0.002:
        s = 2 * ((s // 2 + rng.choice([1, 2])) % 3) + rng.randrange(2)
    elif rng.random() < 0.5:
        s ^= 1
with open("wells.txt", "w") as f:
    f.write("\n".join(map(str, x)) + "\n")
PY
"$TRAILS" msm wells.txt --lag 2 --its 1,2 --pcca 3 --json wells.json > wells.out || fail "msm --pcca: $(cat wells.out)"
grep -q "3 PCCA+ sets, metastable populations \[" wells.out || fail "summary line lacks the populations: $(cat wells.out)"
/usr/bin/python3 - <<'PY' || fail "--pcca 3 on three wells"
import json
j = json.load(open("wells.json"))
p = j["pcca"]
assert p["n_sets"] == 3
assert sorted(sorted(s) for s in p["sets"]) == [[0, 1], [2, 3], [4, 5]], p["sets"]
assert len(p["memberships"]) == 6 and all(len(r) == 3 and abs(sum(r) - 1) < 1e-10 for r in p["memberships"])
assert all(j["active_set"][i] in p["sets"][a] for i, a in enumerate(p["assignments"])), p["assignments"]
pi = j["stationary_distribution"]
for s, pop in zip(p["sets"], p["populations"]):
    assert abs(pop - sum(pi[j["active_set"].index(i)] for i in s)) < 1e-12
assert abs(sum(p["populations"]) - 1) < 1e-12, p["populations"]
assert 2.5 < p["crispness"] <= 3 + 1e-9, p["crispness"]
C = p["coarse_transition_matrix"]
assert len(C) == 3 and all(abs(sum(r) - 1) < 1e-8 for r in C), C
M = p["mfpt"]
assert len(M) == 3 and all(len(r) == 3 for r in M)
for a in range(3):
    for b in range(3):
        if a == b:
            assert M[a][b] == 0, M
        else:  # about 1 / (0.002 / 2) = 1000 frames
            assert 300 < M[a][b] < 3000, M
assert set(j["its"]) == {"1", "2"}
PY
pass "--pcca 3 on three wells: the blocks, populations sum to 1, MFPT (frames) 0 on the diagonal"
"$TRAILS" msm wells.txt --lag 1 --pcca 3 > wells_stdout.json || fail "msm --pcca to stdout"
/usr/bin/python3 -c 'import json; assert json.load(open("wells_stdout.json"))["pcca"]["n_sets"] == 3' \
  || fail "--pcca to stdout"
expect_bad "--pcca 1: give at least 2 metastable sets" wells.txt --lag 1 --pcca 1
expect_bad "--pcca 6: the model has 6 active states; give --pcca K with 2 <= K < 6" wells.txt --lag 1 --pcca 6
expect_bad "--pcca 2: the model has 2 active states; PCCA+ needs at least 3" two.txt --lag 1 --pcca 2
expect_bad "--pcca needs a reversible model" wells.txt --lag 1 --pcca 3 --nonreversible
pass "--pcca: K < 2, K >= active states and --nonreversible exit 2 naming --pcca"

# --network: the PCCA+ sets as a picture (three coloured nodes with labelled arrows); the JSON is
# the same as without it, and without --pcca it is a usage error that writes nothing.
"$TRAILS" msm wells.txt --lag 2 --its 1,2 --pcca 3 --network wells_net.png --json wells_n.json \
  > wells_n.out || fail "msm --network: $(cat wells_n.out)"
cmp wells.json wells_n.json || fail "--network changed the model JSON"
grep -q "^wrote wells_net.png$" wells_n.out || fail "no wrote line: $(cat wells_n.out)"
/usr/bin/python3 - wells_net.png <<'PY' || fail "wells_net.png is not a complete network picture"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
assert im.size[0] == 900, im.size
colours = im.getcolors(maxcolors=1 << 20)
# Background, text, arrows and the antialiased edges of three filled nodes: many colours, and
# a sizeable share of the picture that is neither white nor black (the nodes).
filled = sum(n for n, c in colours if c != (255, 255, 255) and max(c) - min(c) > 40)
assert len(colours) > 50 and filled > 0.02 * im.size[0] * im.size[1], (len(colours), filled)
PY
expect_bad "--network draws the PCCA+ sets: give --pcca K as well" wells.txt --lag 1 --network n.png
[ ! -e n.png ] || fail "--network without --pcca wrote n.png"
pass "--network: PCCA+ network picture, model JSON unchanged, needs --pcca"

# --run: cluster a built-in campaign's CVs first.
write_config mb.yaml mb
"$TRAILS" run mb.yaml --iterations 3 > /dev/null
"$TRAILS" msm --run mb --clusters 12 --lag 2 --its 1,2,4 --json run.json > /dev/null || fail "msm --run"
/usr/bin/python3 - <<'PY' || fail "msm --run output"
import json
j = json.load(open("run.json"))
assert j["clustering"]["clusters"] == 12 and j["n_trajectories"] == 24, j["clustering"]
assert all(0 <= s < 12 for s in j["active_set"]) and len(j["active_set"]) >= 2
assert abs(sum(j["stationary_distribution"]) - 1) < 1e-12
assert set(j["its"]) == {"1", "2", "4"}
PY
"$TRAILS" msm --run mb --clusters 12 --lag 2 --its 1,2,4 --json run2.json > /dev/null
cmp run.json run2.json || fail "msm --run is not deterministic"
"$TRAILS" msm --run mb --clusters 12 --lag 2 --pcca 2 --json runp.json > /dev/null || fail "msm --run --pcca"
/usr/bin/python3 - <<'PY' || fail "msm --run --pcca output"
import json
j = json.load(open("runp.json"))
p = j["pcca"]
assert sorted(i for s in p["sets"] for i in s) == sorted(j["active_set"]), (p["sets"], j["active_set"])
assert abs(sum(p["populations"]) - 1) < 1e-12
PY
pass "msm --run: k-means on the run's CVs, deterministic, with --pcca"

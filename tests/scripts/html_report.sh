#!/usr/bin/env bash
# `trails report`: one self-contained HTML page of a run, checked in a real browser. A short
# built-in campaign with an in-loop MSM and one without (with a failed walker, in a directory
# whose name needs HTML escaping): the page embeds exactly the pictures `trails plot` and
# `trails analyze` draw (same bytes), no script; headless Chromium renders it to a PNG that is not
# blank, and a harness page (the report in an iframe) finds every <img> decoded — and a copy
# with one corrupted data: URI is found broken, so the check can fail. Bad input exits 2 and
# writes nothing.
source "$(dirname "$0")/lib/common.bash"

CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || fail "chromium is not installed (scripts/install-deps installs it)"

# chromium_run ARGS... : headless Chromium with a timeout (dbus warnings on stderr are ignored).
chromium_run() {
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --allow-file-access-from-files --user-data-dir="$WORK/chromium-profile" "$@" 2> chromium.err
}

# images_decoded REPORT.html... -> the harness's verdict lines, per report K (0-based) "K images
# N" and then "K decoded I WxH ALT" or "K BROKEN I ..." per <img>: each report is loaded in an
# iframe of one harness page, which writes every image's complete && naturalWidth > 0 into its
# DOM once everything has loaded; --dump-dom prints that DOM. One browser start for all.
images_decoded() {
  local frames="" report
  for report in "$@"; do
    frames+="<iframe src=\"file://$(readlink -f "$report")\" width=\"1200\" height=\"600\"></iframe>"
  done
  cat > harness.html <<HTML
<!DOCTYPE html>
<html><body><pre id="verdict">pending</pre>
$frames
<script>
window.addEventListener('load', function () {
  var out = document.getElementById('verdict'), lines = [];
  var frames = document.getElementsByTagName('iframe');
  for (var k = 0; k < frames.length; k++) {
    try {
      var images = frames[k].contentDocument.images;
      lines.push(k + ' images ' + images.length);
      for (var i = 0; i < images.length; i++) {
        var ok = images[i].complete && images[i].naturalWidth > 0;
        lines.push(k + (ok ? ' decoded ' : ' BROKEN ') + i + ' ' + images[i].naturalWidth + 'x' +
                   images[i].naturalHeight + ' ' + images[i].alt);
      }
    } catch (e) { lines.push(k + ' ERROR ' + e); }
  }
  out.textContent = lines.join('\n');
});
</script></body></html>
HTML
  chromium_run --dump-dom "file://$WORK/harness.html" > dom.html ||
    fail "chromium --dump-dom failed: $(tail -5 chromium.err)"
  /usr/bin/python3 - dom.html <<'PY'
import html, re, sys
m = re.search(r'<pre id="verdict">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else "ERROR no verdict in the dumped DOM")
PY
}

# page_check REPORT.html PICTURE_DIR... : the page is one file without script whose <img>s are
# exactly the PNGs in the directories (same bytes, each once); prints the number of images.
page_check() {
  /usr/bin/python3 - "$@" <<'PY'
import base64, os, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert "<script" not in page.lower() and "javascript:" not in page.lower(), "the page has script"
srcs = re.findall(r'<img src="([^"]*)"', page)
assert len(srcs) == page.count("<img"), "an <img> without a src first"
prefix = "data:image/png;base64,"
assert all(s.startswith(prefix) for s in srcs), [s[:40] for s in srcs]
embedded = sorted(base64.b64decode(s[len(prefix):], validate=True) for s in srcs)
drawn = sorted(open(os.path.join(d, f), "rb").read()
               for d in sys.argv[2:] for f in os.listdir(d) if f.endswith(".png"))
assert embedded == drawn, (len(embedded), len(drawn))
# nothing else is referenced: no src or href outside the page and its own anchors
others = [u for u in re.findall(r'(?:src|href)="([^"]*)"', page)
          if not u.startswith(prefix) and not u.startswith("#")]
assert not others, others
print(len(srcs))
PY
}

# not_blank SCREENSHOT.png W H: a PNG of that size with many colours (not one flat page).
not_blank() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
import numpy as np
from PIL import Image
im = Image.open(sys.argv[1])
assert im.format == "PNG" and im.size == (int(sys.argv[2]), int(sys.argv[3])), (im.format, im.size)
rgb = np.asarray(im.convert("RGB"), dtype=np.uint32).reshape(-1, 3)
colours = len(np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2]))
assert colours > 50, f"only {colours} colours: a blank page"
print(colours)
PY
}

# --- a campaign with an in-loop MSM ---
write_config mb.yaml mb
cat >> mb.yaml <<'YAML'
msm:
  enabled: true
  min_frames: 300
  n_microstates: 25
  lagtime: 2
  lagtimes: [1, 2, 5, 10]
  convergence_patience: 0
YAML
"$TRAILS" run mb.yaml --iterations 8 > run.out 2>&1 || fail "MSM campaign failed: $(cat run.out)"
# Every file of the run as it was (the directory's own mtime changes: report/ is created in it).
before=$(snapshot mb | grep -v '^ ')
"$TRAILS" report mb > report.out 2>&1 || fail "trails report failed: $(cat report.out)"
[ "$(snapshot mb | grep -v '^ ' | grep -v '^report')" = "$before" ] || fail "trails report changed the run"
[ "$(ls -A mb/report)" = "index.html" ] || fail "report/ holds more than index.html: $(ls -A mb/report)"
"$TRAILS" plot mb -o mbplots > /dev/null
"$TRAILS" analyze mb --outfile mbanalysis/convergence_report.png > /dev/null
n=$(page_check mb/report/index.html mbplots mbanalysis) || fail "the page's pictures"
[ "$n" -ge 6 ] || fail "only $n pictures on the MSM run's page"
grep -qx "wrote mb/report/index.html ($n pictures)" report.out || fail "report output: $(cat report.out)"
/usr/bin/python3 - mb/report/index.html mb "$TRAILS" <<'PY' || fail "the page's tables differ from the run"
import json, re, sqlite3, subprocess, sys
page, run, trails = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
status = json.loads(subprocess.check_output([trails, "status", run, "--json"]))
assert status["config_digest"] in page and status["engine"]["engine"] == "builtin"
assert "<td>builtin (potential muller_brown, overdamped dynamics at kT 15 (reduced units); a point of the 2-D CV space, dt 0.0001 reduced units)</td>" in page, "no engine row"
assert f'{status["iterations_committed"]} committed of {status["target_iterations"]}' in page
assert f'{status["frames"]["cumulative"]} in all' in page
db = sqlite3.connect(run + "/ledger.sqlite")
builds = [it for (it,) in db.execute("SELECT iteration FROM msm_builds ORDER BY iteration")]
table = page.split('<section id="msm">')[1].split("</section>")[0]
rows = re.findall(r"<tr><td>(\d+)</td>", table)
assert [int(r) for r in rows] == builds and builds, (rows, builds)
assert "MSM analysis of mb" in page and "No walker failed" in page
for caption in ("Coverage", "Implied timescales", "MSM convergence report"):
    assert f"<b>{caption}" in page, caption
PY
pass "MSM run: one page, no script, the $n pictures of plot and analyze, the ledger's builds"

# --temperature and --tau-ps reach trails plot and trails analyze, as their own options would.
"$TRAILS" report mb -o mbT --temperature 350 --tau-ps 2 > reportT.out 2>&1 ||
  fail "report --temperature --tau-ps: $(cat reportT.out)"
"$TRAILS" analyze mb --temperature 350 --tau-ps 2 --outfile mbT_an.png > mbT_an.txt
/usr/bin/python3 - mbT/index.html mbT_an.txt mb/report/index.html <<'PY' || fail "--temperature/--tau-ps"
import html, sys
page, plain = html.unescape(open(sys.argv[1]).read()), html.unescape(open(sys.argv[3]).read())
direct = [l for l in open(sys.argv[2]) if l.startswith(("free energy ", "time "))]
assert len(direct) == 2 and "at 350 K" in direct[0] and "(--tau-ps)" in direct[1], direct
for line in direct:
    assert line in page, line  # the page shows analyze's own lines for these options
assert "kT = 15 (reduced units)" in plain and "kJ/mol" not in plain and "(--tau-ps)" not in plain
assert "F = -kT ln p on the CV grid in reduced units at kT = 15" in plain  # the fes.png caption
assert "kJ/mol at T = 350 K" in page
assert page.count("<img") == plain.count("<img")
PY
expect_exit 2 "report --temperature -1" "--temperature -1 K must be positive" \
  "$TRAILS" report mb -o mbBad --temperature -1
expect_exit 2 "report --tau-ps 0" "--tau-ps 0 must be a positive segment length in ps" \
  "$TRAILS" report mb -o mbBad --tau-ps 0
[ ! -e mbBad ] || fail "a refused report wrote mbBad"
pass "report --temperature/--tau-ps: analyze's numbers at 350 K and tau 2 ps; bad values exit 2"

# A campaign still being written: the page shows its committed iterations only. The campaign
# is long enough (200 iterations) that the report ends before it on a loaded machine too; it is
# stopped afterwards (exit 143).
start_live_campaign live 200
"$TRAILS" report live -o livereport > live-report.out 2>&1 || fail "report mid-run: $(cat live-report.out)"
kill -TERM $live_pid
rc=0 && wait $live_pid || rc=$?
[ "$rc" -eq 143 ] || fail "live run: exit $rc after SIGTERM: $(cat live.out)"
/usr/bin/python3 - livereport/index.html <<'PY' || fail "the mid-run page"
import re, sys
page = open(sys.argv[1]).read()
m = re.search(r"(\d+) committed of 200", page)
assert m and 1 <= int(m.group(1)) < 200, m and m.group(0)
PY
pass "report on a running campaign: a page of its committed iterations"

# --- no MSM, a failed walker, a directory name that needs escaping ---
bad_start_config odd.yaml "odd<b>&run" 0.75
"$TRAILS" run odd.yaml > odd.out 2>&1 || fail "run with a tolerated failure: $(cat odd.out)"
"$TRAILS" report "odd<b>&run" -o oddreport > odd-report.out 2>&1 || fail "report without MSM: $(cat odd-report.out)"
[ ! -e "odd<b>&run/report" ] || fail "-o given, yet RUN_DIR/report was written"
grep -q "trails analyze made no report" odd-report.out && fail "analyze draws the histogram free energy without an MSM: $(cat odd-report.out)"
"$TRAILS" plot "odd<b>&run" -o oddplots > /dev/null
"$TRAILS" analyze "odd<b>&run" --outfile oddanalysis/fes_histogram.png > /dev/null
m=$(page_check oddreport/index.html oddplots oddanalysis) || fail "the no-MSM page's pictures"
/usr/bin/python3 - oddreport/index.html "odd<b>&run" <<'PY' || fail "the no-MSM page"
import sqlite3, sys
page, run = open(sys.argv[1]).read(), sys.argv[2]
def escape(t):  # html_page.h's entities
    for c, e in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;")):
        t = t.replace(c, e)
    return t
assert "odd<b>" not in page and "odd&lt;b&gt;&amp;run" in page, "the run's name is not escaped"
assert "No MSM built: the in-loop MSM is off" in page
assert "<b>Histogram free-energy surface (trails analyze, no MSM model)" in page, "analyze's picture"
errors = [(it, w, e) for it, w, e in sqlite3.connect(run + "/ledger.sqlite").execute(
    "SELECT iteration, walker, error FROM walkers WHERE ok = 0 ORDER BY iteration, walker")]
assert errors and errors[0][:2] == (0, 1), errors
for it, w, e in errors:
    assert f"<summary>iteration {it}, walker {w}</summary>\n<pre>{escape(e)}</pre>" in page, e
PY
pass "no MSM: the page says so, shows the failed walker's log, escapes the run's name; $m pictures"

# --- in the browser: rendered, every image decoded; a corrupted copy is caught ---
chromium_run --screenshot="$WORK/shot.png" --window-size=1200,3000 "file://$WORK/mb/report/index.html" ||
  fail "chromium --screenshot failed: $(tail -5 chromium.err)"
colours=$(not_blank shot.png 1200 3000) || fail "the screenshot is blank or not 1200x3000"
/usr/bin/python3 -c 'from PIL import Image; Image.new("RGB", (1200, 3000), "white").save("white.png")'
! not_blank white.png 1200 3000 > /dev/null 2>&1 || fail "a white page passed the blank-page check"
/usr/bin/python3 - mb/report/index.html broken.html <<'PY'
import sys
page = open(sys.argv[1]).read()
sig = "data:image/png;base64,iVBORw0KGgo"  # the PNG signature, base64
i = page.index(sig, page.index(sig) + 1)  # the second picture
open(sys.argv[2], "w").write(page[:i] + "data:image/png;base64,AAAAAAAAAAAA" + page[i + len(sig):])
PY
verdict=$(images_decoded mb/report/index.html broken.html oddreport/index.html)
echo "$verdict" | matches -x "0 images $n" && echo "$verdict" | matches -x "1 images $n" &&
  echo "$verdict" | matches -x "2 images $m" || fail "the harness saw other images: $verdict"
[ "$(echo "$verdict" | grep -c '^0 decoded ')" -eq "$n" ] || fail "broken images on the MSM page: $verdict"
[ "$(echo "$verdict" | grep -c '^2 decoded ')" -eq "$m" ] || fail "broken images on the no-MSM page: $verdict"
[ "$(echo "$verdict" | grep -c '^1 BROKEN ')" -eq 1 ] && echo "$verdict" | matches '^1 BROKEN 1 ' ||
  fail "the harness did not catch the corrupted image: $verdict"
pass "chromium: the page renders ($colours colours), $n + $m images decoded, a corrupted one caught"

# --- bad input: exit 2, nothing written ---
mkdir notarun
expect_exit 2 "report of a directory that is not a run" "notarun" "$TRAILS" report notarun
[ -z "$(ls -A notarun)" ] || fail "report wrote into a directory that is not a run"
# A store without a committed iteration (a crash in iteration 0 leaves one; a failure does not).
write_config stop.yaml stop
TRAILS_CRASH_AT=md:0 "$TRAILS" run stop.yaml > stop.out 2>&1 && fail "the crash point did not stop the run"
[ -f stop/ledger.sqlite ] || fail "the crash left no store: $(cat stop.out)"
expect_exit 2 "report of a run without a committed iteration" "no committed iteration" \
  "$TRAILS" report stop
[ ! -e stop/report ] || fail "report wrote into a run without a committed iteration"
touch afile
expect_exit 2 "report -o a file" "is not a directory" "$TRAILS" report mb -o afile
expect_exit 2 "report -o into the store" "run store owns" "$TRAILS" report mb -o mb/shards
pass "bad input exits 2 and writes nothing"

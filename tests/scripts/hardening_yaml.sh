#!/usr/bin/env bash
# YAML alias bombs ("billion laughs": nested &anchor/*alias lists, under 1 kB, that expand to
# 10^9 values) are rejected at parse time with exit 2 and the file:line of the node that crosses
# the bound, wherever they sit: inside a mapping-typed key such as
# msm.convergence_criteria.<name> or a cvs: entry (which used to be walked until std::bad_alloc, exit 134) or
# under an ordinary key. A memory limit turns a regression into a failure, not a swapping machine
# (docs/reliability.md, "Inputs and outputs").
source "$(dirname "$0")/lib/common.bash"
BOMBS="$ROOT/tests/data/yaml-bombs"

for bomb in bomb-criteria bomb-cvs bomb-plain; do
  cp "$BOMBS/$bomb.yaml" .
  for cmd in check run; do
    set +e
    (ulimit -v 2000000; timeout 120 "$TRAILS" "$cmd" "$bomb.yaml") > out.txt 2> err.txt
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$cmd $bomb: exit $rc, expected 2 ($(tail -c 400 err.txt))"
    grep -qF "$bomb.yaml:" err.txt || fail "$cmd $bomb: no file:line in: $(cat err.txt)"
    grep -qF "anchors and aliases" err.txt || fail "$cmd $bomb: message: $(cat err.txt)"
    [ ! -e out ] || fail "$cmd $bomb: created its outdir"
  done
done
pass "alias bombs: exit 2 with file:line, nothing created"

# An ordinary document with an anchor and an alias still loads.
write_config good.yaml run
sed -i 's/^n_bins: \[30, 30\]$/n_bins: [\&n 30, *n]/' good.yaml
grep -qF 'n_bins: [&n 30, *n]' good.yaml || fail "test set-up: n_bins line not found"
"$TRAILS" check good.yaml > /dev/null || fail "a document with an anchor and an alias is refused"
pass "a document with anchors and aliases still loads"

# An alias of a node that contains it (`&q {its: *q}`) made a value contain itself: every
# conversion recursed until the stack overflowed (exit 139). Exit 2 with file:line:column,
# nothing created, for a campaign's convergence_criteria and a swarm's convergence: block.
write_config cyc.yaml cyc_out
printf 'msm:\n  enabled: true\n  convergence_criteria: &q {its: *q}\n' >> cyc.yaml
source "$ROOT/tests/scripts/lib/swarm.bash"
swarm_config cyc_swarm.yaml cyc_swarm_out
sed -i 's/^  distance_to_target: .*/  distance_to_target: \&d {x: *d}/' cyc_swarm.yaml
grep -qF '&d {x: *d}' cyc_swarm.yaml || fail "test set-up: convergence line not found"
for c in "check cyc.yaml" "run cyc.yaml" "check cyc_swarm.yaml" "swarm cyc_swarm.yaml"; do
  file=${c#* }
  # shellcheck disable=SC2086  # the command and its argument, split on purpose
  expect_exit 2 "trails $c (self-referencing alias)" "contains it" "$TRAILS" $c
  grep -qE "$file:[0-9]+:[0-9]+" err.txt out.txt || fail "trails $c: no file:line:column: $(cat err.txt)"
  [ ! -e cyc_out ] && [ ! -e cyc_swarm_out ] || fail "trails $c: created its outdir"
done
pass "a self-referencing alias: exit 2 with file:line:column, nothing created"

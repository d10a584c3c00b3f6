#!/usr/bin/env bash
# A stop signal during an iteration (docs/reliability.md, "Signals, child processes and
# concurrent runs"): the run stops at once, ending the walkers still running with their whole
# process trees (a hung program, a setsid grandchild), keeps the walkers that had finished so
# that --resume does not run them again, and the resumed run is bitwise the uninterrupted one.
# The scenario is tests/scripts/lib/stop_scenario.bash; the walkers run in the driver's process
# here (stop_out_of_process.sh runs them in worker processes and MPI ranks).
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/stop_scenario.bash"

stop_reference
pass "a walker's setsid grandchild ends with the walker"

config_for stop.yaml stop
stop_and_resume stop itself

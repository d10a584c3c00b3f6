#!/usr/bin/env bash
# make bench: the orchestration-overhead benchmark (see bench/overhead.cpp). Prints ratio tables.
set -euo pipefail
build=${1:-build}
"$build/bench/bench_overhead" "${ITERATIONS:-1000}" "${COST_ITERATIONS:-15}"

#!/usr/bin/env bash
# `make demo-mb`: a 30-iteration density-spawner campaign on the Müller–Brown potential with the
# built-in engine (a few seconds), then its per-iteration table and pictures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../run-example.sh" "$here" muller-brown "Coverage picture" "${1:-build/trails}"

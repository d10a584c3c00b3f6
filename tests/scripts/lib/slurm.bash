# Helpers of the SLURM tests (sourced after common.bash): the private cluster of
# scripts/slurm-local, found through SLURM_CONF (the ctest fixture slurm_local sets it; run by
# hand: eval "$(bash scripts/slurm-local start /tmp/trails-slurm)").
[ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] ||
  fail "SLURM_CONF names no cluster: start one with scripts/slurm-local start DIR"
sinfo -h -o %T > /dev/null 2>&1 || fail "the SLURM cluster of $SLURM_CONF does not answer"

# with_slurm FILE JOB_NAME [extra execution lines]: the slurm backend, polled quickly.
with_slurm() {
  with_execution "$1" "backend: slurm" "job_name: $2" "poll_interval: 0.2" "marker_grace: 3" \
    "submit_retry_interval: 0.1" "walltime: 00:05:00" "${@:3}"
}

# same_as_serial RUN_DIR PREFIX WHAT: CVs and lineage exported byte-identical to serial's.
same_as_serial() {
  export_run "$1" "$2"
  cmp s.cvs.csv "$2.cvs.csv" || fail "$3: CV export differs from serial"
  cmp s.lineage.csv "$2.lineage.csv" || fail "$3: lineage export differs from serial"
}

# The driver's summary lines: "slurm: iteration N: W walkers in E array task(s), ..."
summaries() { grep -E "slurm: iteration [0-9]+:" "$1"; }

# Cancels every job of ours still known (by the job names the tests use), on any exit.
cancel_ours() { scancel --name "$1" > /dev/null 2>&1 || true; }

# serial_reference ITERATIONS: the same campaign serial, exported to s.cvs.csv / s.lineage.csv.
serial_reference() {
  MAX_WORKERS=1 write_config serial.yaml serial
  "$TRAILS" run serial.yaml --iterations "$1" > /dev/null
  export_run serial s
}

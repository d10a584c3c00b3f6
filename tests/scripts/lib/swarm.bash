# Shared helper of the swarm shell tests (sourced after common.bash; not a test itself).
# swarm_config FILE WORKDIR [extra pathgennie lines...]: the Müller–Brown swarm example with its
# workdir replaced and the extra lines added to the pathgennie block (after `seed:`).
swarm_config() {
  local file=$1 workdir=$2
  shift 2
  sed -e "s#^workdir: .*#workdir: $workdir#" "$ROOT/examples/swarm-muller-brown/input.yaml" > "$file"
  local line
  for line in "$@"; do sed -i "s#^  seed: \(.*\)#  seed: \1\n  $line#" "$file"; done
}
# swarm_small FILE WORKDIR [execution lines...]: the example cut to 30 cycles (for comparisons,
# not convergence), with the lines as its execution: block.
swarm_small() {
  local file=$1 workdir=$2 line
  sed -e "s#^workdir: .*#workdir: $workdir#" -e "s#^  max_cycle: .*#  max_cycle: 30#" \
    "$ROOT/examples/swarm-muller-brown/input.yaml" > "$file"
  shift 2
  [ $# -eq 0 ] || printf 'execution:\n' >> "$file"
  for line in "$@"; do printf '  %s\n' "$line" >> "$file"; done
}
# swarm_fingerprint WORKDIR [CHAIN]: what must match bit for bit: metrics without the wall-time
# column, and the reactive path.
swarm_fingerprint() {
  cut -d, -f1-10 "$1/path_${2:-0}/metrics.csv"
  cat "$1/path_${2:-0}/reactive_path.csv"
}
# integrate_yaml SWARM_FILE: writes integrate.yaml, the campaign YAML that `trails integrate` (a
# command-engine segment program running the built-in engine) reads the potential from: the
# swarm's engine block.
integrate_yaml() {
  cat > integrate.yaml <<'YAML'
outdir: unused
n_bins: [2, 2]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
spawning: {walker: 1, step: 20, stride: 10}
YAML
  sed -n '/^engine:/,$p' "$1" >> integrate.yaml
}

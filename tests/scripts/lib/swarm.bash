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

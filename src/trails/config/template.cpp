// The annotated template: the text of examples/template.yaml (kept byte-identical by a test).
#include "trails/config/template.h"

namespace trails::config {

std::string_view campaign_template() {
  static constexpr std::string_view text =
      R"(# Trails campaign configuration (written by `trails init`).
#
# This template runs an adaptive campaign on the built-in Muller-Brown potential: a 2-D
# analytic surface with three minima, so a whole campaign runs in seconds and its results can be
# checked exactly. Every key is explained below; docs/configuration.md lists all keys, their
# defaults, and which features this build supports. Trails is strict: an unknown key, a value of
# the wrong type or a broken cross-field rule is an error naming the file, line and key.
# Relative paths are resolved against the directory of this file.

# Where the run directory (ledger, shards, output.log) is created.
outdir: runs/muller-brown
# Campaign seed: every random stream (spawning, per-walker engine seeds) derives from it.
random_seed: 42
# Total iteration target when the command line does not give one.
iterations: 30

# The CV space and its grid. In fixed space mode a built-in run's CVs are the particle's
# coordinates, so there is one entry per coordinate (Muller-Brown: x and y).
# Bins per CV axis; the adaptive resolution check may refine them up to resolution_max_bins.
n_bins: [30, 30]
# Lower edge of the grid on each axis (points outside the grid fall into the edge bins).
min_values: [-1.5, -0.5]
# Upper edge of the grid on each axis.
max_values: [1.2, 2.0]
# fixed: CVs come straight from the engine (pca | tica: a learned space, docs/analysis.md).
space_mode: fixed

system:
  # Start point of every walker in the first iteration (here the deepest Muller-Brown minimum).
  # Give a list of points instead, one per walker, to start them apart.
  start: [-0.558, 1.442]

engine:
  # builtin: analytic potentials integrated inside Trails; openmm: molecules through OpenMM
  # (examples/alanine-dipeptide); gromacs: gmx grompp + mdrun; amber: pmemd/sander; command:
  # your own program per segment (docs/engines.md).
  md_engine: builtin
  # double_well (1-D), muller_brown (2-D), three_well (2-D), harmonic (n-D), biased_walk (1-D).
  potential: muller_brown
  # overdamped (Brownian dynamics, mobility 1/friction) or langevin (uses mass and friction).
  integrator: overdamped
  # Thermal energy in the potential's energy units; 15 lets walkers cross Muller-Brown barriers.
  kT: 15.0
  # Integration time step (reduced time units); small because the surface is steep.
  dt: 0.0001
  # Friction coefficient gamma (1/time).
  friction: 1.0
  # Extra milliseconds each segment sleeps, to mimic costly MD in orchestration tests (0 = off).
  synthetic_cost_ms: 0

spawning:
  # Walkers (short MD segments) per iteration.
  walker: 16
  # MD steps per walker per iteration.
  step: 500
  # Record a frame every `stride` steps (step/stride = 50 frames per walker).
  stride: 10
  # Walkers run at the same time (does not change results).
  max_workers: 2
  # density: restart from frames in the least-visited grid bins.
  spawn_scheme: density
  # hard: least-populated bins first; soft: bins drawn with probability 1/population.
  spawn_type: hard
  # Hard spawning prefers bins not chosen in the last this-many iterations.
  recent_density_window: 5
  # Stop after this many iterations without new bins at full resolution (0 = never stop early).
  convergence_patience: 0
  # Refine the grid (x1.15 per axis) after this many iterations of unchanged occupancy.
  resolution_check_patience: 5
  # Upper limit on bins per axis when refining.
  resolution_max_bins: 150

msm:
  # In-loop Markov state model (docs/analysis.md); true builds one per iteration, overlapped
  # with the next iteration's MD, and can stop the campaign when it converges.
  enabled: false
  # Microstates: k-means centres in the CV space.
  n_microstates: 100
  # Lag time in frames (below step/stride, one walker segment).
  lagtime: 10
  # mle (reversible maximum likelihood) or bayesian (adds the timescales' standard deviations).
  estimator: mle
  # PCCA+ metastable sets per build (null: none).
  n_metastable: null
)";
  return text;
}

}  // namespace trails::config

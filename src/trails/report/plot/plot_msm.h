// `trails plot` pictures of a run's kinetics and convergence, drawn with gnuplot:
//   convergence.png  exploration fraction, occupied bins and the slowest MSM timescale per
//                    iteration, one panel each over a shared iteration axis (every run)
// and, for runs with in-loop MSM builds (msm.enabled):
//   its.png          implied timescales vs lag of the latest build (msm.lagtimes), log scale,
//                    the model's Bayesian σ as error bars when msm.estimator is bayesian
//   timescales.png   the timescales of every build vs iteration (± σ bands) and VAMP-2
//   network.png      the PCCA+ network of the latest build with msm.n_metastable, with
//                    network.json and network.txt (its table: populations, coarse transition
//                    matrix, MFPTs between the sets)
// (The MSM's free-energy surface on the CV grid is fes_msm.png, plot_fes.h.)
// Times are physical (fs/ps/ns/µs) where engine.dt gives them (time_axis.h), else frames.
// Returns the paths written. InputError if gnuplot fails.
#pragma once

#include <filesystem>
#include <vector>

#include "trails/store/run_store.h"

namespace trails::report {

// Every file plot_msm_builds may write (for the caller's check of its outputs).
const std::vector<const char*>& msm_plot_files();

std::vector<std::filesystem::path> plot_msm_builds(const store::RunStore& store,
                                                   const std::filesystem::path& out_dir);

}  // namespace trails::report

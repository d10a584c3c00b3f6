// `trails plot` pictures of the in-loop MSM (runs with msm.enabled), drawn with gnuplot:
//   its.png          implied timescales vs lag of the latest build (msm.lagtimes), log scale
//   timescales.png   the timescales of every build vs iteration (their convergence) and VAMP-2
//   free_energy.png  F_i = -ln pi_i (kT units, min 0) of the latest build's active microstates,
//                    at their centres' cv_0 (1-D CV spaces) or as coloured centres (2-D)
// Returns the paths written; nothing when there are no builds. InputError if gnuplot fails.
#pragma once

#include <filesystem>
#include <vector>

#include "trails/report/msm_builds.h"

namespace trails::report {

std::vector<std::filesystem::path> plot_msm_builds(const std::vector<CheckedMsmBuild>& builds,
                                                   int cv_dim,
                                                   const std::filesystem::path& out_dir);

}  // namespace trails::report

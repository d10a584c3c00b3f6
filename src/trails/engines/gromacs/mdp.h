// The campaign's MDP: Trails-MD's template (system.system_file, Python str.format replacement
// fields {steps} {dt} {temp} {stride} {pressure} {pcoupl} {tau_p} {gen_vel}) or its built-in MDP,
// then the keys Trails sets itself so that one grompp serves every walker (docs/engines.md,
// "GROMACS"): TRR output of positions and velocities at sentinel intervals and an ld-seed
// sentinel, which the per-walker run input patch replaces (tpr_patch.h); gen-vel = no (Trails
// draws start velocities itself); continuation = no; no XTC.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "trails/config/engine_spec.h"

namespace trails::engines::gromacs {

// Values grompp writes once into the campaign's run input and the patch finds again. Each must
// occur exactly once in the run input's parameter block (checked).
inline constexpr std::int64_t kLdSeedSentinel = 3141592653589793238;
inline constexpr std::int32_t kNstxoutSentinel = 1234567891;
inline constexpr std::int32_t kNstvoutSentinel = 1234567893;

// Renders the template (or the built-in MDP) with the spec's values. Throws ConfigError naming
// the template file and line for a replacement field it does not know or a brace left open.
std::string render_mdp(const config::GromacsSpec& spec);

// `mdp` with every line that sets one of Trails' keys commented out ("; set by Trails: ") and
// Trails' settings appended. Key names compare as GROMACS does ('_' and '-' alike, any case).
std::string with_trails_settings(const std::string& mdp);

}  // namespace trails::engines::gromacs

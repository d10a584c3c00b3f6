// Amber's units (docs/engines.md, "Amber").
#pragma once

#include "trails/core/units.h"

namespace trails::engines::amber {

using core::kAngstromPerNm;
// Amber stores velocities in Å per (1/20.455) ps; the files' scale_factor turns them into Å/ps.
inline constexpr double kAmberVelocityScale = 20.455;

}  // namespace trails::engines::amber

// Where the Trails source tree (its share/, docs/, examples/) lives for this build. Kept out of
// compile definitions so that every other translation unit compiles to the same object in any
// checkout (ccache shares them between worktrees).
#pragma once

#include <filesystem>

namespace trails::core {

std::filesystem::path source_dir();

}  // namespace trails::core

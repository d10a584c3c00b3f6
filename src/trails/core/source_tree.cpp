#include "trails/core/source_tree.h"

namespace trails::core {

std::filesystem::path source_dir() { return TRAILS_SOURCE_DIR; }

}  // namespace trails::core

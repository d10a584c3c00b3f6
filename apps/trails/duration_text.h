// Durations as the console prints them (`trails run`'s progress line, `trails swarm`'s summary).
#pragma once

#include <string>

namespace trails::app {

// 45 s, 2 min 05 s, 1 h 02 min (rounded to the second); "?" when unknown (NaN, negative).
std::string duration_text(double s);

}  // namespace trails::app

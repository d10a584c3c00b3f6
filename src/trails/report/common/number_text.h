// Numbers as the text outputs write them (docs/file-formats.md): finite values in full, the
// non-finite ones as a fixed word that every reader of the format parses.
#pragma once

#include <string>

namespace trails::report {

// The shortest text that reads back as the same double; "NaN" for NaN and ±inf (gnuplot data,
// kinetics tables).
std::string round_trip_or_nan(double v);
// %.17g; "nan" for NaN and ±inf (the swarm's CSV outputs).
std::string digits17_or_nan(double v);

}  // namespace trails::report

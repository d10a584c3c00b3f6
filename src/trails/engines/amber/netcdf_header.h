// The header of a NetCDF classic file (CDF-1, 64-bit offset CDF-2, CDF-5), checked before the
// NetCDF library opens it (amber_netcdf.cpp). libnetcdf allocates, and zeroes, every count its
// header declares (dimensions, attributes, variables, names, attribute values) before it knows
// whether the file holds them, so a damaged 100-byte file could ask for gigabytes
// (docs/reliability.md, "Fuzzing"). This walk reads the header as the format's grammar says and
// refuses a count whose entries cannot fit in the bytes left in the file, a wrong tag, an unknown
// type or a dimension id out of range: core::InputError naming the file and the byte offset.
// Reads the header only (a stream, not the whole file). Files that are not classic NetCDF (the
// HDF5-based NetCDF-4 format) are left to the library.
#pragma once

#include <filesystem>

namespace trails::engines::amber {

void check_classic_header(const std::filesystem::path& file);

}  // namespace trails::engines::amber

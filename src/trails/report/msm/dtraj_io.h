// Discrete trajectories for `trails msm`: a .npy file holding a 1-D integer array, or a text file
// with one state id per line (blank lines and lines starting with # are skipped). State ids are
// non-negative integers that fit an int. Bad input is an InputError naming the file (and the
// line, for text) and what is wrong; the NPY container is read by trails/core/npy.h.
#pragma once

#include <filesystem>
#include <vector>

namespace trails::report {

std::vector<int> read_dtraj(const std::filesystem::path& file);
std::vector<int> read_npy_dtraj(const std::filesystem::path& file);
std::vector<int> read_text_dtraj(const std::filesystem::path& file);

}  // namespace trails::report

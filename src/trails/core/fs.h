// Durable file operations used by the run store's commit protocol: write to a temporary name,
// fsync, rename, fsync the directory. Throws StoreError naming the path on any failure.
#pragma once

#include <filesystem>
#include <string_view>

namespace trails::core {

void fsync_file(const std::filesystem::path& path);
void fsync_directory(const std::filesystem::path& dir);
// Writes `content` to `path` atomically (tmp + fsync + rename + fsync dir).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);
// rename(2) then fsync of the target's directory.
void rename_durable(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace trails::core

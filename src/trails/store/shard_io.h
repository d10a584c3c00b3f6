// Whole-file I/O and checksums for run-store shards (private to src/trails/store/).
// The shard checksum is CRC-32 (zlib/IEEE 802.3, as Python's zlib.crc32) over every byte of
// the file, written as 8 lowercase hex digits; the writer streams the fsynced file back from the
// page cache to compute it. (zlib's CRC runs at several GB/s, FNV-1a at under one.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace trails::store::detail {

std::string shard_checksum(std::span<const std::byte> bytes);

// Creates/truncates `path`, writes all bytes and fsyncs the file (not its directory).
// Throws StoreError naming the path.
void write_file_synced(const std::filesystem::path& path, std::span<const std::byte> bytes);
// Checksum and size of a file on disk, streamed through a small buffer; throws StoreError.
struct FileChecksum {
  std::string checksum;
  std::int64_t bytes = 0;
};
FileChecksum checksum_file(const std::filesystem::path& path);

}  // namespace trails::store::detail

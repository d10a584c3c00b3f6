#include "trails/store/shard_io.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "trails/core/error.h"

namespace trails::store::detail {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw core::StoreError(what + " " + path.string() + ": " + std::strerror(err));
}

// Closes on scope exit so that every error path releases the descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

std::string hex32(uLong crc) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08lx", static_cast<unsigned long>(crc & 0xffffffffUL));
  return buf;
}

}  // namespace

std::string shard_checksum(std::span<const std::byte> bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  std::size_t left = bytes.size();
  while (left > 0) {  // crc32() takes a uInt length
    const auto n = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return hex32(crc);
}

void write_file_synced(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (f.fd < 0) {
    fail("cannot create", path, errno);
  }
  const std::byte* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(f.fd, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail("cannot write", path, errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(f.fd) != 0) {
    fail("fsync failed for", path, errno);
  }
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) {
    fail("cannot close", path, errno);
  }
}

FileChecksum checksum_file(const std::filesystem::path& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    fail("cannot open", path, errno);
  }
  constexpr std::size_t kBuffer = 1 << 20;
  const std::unique_ptr<Bytef[]> buf(new Bytef[kBuffer]);  // uninitialised on purpose
  uLong crc = crc32(0L, Z_NULL, 0);
  FileChecksum out;
  for (;;) {
    const ssize_t n = ::read(f.fd, buf.get(), kBuffer);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail("cannot read", path, errno);
    }
    if (n == 0) {
      break;
    }
    crc = crc32(crc, buf.get(), static_cast<uInt>(n));
    out.bytes += n;
  }
  out.checksum = hex32(crc);
  return out;
}

}  // namespace trails::store::detail

// Small HDF5 C API helpers for the run store's shards (private to src/trails/store/): an owning
// handle, error checks that turn HDF5's error stack into a Trails error naming the file, and a
// scope that silences HDF5's default stderr printing (error stacks are per thread). Debian's
// HDF5 is built thread-safe (one global lock), so stores in different threads do not race.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

#include "trails/core/error.h"

namespace trails::store::detail {

class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~H5Handle() { reset(); }
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  hid_t get() const { return id_; }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) {
      closer_(id_);
    }
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// Where HDF5 failures are reported: the file's name and which error a failure becomes
// (StoreError while writing, CorruptionError while reading a checksum-verified shard).
struct H5Context {
  std::string file;
  core::ErrorKind kind = core::ErrorKind::Store;

  [[noreturn]] void fail(const std::string& what) const;
  hid_t check(hid_t id, const char* what) const {
    if (id < 0) {
      fail(what);
    }
    return id;
  }
  void check(herr_t rc, const char* what) const {
    if (rc < 0) {
      fail(what);
    }
  }
  H5Handle own(hid_t id, H5Handle::Closer closer, const char* what) const {
    return H5Handle(check(id, what), closer);
  }
};

// Turns off HDF5's automatic error printing for its lifetime (restores the previous handler):
// failures are reported through Trails errors instead.
class H5Quiet {
 public:
  H5Quiet();
  ~H5Quiet();
  H5Quiet(const H5Quiet&) = delete;
  H5Quiet& operator=(const H5Quiet&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// A name no file on disk can have, for HDF5's in-memory (core driver) files: the core driver
// refuses to open an image under the name of an existing file, and names must be unique among
// the files open in this process.
std::string h5_memory_name(const char* purpose);

}  // namespace trails::store::detail

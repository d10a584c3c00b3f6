#include "trails/store/h5_util.h"

#include <unistd.h>

#include <atomic>

namespace trails::store::detail {
namespace {

herr_t collect(unsigned n, const H5E_error2_t* err, void* out) {
  auto& text = *static_cast<std::string*>(out);
  if (n < 4 && err->desc != nullptr) {  // the outermost few entries say enough
    if (!text.empty()) {
      text += "; ";
    }
    text += err->desc;
  }
  return 0;
}

}  // namespace

void H5Context::fail(const std::string& what) const {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &detail);
  H5Eclear2(H5E_DEFAULT);
  std::string msg = file + ": " + what + (detail.empty() ? "" : ": HDF5: " + detail);
  if (kind == core::ErrorKind::Corruption) {
    throw core::CorruptionError(msg);
  }
  throw core::StoreError(msg);
}

H5Quiet::H5Quiet() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

H5Quiet::~H5Quiet() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

std::string h5_memory_name(const char* purpose) {
  static std::atomic<unsigned long long> counter{0};
  // /proc/self/ exists but cannot hold such a file, so open(2) on this name always fails.
  return "/proc/self/trails-" + std::string(purpose) + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

}  // namespace trails::store::detail

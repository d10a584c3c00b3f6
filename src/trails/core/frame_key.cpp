#include "trails/core/frame_key.h"

#include <charconv>

namespace trails::core {

std::string FrameKey::to_string() const {
  return std::to_string(iteration) + ":" + std::to_string(walker) + ":" + std::to_string(frame);
}

std::optional<FrameKey> FrameKey::parse(std::string_view text) {
  FrameKey key;
  std::int64_t* fields[3] = {&key.iteration, &key.walker, &key.frame};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, *fields[i]);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != ':') return std::nullopt;
      ++p;
    }
  }
  if (p != end) return std::nullopt;
  return key;
}

}  // namespace trails::core

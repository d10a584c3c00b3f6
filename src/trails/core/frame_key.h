// Identity of one stored frame: iteration, raw walker index, frame index within the segment.
// Rendered as "iteration:walker:frame" (compat:lineage-keys).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trails::core {

struct FrameKey {
  std::int64_t iteration = 0;
  std::int64_t walker = 0;
  std::int64_t frame = 0;

  std::string to_string() const;
  static std::optional<FrameKey> parse(std::string_view text);

  auto operator<=>(const FrameKey&) const = default;
};

}  // namespace trails::core

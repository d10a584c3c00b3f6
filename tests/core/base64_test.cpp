// RFC 4648 base64 (core/base64.h): the standard's test vectors both ways, binary round trips,
// and text that is not base64 refused.
#include "trails/core/base64.h"

#include <gtest/gtest.h>

#include <string>

#include "trails/core/error.h"

namespace trails::core {
namespace {

TEST(Base64, Rfc4648VectorsBothWays) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64_encode(plain), coded);
    EXPECT_EQ(base64_decode(coded), plain);
  }
}

TEST(Base64, EveryByteRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t n = 0; n <= bytes.size(); n += 37) {
    const std::string part = bytes.substr(0, n);
    EXPECT_EQ(base64_decode(base64_encode(part)), part) << n;
  }
}

TEST(Base64, TextThatIsNotBase64IsRefused) {
  for (const char* bad : {"Zg=", "Zm9v!A==", "Z===", "Zg==Zg==", "=Zg="}) {
    EXPECT_THROW((void)base64_decode(bad), CorruptionError) << bad;
  }
}

}  // namespace
}  // namespace trails::core

// RFC 4648 base64 with padding and no line breaks: binary blobs inside JSON and HTML (learned
// model weights in the ledger, pictures in the HTML report). Pure functions; decode throws
// core::CorruptionError for text that is not base64.
#pragma once

#include <string>
#include <string_view>

namespace trails::core {

std::string base64_encode(std::string_view bytes);
std::string base64_decode(std::string_view text);

}  // namespace trails::core

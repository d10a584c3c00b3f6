#include "trails/core/error.h"

namespace trails::core {

Error::Error(ErrorKind kind, const std::string& message, std::source_location where)
    : std::runtime_error(message), kind_(kind), where_(where) {}

Error& Error::with_context(std::string line) {
  context_.push_back(std::move(line));
  return *this;
}

int Error::exit_code() const noexcept {
  switch (kind_) {
    case ErrorKind::Config:
    case ErrorKind::Input:
    case ErrorKind::Usage:
      return 2;
    default:
      return 1;
  }
}

std::string Error::describe() const {
  std::string text = what();
  for (const auto& line : context_) text += "\n  " + line;
  if (kind_ == ErrorKind::Internal) {
    text += "\n  (internal error at " + std::string(where_.file_name()) + ":" +
            std::to_string(where_.line()) + "; please report it)";
  }
  return text;
}

}  // namespace trails::core

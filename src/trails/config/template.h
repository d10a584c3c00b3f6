// The annotated campaign template that `trails init` writes: a built-in Müller–Brown campaign
// whose comments explain every key it sets. examples/template.yaml is byte-identical (a test
// checks it), and the template loads without a single problem (another test).
#pragma once

#include <string_view>

namespace trails::config {

std::string_view campaign_template();

}  // namespace trails::config

#include "trails/engines/amber/mdin.h"

#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::engines::amber {

int amber_ntb(const MdinValues& v) { return v.periodic ? (v.npt ? 2 : 1) : 0; }
int amber_ntp(const MdinValues& v) { return v.periodic && v.npt ? 1 : 0; }

std::int64_t amber_ig(std::uint64_t seed) {
  constexpr std::uint64_t kModulus = 2147483647;  // 2^31 - 1: ig is a signed 32-bit integer
  return static_cast<std::int64_t>(seed % (kModulus - 1)) + 1;
}

namespace {

// Sets `name=value` in the &cntrl namelist: rewrites an existing assignment, else adds one line
// before the closing `/` of &cntrl.
std::string set_cntrl(std::string text, const std::string& name, const std::string& value,
                      const std::string& source) {
  const std::regex existing("(^|[\\s,])" + name + "\\s*=\\s*[^,\\s/]+", std::regex::icase);
  std::smatch m;
  if (std::regex_search(text, m, existing)) {
    return m.prefix().str() + m[1].str() + name + "=" + value + m.suffix().str();
  }
  const std::regex cntrl("&cntrl", std::regex::icase);
  if (!std::regex_search(text, m, cntrl)) {
    throw core::InputError(source + ": the mdin has no &cntrl namelist");
  }
  const std::size_t start = static_cast<std::size_t>(m.position(0));
  const std::size_t slash = text.find('/', start);
  if (slash == std::string::npos) {
    throw core::InputError(source + ": the &cntrl namelist is not closed by '/'");
  }
  // The new line goes before the line of the '/' when only blanks precede it there.
  std::size_t at = text.find_last_not_of(" \t", slash - 1) + 1;
  if (at == 0 || text[at - 1] != '\n') at = slash;
  return text.substr(0, at) + "  " + name + "=" + value + ",\n" + text.substr(at);
}

std::string controlled(std::string text, const MdinValues& v, const std::string& source) {
  text = set_cntrl(std::move(text), "ioutfm", v.netcdf ? "1" : "0", source);
  text = set_cntrl(std::move(text), "ntxo", "2", source);
  return set_cntrl(std::move(text), "ig", std::to_string(amber_ig(v.seed)), source);
}

}  // namespace

std::string render_mdin(const std::string& template_text, const MdinValues& v,
                        const std::string& source) {
  std::string text;
  try {
    text =
        fmt::format(fmt::runtime(template_text), fmt::arg("steps", v.steps), fmt::arg("dt", v.dt),
                    fmt::arg("temp", v.temperature), fmt::arg("stride", v.stride),
                    fmt::arg("ntp", amber_ntp(v)), fmt::arg("ntb", amber_ntb(v)));
  } catch (const fmt::format_error& e) {
    throw core::InputError(fmt::format(
        "{} (engine.amber_input_file): cannot render the template: {}; the fields are {{steps}}, "
        "{{dt}}, {{temp}}, {{stride}}, {{ntp}} and {{ntb}}, and a literal brace is written {{{{ "
        "or }}}}",
        source, e.what()));
  }
  return controlled(std::move(text), v, source);
}

std::string builtin_mdin(const MdinValues& v) {
  std::ostringstream out;
  out << "Trails MD run\n &cntrl\n";
  out << (v.continue_velocities ? "  imin=0, irest=1, ntx=5,\n" : "  imin=0, irest=0, ntx=1,\n");
  out << fmt::format("  nstlim={}, dt={:.6f},\n  ntc=2, ntf=2,\n", v.steps, v.dt);
  out << fmt::format("  tempi={:.2f}, temp0={:.2f},\n  ntt=3, gamma_ln=1.0,\n", v.temperature,
                     v.temperature);
  out << fmt::format("  ntb={}, ntp={},\n", amber_ntb(v), amber_ntp(v));
  if (amber_ntp(v) == 1) out << fmt::format("  pres0={}, barostat=2, taup=2.0,\n", v.pressure);
  out << fmt::format("  cut={},\n  ntpr={}, ntwx={}, iwrap={},\n", v.periodic ? "9.0" : "999.0",
                     v.steps, v.stride, v.periodic ? 1 : 0);
  out << " /\n";
  return controlled(out.str(), v, "the built-in mdin");
}

std::string read_mdin_template(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string() + " (engine.amber_input_file): cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace trails::engines::amber

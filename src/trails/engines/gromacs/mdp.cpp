// MDP rendering (mdp.h). The built-in MDP is Trails-MD's (docs/engines.md, "Keys") with TRR
// output in place of XTC: Trails reads full-precision frames and final states.
#include "trails/engines/gromacs/mdp.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::engines::gromacs {
namespace {

// Python's str() of a float: the shortest round trip, with ".0" on whole numbers.
std::string python_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::map<std::string, std::string> template_fields(const config::GromacsSpec& spec) {
  return {{"steps", std::to_string(spec.steps)},
          {"dt", python_float(spec.dt)},
          {"temp", python_float(spec.temperature)},
          {"stride", std::to_string(spec.stride)},
          {"pressure", python_float(spec.pressure)},
          {"pcoupl", spec.npt ? "Parrinello-Rahman" : "no"},
          {"tau_p", "2.0"},
          {"gen_vel", "yes"}};
}

std::string builtin_mdp(const config::GromacsSpec& spec) {
  std::string m = fmt::format(
      "; Trails' built-in MDP (Trails-MD's, docs/engines.md)\n"
      "integrator = md\nnsteps = {}\ndt = {:.6f}\nnstenergy = {}\nnstlog = {}\n"
      "constraint_algorithm = lincs\nconstraints = h-bonds\nlincs_iter = 1\nlincs_order = 4\n"
      "cutoff-scheme = Verlet\nnstlist = 10\nrcoulomb = 1.0\nrvdw = 1.0\ncoulombtype = PME\n"
      "pme_order = 4\nfourierspacing = 0.16\ntcoupl = V-rescale\ntc-grps = System\n"
      "tau_t = 0.1\nref_t = {}\npbc = xyz\nDispCorr = EnerPres\n",
      spec.steps, spec.dt, spec.steps, spec.steps, python_float(spec.temperature));
  if (spec.npt) {
    m += fmt::format(
        "pcoupl = Parrinello-Rahman\npcoupltype = isotropic\ntau_p = 2.0\nref_p = {}\n"
        "compressibility = 4.5e-5\n",
        python_float(spec.pressure));
  } else {
    m += "pcoupl = no\n";
  }
  return m;
}

std::string read_template(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw core::ConfigError(path.string() +
                            ": cannot read the MDP template (system.system_file); check the path");
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Python str.format over the template: {name} and the escapes {{ and }}.
std::string format_template(const std::filesystem::path& path, const std::string& text,
                            const std::map<std::string, std::string>& values) {
  std::string out;
  int line = 1;
  const auto fail = [&](const std::string& what) {
    throw core::ConfigError(path.string() + ":" + std::to_string(line) +
                            ": MDP template (system.system_file): " + what);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
    } else if (c == '}') {
      fail("a single '}' (write '}}' for a literal brace)");
    } else if (c == '{') {
      const std::size_t end = text.find('}', i);
      if (end == std::string::npos) fail("a '{' that is never closed");
      const std::string name = text.substr(i + 1, end - i - 1);
      const auto it = values.find(name);
      if (it == values.end()) {
        fail("unknown field {" + name +
             "}; the fields are {steps} {dt} {temp} {stride} {pressure} {pcoupl} {tau_p} "
             "{gen_vel}");
      }
      out += it->second;
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

std::string normalized_key(std::string key) {
  key.erase(
      std::remove_if(key.begin(), key.end(), [](unsigned char ch) { return std::isspace(ch); }),
      key.end());
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) {
    return ch == '_' ? '-' : static_cast<char>(std::tolower(ch));
  });
  return key;
}

constexpr const char* kTrailsKeys[] = {"nstxout", "nstvout",  "nstfout", "nstxout-compressed",
                                       "gen-vel", "gen-seed", "ld-seed", "continuation"};

}  // namespace

std::string render_mdp(const config::GromacsSpec& spec) {
  if (!spec.mdp_template) return builtin_mdp(spec);
  return format_template(*spec.mdp_template, read_template(*spec.mdp_template),
                         template_fields(spec));
}

std::string with_trails_settings(const std::string& mdp) {
  std::istringstream in(mdp);
  std::string out, line;
  while (std::getline(in, line)) {
    const std::string body = line.substr(0, line.find(';'));
    const std::size_t eq = body.find('=');
    const bool trails_key = eq != std::string::npos &&
                            std::find(std::begin(kTrailsKeys), std::end(kTrailsKeys),
                                      normalized_key(body.substr(0, eq))) != std::end(kTrailsKeys);
    out += (trails_key ? "; set by Trails: " : "") + line + "\n";
  }
  out += fmt::format(
      "; --- set by Trails (docs/engines.md, \"GROMACS\"): one run input for every walker ---\n"
      "nstxout = {}\nnstvout = {}\nnstfout = 0\nnstxout-compressed = 0\n"
      "gen-vel = no\ncontinuation = no\nld-seed = {}\n",
      kNstxoutSentinel, kNstvoutSentinel, kLdSeedSentinel);
  return out;
}

}  // namespace trails::engines::gromacs

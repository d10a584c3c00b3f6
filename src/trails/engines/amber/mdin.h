// The Amber engine's mdin (docs/engines.md, "The Amber engine"): engine.amber_input_file is a
// template rendered as Python's str.format(steps=…, dt=…, temp=…, stride=…, ntp=…, ntb=…)
// (Trails-MD's fields; `{{`/`}}` are literal braces, `{dt:.6f}`-style format specs work), then
// the &cntrl namelist gets what Trails must control: ioutfm (the trajectory format),
// ntxo=2 (a NetCDF restart, full precision) and ig (the walker's seed), each rewritten when the
// template sets it, else added before the namelist's closing `/`. Without a template the
// built-in mdin of Trails-MD (docs/engines.md, "The Amber engine") is used, with the same three
// settings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace trails::engines::amber {

struct MdinValues {
  std::int64_t steps = 0;
  double dt = 0.002;           // ps
  double temperature = 300.0;  // K
  std::int64_t stride = 1;
  bool periodic = true;              // prmtop IFBOX != 0
  bool npt = false;                  // engine.npt (ignored without a box)
  double pressure = 1.0;             // engine.pressure (bar in Amber; Trails' atm value as given)
  bool netcdf = true;                // ioutfm=1, else 0 (ASCII mdcrd)
  std::uint64_t seed = 0;            // ig (Amber takes a positive 32-bit int: the seed mod 2^31-1)
  bool continue_velocities = false;  // irest=1, ntx=5 (the start restart has velocities)
};

// ntb and ntp as Trails-MD sets them: periodic ntb = npt ? 2 : 1, ntp = npt ? 1 : 0; else 0, 0.
int amber_ntb(const MdinValues& v);
int amber_ntp(const MdinValues& v);
// The ig value Amber receives for `seed` (1 … 2^31-2; Amber reads -1 as "from the clock").
std::int64_t amber_ig(std::uint64_t seed);

// Renders `template_text` (from `source`, for messages). Throws core::InputError naming the
// source and the field for an unknown field or a malformed template.
std::string render_mdin(const std::string& template_text, const MdinValues& values,
                        const std::string& source);
std::string builtin_mdin(const MdinValues& values);

// Reads the template file (InputError naming it when it cannot be read).
std::string read_mdin_template(const std::filesystem::path& file);

}  // namespace trails::engines::amber

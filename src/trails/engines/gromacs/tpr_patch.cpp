// Run-input patching (tpr_patch.h). The TPR header (GROMACS 2022, fileGeneration 28) is XDR:
// the version string, precision, file version, generation, tag string, natoms, ngtc, fep_state,
// lambda, the flags bIr bTop bX bV bF bBox and the body size; the body starts with the box.
#include "trails/engines/gromacs/tpr_patch.h"

#include <bit>

#include "trails/core/error.h"
#include "trails/engines/gromacs/mdp.h"

namespace trails::engines::gromacs {
namespace {

std::string be_u32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
  return s;
}
std::string be_i64(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  return be_u32(static_cast<std::uint32_t>(u >> 32)) + be_u32(static_cast<std::uint32_t>(u));
}
std::string be_floats(const double* v, std::size_t n) {
  std::string s;
  s.reserve(4 * n);
  for (std::size_t i = 0; i < n; ++i)
    s += be_u32(std::bit_cast<std::uint32_t>(static_cast<float>(v[i])));
  return s;
}

class HeaderReader {
 public:
  HeaderReader(const std::string& bytes, const std::string& name) : b_(bytes), name_(name) {}
  std::int32_t i32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(b_[pos_ + i]);
    pos_ += 4;
    return static_cast<std::int32_t>(v);
  }
  void string() {
    (void)i32();  // length with the terminator
    const std::int32_t len = i32();
    if (len < 0 || len > 4096) fail("a header string has length " + std::to_string(len));
    need((static_cast<std::size_t>(len) + 3) / 4 * 4);
    pos_ += (static_cast<std::size_t>(len) + 3) / 4 * 4;
  }
  std::size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw core::InputError(name_ + ": cannot reuse this GROMACS run input for new walkers: " +
                           what + " (docs/engines.md, \"One grompp per campaign\")");
  }

 private:
  void need(std::size_t n) const {
    if (b_.size() - pos_ < n) fail("the header is truncated");
  }
  const std::string& b_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

// The one position of `needle` in `hay` at or after `from`; fails unless exactly one.
std::size_t find_once(const std::string& hay, const std::string& needle, std::size_t from,
                      const HeaderReader& r, const char* what) {
  const std::size_t at = hay.find(needle, from);
  if (at == std::string::npos) r.fail(std::string(what) + " not found");
  if (hay.find(needle, at + 1) != std::string::npos) r.fail(std::string(what) + " found twice");
  return at;
}

}  // namespace

TprLayout locate_tpr_fields(const std::string& tpr, const TprStart& start,
                            const std::string& name) {
  HeaderReader r(tpr, name);
  r.string();  // "VERSION 2022.5..."
  if (r.i32() != 4) r.fail("it is not single precision (use a mixed-precision gmx)");
  (void)r.i32();  // file version
  if (r.i32() < 27) r.fail("its file generation is older than GROMACS 2020's");
  r.string();  // file tag
  TprLayout l;
  l.n_atoms = r.i32();
  (void)r.i32();  // ngtc
  (void)r.i32();  // fep_state
  (void)r.i32();  // lambda (float)
  std::int32_t flags[6];
  for (std::int32_t& f : flags) f = r.i32();
  if (!flags[2] || !flags[3] || !flags[5]) r.fail("it holds no positions, velocities or box");
  (void)r.i32();  // body size, two words
  (void)r.i32();
  const std::size_t n3 = static_cast<std::size_t>(l.n_atoms) * 3;
  if (start.positions.size() != n3 || start.velocities.size() != n3) {
    r.fail("it has " + std::to_string(l.n_atoms) + " atoms, the start structure " +
           std::to_string(start.positions.size() / 3));
  }
  l.box = r.pos();
  if (tpr.compare(l.box, 36, be_floats(start.box.data(), 9)) != 0) {
    r.fail("the box is not where GROMACS 2022 puts it");
  }
  l.x = find_once(tpr, be_floats(start.positions.data(), n3), l.box + 36, r, "the positions");
  l.v = l.x + 4 * n3;
  if (tpr.compare(l.v, 4 * n3, be_floats(start.velocities.data(), n3)) != 0) {
    r.fail("the velocities do not follow the positions");
  }
  const std::size_t after = l.v + 4 * n3;
  l.ld_seed = find_once(tpr, be_i64(kLdSeedSentinel), after, r, "the ld-seed sentinel");
  l.nstxout = find_once(tpr, be_u32(kNstxoutSentinel), after, r, "the nstxout sentinel");
  l.nstvout = find_once(tpr, be_u32(kNstvoutSentinel), after, r, "the nstvout sentinel");
  return l;
}

std::string patch_tpr(const std::string& base, const TprLayout& l, const WalkerRunInput& in) {
  const std::size_t n3 = static_cast<std::size_t>(l.n_atoms) * 3;
  if (in.positions->size() != n3 || in.velocities->size() != n3) {
    throw core::InputError("walker start state has " + std::to_string(in.positions->size() / 3) +
                           " atoms, the GROMACS run input " + std::to_string(l.n_atoms));
  }
  std::string out = base;
  out.replace(l.box, 36, be_floats(in.box.data(), 9));
  out.replace(l.x, 4 * n3, be_floats(in.positions->data(), n3));
  out.replace(l.v, 4 * n3, be_floats(in.velocities->data(), n3));
  out.replace(l.ld_seed, 8, be_i64(in.ld_seed));
  out.replace(l.nstxout, 4, be_u32(static_cast<std::uint32_t>(in.stride)));
  out.replace(l.nstvout, 4, be_u32(static_cast<std::uint32_t>(in.stride)));
  return out;
}

std::int64_t ld_seed_of(std::uint64_t seed) {
  return static_cast<std::int64_t>(seed & 0x7fffffffffffffffULL);
}

nlohmann::json TprLayout::to_json() const {
  return {{"n_atoms", n_atoms}, {"box", box},        {"x", x}, {"v", v}, {"ld_seed", ld_seed},
          {"nstxout", nstxout}, {"nstvout", nstvout}};
}

TprLayout TprLayout::from_json(const nlohmann::json& j) {
  TprLayout l;
  l.n_atoms = j.at("n_atoms").get<int>();
  l.box = j.at("box").get<std::size_t>();
  l.x = j.at("x").get<std::size_t>();
  l.v = j.at("v").get<std::size_t>();
  l.ld_seed = j.at("ld_seed").get<std::size_t>();
  l.nstxout = j.at("nstxout").get<std::size_t>();
  l.nstvout = j.at("nstvout").get<std::size_t>();
  return l;
}

}  // namespace trails::engines::gromacs

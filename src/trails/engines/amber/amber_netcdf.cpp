#include "trails/engines/amber/amber_netcdf.h"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/amber/amber_units.h"
#include "trails/engines/amber/netcdf_header.h"
#include "trails/structure/box.h"

namespace trails::engines::amber {

namespace fs = std::filesystem;

namespace {

void check(int status, const fs::path& file, const char* what) {
  if (status != NC_NOERR) {
    throw core::InputError(fmt::format("{}: {}: {}", file.string(), what, nc_strerror(status)));
  }
}

// Closes the file on every path out.
class NcFile {
 public:
  NcFile(const fs::path& file, int mode, bool create) : file_(file) {
    if (create) {
      check(nc_create(file.c_str(), mode, &id_), file, "cannot create");
    } else {
      check_classic_header(file);  // before libnetcdf allocates what the header declares
      check(nc_open(file.c_str(), mode, &id_), file, "cannot open as NetCDF");
    }
  }
  ~NcFile() { nc_close(id_); }
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;
  int id() const { return id_; }
  std::size_t dim(const char* name) const {
    int dim_id = 0;
    std::size_t n = 0;
    check(nc_inq_dimid(id_, name, &dim_id), file_, fmt::format("no dimension '{}'", name).c_str());
    check(nc_inq_dimlen(id_, dim_id, &n), file_, name);
    return n;
  }
  std::optional<int> var(const char* name) const {
    int v = 0;
    if (nc_inq_varid(id_, name, &v) != NC_NOERR) return std::nullopt;
    return v;
  }
  const fs::path& file() const { return file_; }
  // Variable `v` (named `name`) when it holds exactly `expected` values: the file's own
  // dimensions decide how many values libnetcdf writes, so a variable shaped otherwise than the
  // conventions say is an error, and so is one larger than the file could hold, before anything
  // is allocated (fuzz/corpus/netcdf).
  std::vector<double> read(int v, const char* name, std::size_t expected) const {
    int ndims = 0;
    check(nc_inq_varndims(id_, v, &ndims), file_, name);
    std::vector<int> dims(static_cast<std::size_t>(std::max(ndims, 0)));
    if (ndims > 0) check(nc_inq_vardimid(id_, v, dims.data()), file_, name);
    std::size_t count = 1;
    for (const int d : dims) {
      std::size_t n = 0;
      check(nc_inq_dimlen(id_, d, &n), file_, name);
      count = n != 0 && count > std::numeric_limits<std::size_t>::max() / n ? 0 : count * n;
    }
    std::error_code ec;
    const auto bytes = fs::file_size(file_, ec);
    if (count != expected || ec || count > bytes) {
      throw core::InputError(fmt::format("{}: variable '{}' holds {} values, expected {}",
                                         file_.string(), name, count, expected));
    }
    std::vector<double> out(count);
    if (!out.empty()) check(nc_get_var_double(id_, v, out.data()), file_, name);
    return out;
  }

 private:
  fs::path file_;
  int id_ = -1;
};

structure::Box cell_box(const double* lengths_a, const double* angles) {
  return structure::box_from_parameters(
      {lengths_a[0] / kAngstromPerNm, lengths_a[1] / kAngstromPerNm, lengths_a[2] / kAngstromPerNm,
       angles[0], angles[1], angles[2]});
}

void expect_atoms(const NcFile& f, int n_atoms) {
  if (const std::size_t atoms = f.dim("atom"); atoms != static_cast<std::size_t>(n_atoms)) {
    throw core::InputError(
        fmt::format("{}: {} atoms, expected {} (the prmtop's)", f.file().string(), atoms, n_atoms));
  }
}

}  // namespace

bool is_netcdf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  return in && ((magic[0] == 'C' && magic[1] == 'D' && magic[2] == 'F') ||
                (magic[0] == '\x89' && magic[1] == 'H' && magic[2] == 'D' && magic[3] == 'F'));
}

AmberFrames read_netcdf_trajectory(const fs::path& file, int n_atoms) {
  const NcFile f(file, NC_NOWRITE, false);
  expect_atoms(f, n_atoms);
  AmberFrames out;
  out.n_frames = f.dim("frame");
  const auto coords = f.var("coordinates");
  if (!coords) throw core::InputError(file.string() + ": no 'coordinates' variable");
  const std::vector<double> a =
      f.read(*coords, "coordinates", out.n_frames * static_cast<std::size_t>(n_atoms) * 3);
  out.positions_nm.reserve(a.size());
  for (const double x : a) out.positions_nm.push_back(x / kAngstromPerNm);
  const auto lengths = f.var("cell_lengths");
  const auto angles = f.var("cell_angles");
  if (lengths && angles && out.n_frames > 0) {
    const auto l = f.read(*lengths, "cell_lengths", out.n_frames * 3);
    const auto g = f.read(*angles, "cell_angles", out.n_frames * 3);
    for (std::size_t k = 0; k < out.n_frames; ++k) {
      const structure::Box box = cell_box(&l[3 * k], &g[3 * k]);
      out.boxes.insert(out.boxes.end(), box.begin(), box.end());
    }
  }
  return out;
}

AmberState read_netcdf_restart(const fs::path& file, int n_atoms) {
  const NcFile f(file, NC_NOWRITE, false);
  expect_atoms(f, n_atoms);
  AmberState s;
  const auto n = static_cast<std::size_t>(n_atoms) * 3;
  const auto coords = f.var("coordinates");
  if (!coords) throw core::InputError(file.string() + ": no 'coordinates' variable");
  s.positions_nm = f.read(*coords, "coordinates", n);
  for (double& x : s.positions_nm) x /= kAngstromPerNm;
  if (const auto v = f.var("velocities")) {
    s.velocities = f.read(*v, "velocities", n);
    double scale = 1.0;
    if (nc_get_att_double(f.id(), *v, "scale_factor", &scale) != NC_NOERR) scale = 1.0;
    for (double& x : s.velocities) x *= scale / kAngstromPerNm;
  }
  const auto lengths = f.var("cell_lengths");
  const auto angles = f.var("cell_angles");
  if (lengths && angles) {
    const auto l = f.read(*lengths, "cell_lengths", 3);
    const auto g = f.read(*angles, "cell_angles", 3);
    s.box = cell_box(l.data(), g.data());
  }
  if (const auto t = f.var("time")) s.time_ps = f.read(*t, "time", 1).front();
  return s;
}

void write_netcdf_restart(const fs::path& file, const AmberState& s) {
  const NcFile f(file, NC_CLOBBER | NC_64BIT_OFFSET, true);
  const int id = f.id();
  const auto n_atoms = s.positions_nm.size() / 3;
  int spatial = 0, atom = 0, cell_spatial = 0, cell_angular = 0, label = 0;
  check(nc_def_dim(id, "spatial", 3, &spatial), file, "spatial");
  check(nc_def_dim(id, "atom", n_atoms, &atom), file, "atom");
  const auto text_att = [&](int var, const char* name, const std::string& value) {
    check(nc_put_att_text(id, var, name, value.size(), value.c_str()), file, name);
  };
  text_att(NC_GLOBAL, "Conventions", "AMBERRESTART");
  text_att(NC_GLOBAL, "ConventionVersion", "1.0");
  text_att(NC_GLOBAL, "program", "Trails");
  text_att(NC_GLOBAL, "programVersion", TRAILS_VERSION);
  int time = 0, spatial_var = 0, coords = 0, vel = 0, lengths = 0, angles = 0;
  check(nc_def_var(id, "time", NC_DOUBLE, 0, nullptr, &time), file, "time");
  text_att(time, "units", "picosecond");
  check(nc_def_var(id, "spatial", NC_CHAR, 1, &spatial, &spatial_var), file, "spatial");
  const std::array<int, 2> atom_dims{atom, spatial};
  check(nc_def_var(id, "coordinates", NC_DOUBLE, 2, atom_dims.data(), &coords), file, "coords");
  text_att(coords, "units", "angstrom");
  const bool velocities = !s.velocities.empty();
  if (velocities) {
    check(nc_def_var(id, "velocities", NC_DOUBLE, 2, atom_dims.data(), &vel), file, "velocities");
    text_att(vel, "units", "angstrom/picosecond");
    check(nc_put_att_double(id, vel, "scale_factor", NC_DOUBLE, 1, &kAmberVelocityScale), file,
          "scale_factor");
  }
  if (s.box) {
    check(nc_def_dim(id, "cell_spatial", 3, &cell_spatial), file, "cell_spatial");
    check(nc_def_dim(id, "cell_angular", 3, &cell_angular), file, "cell_angular");
    check(nc_def_dim(id, "label", 5, &label), file, "label");
    check(nc_def_var(id, "cell_lengths", NC_DOUBLE, 1, &cell_spatial, &lengths), file, "cell");
    text_att(lengths, "units", "angstrom");
    check(nc_def_var(id, "cell_angles", NC_DOUBLE, 1, &cell_angular, &angles), file, "cell");
    text_att(angles, "units", "degree");
  }
  check(nc_enddef(id), file, "header");
  check(nc_put_var_double(id, time, &s.time_ps), file, "time");
  check(nc_put_var_text(id, spatial_var, "xyz"), file, "spatial");
  std::vector<double> a(s.positions_nm.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = s.positions_nm[i] * kAngstromPerNm;
  check(nc_put_var_double(id, coords, a.data()), file, "coordinates");
  if (velocities) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = s.velocities[i] * kAngstromPerNm / kAmberVelocityScale;
    }
    check(nc_put_var_double(id, vel, a.data()), file, "velocities");
  }
  if (s.box) {
    const structure::BoxParameters p = structure::box_parameters(*s.box);
    const std::array<double, 3> l{p.a_nm * kAngstromPerNm, p.b_nm * kAngstromPerNm,
                                  p.c_nm * kAngstromPerNm};
    const std::array<double, 3> g{p.alpha_deg, p.beta_deg, p.gamma_deg};
    check(nc_put_var_double(id, lengths, l.data()), file, "cell_lengths");
    check(nc_put_var_double(id, angles, g.data()), file, "cell_angles");
  }
}

}  // namespace trails::engines::amber

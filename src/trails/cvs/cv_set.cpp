#include "trails/cvs/cv_set.h"

#include <cmath>
#include <set>

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"
#include "trails/cvs/backbone.h"
#include "trails/cvs/contacts.h"
#include "trails/cvs/geometry.h"
#include "trails/cvs/superposition.h"

namespace trails::cvs {

namespace {

enum class Kind {
  Distance,
  Angle,
  Dihedral,
  Rmsd,
  Rg,
  FittedCoords,
  Contacts,
  Q,
  Distances,
  PhiPsi
};

// One resolved spec: everything compute() needs, with no further lookups.
struct Term {
  Kind kind = Kind::Distance;
  std::vector<int> atoms;                     // distance/angle/dihedral atoms, or the selection
  std::vector<int> fit_atoms;                 // rmsd / fitted_coords
  std::vector<AtomPair> pairs;                // distances, contacts
  std::vector<std::array<int, 4>> dihedrals;  // phi, psi, phi_psi
  NativeContacts native;
  SwitchingFunction switching;
  double beta_per_nm = 50.0, lambda = 1.8;
  double length_scale = 1.0;  // 10 for Å output
  bool sincos = false;
  std::vector<double> masses;  // rg mass-weighted (indexed by atom), else empty
  const std::vector<double>* reference = nullptr;
  int offset = 0;  // first output column
  int width = 0;
};

std::string describe(const CvSpec& s) { return "cv '" + s.name + "' (kind " + s.kind + ")"; }

}  // namespace

struct CvSet::Impl {
  std::vector<CvSpec> specs;
  std::vector<Term> terms;
  std::vector<std::string> columns;
  std::optional<std::vector<double>> default_reference;
  int n_atoms = 0;
  int dimension = 0;

  void compute_frame(std::span<const double> xyz, const PeriodicBox* box, double* row) const;
};

namespace {

void check_atoms(const CvSpec& spec, const std::vector<int>& atoms, int n_atoms, const char* what) {
  std::set<int> seen;
  for (int a : atoms) {
    if (a < 0 || a >= n_atoms)
      throw core::ConfigError(describe(spec) + ": " + what + " index " + std::to_string(a) +
                              " is outside the topology (0.." + std::to_string(n_atoms - 1) + ")");
    if (!seen.insert(a).second)
      throw core::ConfigError(describe(spec) + ": " + what + " index " + std::to_string(a) +
                              " is repeated");
  }
}

void add_angle_columns(std::vector<std::string>& columns, const std::string& name,
                       const std::vector<std::string>& labels, bool sincos) {
  if (!sincos) {
    for (const auto& l : labels) columns.push_back(l.empty() ? name : name + ":" + l);
    return;
  }
  for (const char* f : {"sin", "cos"})
    for (const auto& l : labels) columns.push_back(name + ":" + f + (l.empty() ? "" : "_" + l));
}

}  // namespace

CvSet::CvSet(std::vector<CvSpec> specs, const structure::Topology& topology,
             std::optional<std::vector<double>> reference_positions_nm)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.specs = std::move(specs);
  im.n_atoms = topology.n_atoms();
  im.default_reference = std::move(reference_positions_nm);
  const std::size_t want_ref = std::size_t(im.n_atoms) * 3;
  if (im.default_reference && im.default_reference->size() != want_ref)
    throw core::InputError("CV reference structure has " +
                           std::to_string(im.default_reference->size() / 3) +
                           " atoms, the topology " + std::to_string(im.n_atoms));
  if (im.specs.empty()) throw core::ConfigError("no CVs declared (the cvs list is empty)");

  std::set<std::string> names;
  for (const CvSpec& spec : im.specs) {
    if (!names.insert(spec.name).second)
      throw core::ConfigError(describe(spec) + ": the name is used by another CV");
    TRAILS_CHECK(spec.selection.empty() && spec.selection_b.empty() && spec.fit_selection.empty(),
                 describe(spec) + " still has selection strings; call resolve_selections first");
    Term t;
    t.length_scale = spec.unit == LengthUnit::Angstrom ? 10.0 : 1.0;
    t.sincos = spec.encoding == AngleEncoding::Sincos;
    if (t.sincos && !kind_is_angular(spec.kind))
      throw core::ConfigError(describe(spec) + ": encoding sincos applies to angles only");
    const std::vector<int> none;
    const std::vector<int>& g0 = spec.groups.empty() ? none : spec.groups[0];
    check_atoms(spec, g0, im.n_atoms, "atom");
    if (spec.groups.size() > 1) check_atoms(spec, spec.groups[1], im.n_atoms, "atom");
    check_atoms(spec, spec.fit_atoms, im.n_atoms, "fit atom");
    t.atoms = g0;
    auto need_atoms = [&](std::size_t n) {
      if (g0.size() < n)
        throw core::ConfigError(describe(spec) + ": needs at least " + std::to_string(n) +
                                " atoms, got " + std::to_string(g0.size()));
    };
    auto need_exact = [&](std::size_t n) {
      if (g0.size() != n || spec.groups.size() != 1)
        throw core::ConfigError(describe(spec) + ": needs exactly " + std::to_string(n) +
                                " atoms in one group");
    };
    std::vector<std::string> labels;  // angle column labels
    const std::string& k = spec.kind;
    if (k == "distance") {
      need_exact(2);
      t.kind = Kind::Distance;
      t.width = 1;
    } else if (k == "angle") {
      need_exact(3);
      t.kind = Kind::Angle;
      labels = {""};
    } else if (k == "dihedral") {
      need_exact(4);
      t.kind = Kind::Dihedral;
      t.dihedrals = {{g0[0], g0[1], g0[2], g0[3]}};
      labels = {""};
    } else if (k == "phi" || k == "psi") {
      if (!spec.resid) throw core::ConfigError(describe(spec) + ": needs a resid");
      try {
        t.dihedrals = {k == "phi" ? phi_atoms(topology, *spec.resid, spec.chain)
                                  : psi_atoms(topology, *spec.resid, spec.chain)};
      } catch (core::Error& e) {
        e.with_context("while locating the backbone atoms of " + describe(spec));
        throw;
      }
      t.kind = Kind::Dihedral;
      labels = {""};
    } else if (k == "phi_psi") {
      std::vector<BackboneDihedral> found;
      try {
        found = backbone_dihedrals(topology, spec.resname);
      } catch (core::Error& e) {
        e.with_context("while locating the backbone atoms of " + describe(spec));
        throw;
      }
      for (const auto& d : found) {
        t.dihedrals.push_back(d.atoms);
        labels.push_back(d.label);
      }
      t.kind = Kind::PhiPsi;
    } else if (k == "rmsd" || k == "fitted_coords") {
      need_atoms(1);
      t.kind = k == "rmsd" ? Kind::Rmsd : Kind::FittedCoords;
      t.fit_atoms = spec.fit_atoms.empty() ? g0 : spec.fit_atoms;
      if (t.fit_atoms.size() < 3)
        throw core::ConfigError(describe(spec) + ": the superposition needs at least 3 atoms");
      t.width = t.kind == Kind::Rmsd ? 1 : int(3 * g0.size());
    } else if (k == "rg") {
      need_atoms(1);
      t.kind = Kind::Rg;
      t.width = 1;
      if (spec.mass_weighted) {
        t.masses.resize(im.n_atoms, 0.0);
        for (int a : g0) {
          t.masses[a] = topology.atoms[a].mass;
          if (!(t.masses[a] > 0.0))
            throw core::ConfigError(describe(spec) + ": mass_weighted, but atom " +
                                    std::to_string(a) + " (" + topology.atoms[a].name +
                                    ") has no mass in the topology");
        }
      }
    } else if (k == "distances") {
      need_atoms(2);
      t.kind = Kind::Distances;
      // Trails-MD order: all (i, j) with i before j in the selection's order.
      for (std::size_t x = 0; x < g0.size(); ++x)
        for (std::size_t y = x + 1; y < g0.size(); ++y) t.pairs.emplace_back(g0[x], g0[y]);
      t.width = int(t.pairs.size());
    } else if (k == "contacts") {
      t.kind = Kind::Contacts;
      t.pairs = contact_pairs(g0, spec.groups.size() > 1 ? std::span<const int>(spec.groups[1])
                                                         : std::span<const int>());
      if (t.pairs.empty())
        throw core::ConfigError(describe(spec) + ": the atom groups give no atom pair");
      if (spec.switching != "rational" && spec.switching != "hard")
        throw core::ConfigError(describe(spec) + ": switching must be rational or hard");
      t.switching = {spec.switching == "hard" ? SwitchingKind::Hard : SwitchingKind::Rational,
                     spec.cutoff_nm, spec.n, spec.m};
      if (!(spec.cutoff_nm > 0.0) || (spec.switching == "rational" && spec.m <= spec.n))
        throw core::ConfigError(describe(spec) + ": needs cutoff > 0 and m > n");
      t.width = 1;
    } else if (k == "q") {
      t.kind = Kind::Q;
      t.beta_per_nm = spec.beta_per_nm;
      t.lambda = spec.lambda;
      t.width = 1;
    } else {
      throw core::ConfigError(describe(spec) + ": unknown kind");
    }
    if (kind_needs_reference(k)) {
      if (!spec.reference_positions_nm.empty()) {
        if (spec.reference_positions_nm.size() != want_ref)
          throw core::InputError(describe(spec) + ": its reference structure has " +
                                 std::to_string(spec.reference_positions_nm.size() / 3) +
                                 " atoms, the topology " + std::to_string(im.n_atoms));
        t.reference = &spec.reference_positions_nm;  // specs live in im.specs, never moved
      } else if (im.default_reference) {
        t.reference = &*im.default_reference;
      } else {
        throw core::ConfigError(describe(spec) + ": needs a reference structure (" +
                                (spec.reference.empty() ? "conf_file" : spec.reference) +
                                ") and none was given");
      }
    }
    if (t.kind == Kind::Q) {
      t.native = find_native_contacts(topology, *t.reference, g0, spec.native_cutoff_nm,
                                      spec.min_residue_separation);
      if (t.native.pairs.empty())
        throw core::ConfigError(describe(spec) +
                                ": the reference has no native contact (heavy "
                                "atoms closer than " +
                                std::to_string(spec.native_cutoff_nm) +
                                " nm in residues more than " +
                                std::to_string(spec.min_residue_separation) + " apart)");
    }

    // Columns.
    t.offset = im.dimension;
    if (!labels.empty()) {
      t.width = int(labels.size()) * (t.sincos ? 2 : 1);
      add_angle_columns(im.columns, spec.name, labels, t.sincos);
    } else if (t.kind == Kind::Distances) {
      for (const auto& [i, j] : t.pairs)
        im.columns.push_back(spec.name + ":" + std::to_string(i) + "-" + std::to_string(j));
    } else if (t.kind == Kind::FittedCoords) {
      for (int a : g0)
        for (const char* axis : {".x", ".y", ".z"})
          im.columns.push_back(spec.name + ":" + std::to_string(a) + axis);
    } else {
      im.columns.push_back(spec.name);
    }
    im.dimension += t.width;
    im.terms.push_back(std::move(t));
  }
}

CvSet::~CvSet() = default;
CvSet::CvSet(CvSet&&) noexcept = default;
CvSet& CvSet::operator=(CvSet&&) noexcept = default;

int CvSet::dimension() const { return impl_->dimension; }
int CvSet::n_atoms() const { return impl_->n_atoms; }
std::vector<std::string> CvSet::column_names() const { return impl_->columns; }
const std::vector<CvSpec>& CvSet::specs() const { return impl_->specs; }

void CvSet::Impl::compute_frame(std::span<const double> xyz, const PeriodicBox* box,
                                double* row) const {
  for (const Term& t : terms) {
    double* out = row + t.offset;
    switch (t.kind) {
      case Kind::Distance:
        out[0] = t.length_scale * distance(xyz, t.atoms[0], t.atoms[1], box);
        break;
      case Kind::Distances:
        for (std::size_t p = 0; p < t.pairs.size(); ++p)
          out[p] = t.length_scale * distance(xyz, t.pairs[p].first, t.pairs[p].second, box);
        break;
      case Kind::Angle: {
        const double theta = angle(xyz, t.atoms[0], t.atoms[1], t.atoms[2], box);
        if (t.sincos) {
          out[0] = std::sin(theta);
          out[1] = std::cos(theta);
        } else {
          out[0] = theta;
        }
        break;
      }
      case Kind::Dihedral:
      case Kind::PhiPsi: {
        const std::size_t k = t.dihedrals.size();
        for (std::size_t d = 0; d < k; ++d) {
          const auto& a = t.dihedrals[d];
          const double phi = dihedral(xyz, a[0], a[1], a[2], a[3], box);
          if (t.sincos) {
            out[d] = std::sin(phi);
            out[k + d] = std::cos(phi);
          } else {
            out[d] = phi;
          }
        }
        break;
      }
      case Kind::Rmsd:
        out[0] = t.length_scale * rmsd_after_fit(xyz, *t.reference, t.fit_atoms, t.atoms);
        break;
      case Kind::FittedCoords:
        fitted_coordinates(xyz, *t.reference, t.fit_atoms, t.atoms,
                           std::span<double>(out, std::size_t(t.width)));
        for (int c = 0; c < t.width; ++c) out[c] *= t.length_scale;
        break;
      case Kind::Rg:
        out[0] = t.length_scale * radius_of_gyration(xyz, t.atoms, t.masses);
        break;
      case Kind::Contacts:
        out[0] = contact_count(xyz, t.pairs, t.switching, box);
        break;
      case Kind::Q:
        out[0] = fraction_native_contacts(xyz, t.native, t.beta_per_nm, t.lambda, box);
        break;
    }
  }
}

void CvSet::compute(std::span<const double> frames, int n_frames,
                    std::span<const std::optional<structure::Box>> boxes, std::span<double> out,
                    int n_threads) const {
  const Impl& im = *impl_;
  const std::size_t frame_size = std::size_t(im.n_atoms) * 3;
  if (n_frames < 0 || frames.size() != std::size_t(n_frames) * frame_size)
    throw core::InputError("CV input has " + std::to_string(frames.size()) + " coordinates; " +
                           std::to_string(n_frames) + " frames of " + std::to_string(im.n_atoms) +
                           " atoms need " + std::to_string(std::size_t(n_frames) * frame_size));
  if (!boxes.empty() && boxes.size() != std::size_t(n_frames))
    throw core::InputError("CV input has " + std::to_string(boxes.size()) + " boxes for " +
                           std::to_string(n_frames) + " frames");
  TRAILS_CHECK(out.size() == std::size_t(n_frames) * std::size_t(im.dimension),
               "CV output buffer size does not match n_frames × dimension");
  // Boxes are validated before any output is written.
  std::vector<std::optional<PeriodicBox>> periodic(static_cast<std::size_t>(n_frames));
  for (std::size_t f = 0; f < boxes.size(); ++f) {
    if (!boxes[f]) continue;
    try {
      periodic[f].emplace(*boxes[f]);
    } catch (core::Error& e) {
      e.with_context("in frame " + std::to_string(f));
      throw;
    }
  }
  auto run = [&](int begin, int end) {
    for (int f = begin; f < end; ++f) {
      im.compute_frame(frames.subspan(std::size_t(f) * frame_size, frame_size),
                       periodic[f] ? &*periodic[f] : nullptr,
                       out.data() + std::size_t(f) * std::size_t(im.dimension));
    }
  };
  // Frames are independent, so the chunking does not change results; exceptions from a frame
  // reach the caller (core/thread_pool.h).
  const int threads = std::max(1, std::min(n_threads, n_frames));
  core::default_pool().parallel_for(
      std::size_t(n_frames), core::even_chunk(std::size_t(n_frames), std::size_t(threads)),
      [&](std::size_t begin, std::size_t end) { run(int(begin), int(end)); }, threads);
}

}  // namespace trails::cvs

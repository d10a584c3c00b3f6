#include "trails/store/shard_contents.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/store/position_grid.h"
#include "trails/store/run_store.h"
#include "trails/store/shard_grid.h"

namespace trails::store::detail {
namespace {

// /trails/record_policy: precision attribute, and atoms (indices into the full system) when
// the positions hold a selection.
void write_record_policy(const H5Writer& w, hid_t trails, const IterationRecord& r) {
  H5Handle g = w.group(trails, "record_policy");
  const auto& p = r.record_policy;
  w.attr_strings(g.get(), "precision",
                 {p.quantised() ? "grid"
                  : p.float32   ? "float32"
                                : "float64"},
                 true);
  w.attr_int(g.get(), "n_atoms", r.n_atoms);
  if (p.quantised()) {  // shard_grid.h
    w.attr_double(g.get(), "position_precision", p.position_precision);
    w.attr_int(g.get(), "group_rows", kGridGroupRows);
  }
  if (!r.record_policy.atoms.empty()) {
    std::vector<std::int64_t> atoms(r.record_policy.atoms.begin(), r.record_policy.atoms.end());
    w.dataset(g.get(), "atoms", H5T_STD_I64LE, H5T_NATIVE_INT64, {atoms.size()},
              sizeof(std::int64_t), atoms.data(), true);
  }
}

// /trails/final_state (each ok walker's state after its last step, indexed by walker) or
// /trails/spawn_starts (the next iteration's start configurations, indexed by slot): full
// float64 whatever the record policy, outside /particles so H5MD readers see only frames.
void write_states(const H5Writer& w, hid_t trails, const char* name, const char* index_name,
                  const IterationRecord& r, const std::vector<FinalState>& states) {
  const auto n = static_cast<hsize_t>(states.size());
  const auto atoms = static_cast<hsize_t>(r.n_atoms);
  const auto dim = static_cast<hsize_t>(r.spatial_dim);
  const auto values = static_cast<std::size_t>(atoms * dim);
  const bool velocities = n > 0 && !states.front().velocities.empty();
  const bool boxes = n > 0 && !states.front().box.empty();
  std::vector<std::int64_t> walker;
  std::vector<double> x, v, b;
  for (const auto& s : states) {
    TRAILS_CHECK(s.positions.size() == values && s.velocities.size() == (velocities ? values : 0) &&
                     s.box.size() == (boxes ? 9u : 0u),
                 "final states hold n_atoms x spatial_dim positions, and velocities and a box "
                 "for all walkers or for none");
    walker.push_back(s.walker);
    x.insert(x.end(), s.positions.begin(), s.positions.end());
    v.insert(v.end(), s.velocities.begin(), s.velocities.end());
    b.insert(b.end(), s.box.begin(), s.box.end());
  }
  H5Handle g = w.group(trails, name);
  w.dataset(g.get(), index_name, H5T_STD_I64LE, H5T_NATIVE_INT64, {n}, sizeof(std::int64_t),
            walker.data(), false);
  w.dataset(g.get(), "positions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, atoms, dim},
            sizeof(double), x.data(), false);
  if (velocities) {
    w.dataset(g.get(), "velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, atoms, dim},
              sizeof(double), v.data(), false);
  }
  if (boxes) {
    w.dataset(g.get(), "box", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, 3, 3}, sizeof(double),
              b.data(), false);
  }
}

// Per-row walker, frame, step and time (rows are ok walkers' frames in walker order).
struct RowColumns {
  std::vector<std::int64_t> walker, frame, step;
  std::vector<double> time;
};

RowColumns row_columns(const IterationRecord& r, hsize_t frames) {
  RowColumns c;
  c.walker.reserve(frames), c.frame.reserve(frames), c.step.reserve(frames), c.time.reserve(frames);
  for (const auto& wr : r.walkers) {
    if (!wr.ok) {
      continue;
    }
    for (std::int64_t f = 0; f < wr.n_frames; ++f) {
      c.walker.push_back(wr.walker);
      c.frame.push_back(f);
      c.step.push_back((f + 1) * r.stride);
      c.time.push_back(static_cast<double>(c.step.back()) * r.dt);
    }
  }
  return c;
}

// /h5md: the H5MD version, author and creator.
void write_h5md(const H5Writer& w, hid_t file) {
  H5Handle h5md = w.group(file, "h5md");
  const std::array<std::int32_t, 2> version{1, 1};
  w.attr(h5md.get(), "version", H5T_STD_I32LE, H5T_NATIVE_INT32, version.data(), 2, false);
  H5Handle author = w.group(h5md.get(), "author");
  w.attr_strings(author.get(), "name", {"Trails"}, true);
  H5Handle creator = w.group(h5md.get(), "creator");
  w.attr_strings(creator.get(), "name", {"trails"}, true);
  w.attr_strings(creator.get(), "version", {TRAILS_VERSION}, true);
}

// /particles/walkers/box, the positions' step and time, and the per-frame box edges of a
// periodic system.
void write_box_and_time(const H5Writer& w, hid_t file, hid_t walkers, hid_t position,
                        const IterationRecord& r, const RowColumns& rows) {
  const H5Context& h = w.h;
  const auto frames = static_cast<hsize_t>(r.n_frames());
  const bool periodic = !r.boxes.empty();
  TRAILS_CHECK(
      !periodic || (r.spatial_dim == 3 && r.boxes.size() == static_cast<std::size_t>(frames) * 9),
      "boxes must be 9 values per frame of a 3-D system");
  H5Handle box = w.group(walkers, "box");
  w.attr_int(box.get(), "dimension", r.spatial_dim);
  w.attr_strings(box.get(), "boundary",
                 std::vector<std::string>(static_cast<std::size_t>(r.spatial_dim),
                                          periodic ? "periodic" : "none"),
                 false);
  w.dataset(position, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
            rows.step.data(), true);
  w.dataset(position, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames}, sizeof(double),
            rows.time.data(), true);
  if (periodic) {
    // H5MD time-dependent box: edges [variable][D][D] (box vectors as rows), with the
    // position's step/time shared by hard links. Built-in runs have no box and no edges.
    H5Handle edges = w.group(box.get(), "edges");
    w.dataset(edges.get(), "value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames, 3, 3},
              sizeof(double), r.boxes.data(), false);
    h.check(H5Lcreate_hard(file, "/particles/walkers/position/step", edges.get(), "step",
                           H5P_DEFAULT, H5P_DEFAULT),
            "box step link");
    h.check(H5Lcreate_hard(file, "/particles/walkers/position/time", edges.get(), "time",
                           H5P_DEFAULT, H5P_DEFAULT),
            "box time link");
  }
}

// /observables: the CVs, the extra observables, and each row's walker and frame.
void write_observables(const H5Writer& w, hid_t file, const IterationRecord& r,
                       const RowColumns& rows) {
  const H5Context& h = w.h;
  const auto frames = static_cast<hsize_t>(r.n_frames());
  H5Handle observables = w.group(file, "observables");
  auto observable = [&](const char* name, hid_t file_type, hid_t mem_type,
                        std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
                        bool compress) {
    H5Handle g = w.group(observables.get(), name);
    w.dataset(g.get(), "value", file_type, mem_type, std::move(dims), elem_bytes, data, compress);
    // H5MD lets step/time be hard links to another element's: one copy, same rows.
    h.check(H5Lcreate_hard(file, "/particles/walkers/position/step", g.get(), "step", H5P_DEFAULT,
                           H5P_DEFAULT),
            "step link");
    h.check(H5Lcreate_hard(file, "/particles/walkers/position/time", g.get(), "time", H5P_DEFAULT,
                           H5P_DEFAULT),
            "time link");
  };
  observable("cvs", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames, static_cast<hsize_t>(r.cv_dim)},
             sizeof(double), r.cvs.data(),
             false);  // small, also in the ledger, and costly to deflate
  for (const auto& o : r.observables) {
    TRAILS_CHECK(o.n_columns > 0 && o.values.size() == static_cast<std::size_t>(frames) *
                                                           static_cast<std::size_t>(o.n_columns),
                 "an extra observable has one row per frame");
    observable(o.name.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
               {frames, static_cast<hsize_t>(o.n_columns)}, sizeof(double), o.values.data(), false);
  }
  observable("walker", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
             rows.walker.data(), true);
  observable("frame", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
             rows.frame.data(), true);
}

// /parameters: iteration, schema version, stride and time step.
void write_parameters(const H5Writer& w, hid_t file, const IterationRecord& r) {
  H5Handle parameters = w.group(file, "parameters");
  w.attr_int(parameters.get(), "iteration", r.iteration);
  w.attr_int(parameters.get(), "schema_version", kSchemaVersion);
  w.attr_int(parameters.get(), "stride", r.stride);
  w.attr_double(parameters.get(), "dt", r.dt);
}

}  // namespace

void append_positions(const H5Context& h, hid_t d, const ShardLayout& layout, hsize_t first,
                      std::span<const double> positions, std::vector<std::int64_t>& grid_row) {
  const auto& policy = layout.policy;
  const auto dim = static_cast<hsize_t>(layout.spatial_dim);
  const bool all_atoms = policy.atoms.empty();
  const auto kept = static_cast<hsize_t>(all_atoms ? layout.n_atoms : policy.atoms.size());
  const auto frame_values = static_cast<std::size_t>(layout.n_atoms) * dim;
  TRAILS_CHECK(frame_values > 0 && positions.size() % frame_values == 0,
               "appended positions are whole frames of n_atoms x spatial_dim");
  const hsize_t frames = positions.size() / frame_values;
  if (frames == 0) return;
  const std::array<hsize_t, 3> extent{first + frames, kept, dim};
  h.check(H5Dset_extent(d, extent.data()), "positions extent");
  const auto write_block = [&](hsize_t f0, hsize_t nf, hid_t mem_type, const void* data) {
    const std::array<hsize_t, 3> start{first + f0, 0, 0};
    const std::array<hsize_t, 3> count{nf, kept, dim};
    H5Handle file_space = h.own(H5Dget_space(d), H5Sclose, "positions");
    h.check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                count.data(), nullptr),
            "positions block");
    H5Handle mem_space = h.own(H5Screate_simple(3, count.data(), nullptr), H5Sclose, "block");
    h.check(H5Dwrite(d, mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data),
            "positions block");
  };
  if (all_atoms && !policy.quantised()) {
    write_block(0, frames, H5T_NATIVE_DOUBLE, positions.data());
    return;
  }
  // The kept atoms of frame f, in a reused buffer.
  std::vector<double> kept_values;
  const auto kept_of = [&](hsize_t f) -> std::span<const double> {
    const double* frame = positions.data() + f * frame_values;
    if (all_atoms) return {frame, frame_values};
    kept_values.clear();
    for (const int a : policy.atoms) {
      kept_values.insert(kept_values.end(), frame + static_cast<std::size_t>(a) * dim,
                         frame + (static_cast<std::size_t>(a) + 1) * dim);
    }
    return kept_values;
  };
  const auto row_values = static_cast<std::size_t>(kept * dim);
  const hsize_t block = std::max<hsize_t>(1, (hsize_t{1} << 20) / (row_values * sizeof(double)));
  if (!policy.quantised()) {
    std::vector<double> buffer;
    for (hsize_t f0 = 0; f0 < frames; f0 += block) {
      const hsize_t nf = std::min(block, frames - f0);
      buffer.clear();
      for (hsize_t f = f0; f < f0 + nf; ++f) {
        const auto values = kept_of(f);
        buffer.insert(buffer.end(), values.begin(), values.end());
      }
      write_block(f0, nf, H5T_NATIVE_DOUBLE, buffer.data());
    }
    return;
  }
  // Grid indices, coded against the row before (shard_grid.h); grid_row carries the last row
  // from one append to the next.
  const double step = policy.position_precision;
  std::vector<std::uint32_t> words;
  std::vector<std::int64_t> row(row_values);
  for (hsize_t f0 = 0; f0 < frames; f0 += block) {
    const hsize_t nf = std::min(block, frames - f0);
    words.resize(static_cast<std::size_t>(nf) * row_values);
    for (hsize_t f = f0; f < f0 + nf; ++f) {
      const auto values = kept_of(f);
      if (const auto why = off_grid(values, step))
        h.fail("frame " + std::to_string(first + f) + ": " + *why);
      for (std::size_t i = 0; i < row_values; ++i) row[i] = grid_index(values[i], step);
      const bool starts_group = (first + f) % static_cast<hsize_t>(kGridGroupRows) == 0;
      TRAILS_CHECK(starts_group || grid_row.size() == row_values,
                   "a row inside a group follows the row before it");
      encode_grid_row(
          row, starts_group ? std::span<const std::int64_t>{} : grid_row, dim,
          std::span(words).subspan(static_cast<std::size_t>(f - f0) * row_values, row_values));
      grid_row = row;
    }
    write_block(f0, nf, H5T_NATIVE_UINT32, words.data());
  }
}

void write_contents(const H5Writer& w, hid_t file, hid_t walkers, hid_t position,
                    const IterationRecord& r) {
  const RowColumns rows = row_columns(r, static_cast<hsize_t>(r.n_frames()));
  write_h5md(w, file);
  write_box_and_time(w, file, walkers, position, r, rows);
  write_observables(w, file, r, rows);
  write_parameters(w, file, r);
  H5Handle trails = w.group(file, "trails");
  write_record_policy(w, trails.get(), r);
  write_states(w, trails.get(), "final_state", "walker", r, r.final_states);
  if (!r.spawn_starts.empty()) {
    write_states(w, trails.get(), "spawn_starts", "slot", r, r.spawn_starts);
  }
}

}  // namespace trails::store::detail

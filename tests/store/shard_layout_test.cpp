// The shard of an iteration, read back with the HDF5 C API: the H5MD 1.1 groups, attributes and
// datasets, their types, chunking and compression, the row order (ok walkers in walker order),
// step/time, byte-for-byte determinism, and that h5dump can read it.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <cstdlib>

#include "store_test_util.h"

namespace trails::store::test {
namespace {

struct H5File {
  hid_t id;
  explicit H5File(const fs::path& p) : id(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() {
    if (id >= 0) {
      H5Fclose(id);
    }
  }
};

std::vector<hsize_t> dims_of(hid_t file, const char* path) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  hid_t s = H5Dget_space(d);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)));
  H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  H5Sclose(s);
  H5Dclose(d);
  return dims;
}

template <class T>
std::vector<T> read_all(hid_t file, const char* path, hid_t mem_type, H5T_class_t cls) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  hid_t type = H5Dget_type(d);
  EXPECT_EQ(H5Tget_class(type), cls) << path;
  EXPECT_EQ(H5Tget_size(type), 8u) << path;
  H5Tclose(type);
  hid_t s = H5Dget_space(d);
  std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
  H5Sclose(s);
  if (!out.empty()) {
    EXPECT_GE(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
  }
  H5Dclose(d);
  return out;
}

std::vector<std::int64_t> int_attr(hid_t file, const char* obj, const char* name) {
  hid_t a = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << obj << " @" << name;
  hid_t s = H5Aget_space(a);
  std::vector<std::int64_t> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
  H5Aread(a, H5T_NATIVE_INT64, out.data());
  H5Sclose(s);
  H5Aclose(a);
  return out;
}

std::vector<std::string> string_attr(hid_t file, const char* obj, const char* name) {
  hid_t a = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << obj << " @" << name;
  hid_t type = H5Aget_type(a);
  EXPECT_EQ(H5Tget_class(type), H5T_STRING);
  const std::size_t width = H5Tget_size(type);
  hid_t s = H5Aget_space(a);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(s));
  std::vector<char> buf(width * n + 1, '\0');
  H5Aread(a, type, buf.data());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.emplace_back(buf.data() + i * width);
  }
  H5Sclose(s);
  H5Tclose(type);
  H5Aclose(a);
  return out;
}

class ShardLayoutTest : public StoreTest {};

TEST_F(ShardLayoutTest, FollowsH5md) {
  Shape shape;
  shape.failed = {1};  // rows skip walker 1
  const auto r = make_record(3, shape);
  fs::path path;
  {
    auto store = RunStore::create(dir_, test_meta());
    for (int i = 0; i < 3; ++i) {
      store.commit(make_record(i));
    }
    store.commit(r);
    path = store.shard_path(3);
  }
  ASSERT_TRUE(fs::is_regular_file(path));
  H5File f(path);
  ASSERT_GE(f.id, 0);

  EXPECT_EQ(int_attr(f.id, "/h5md", "version"), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(string_attr(f.id, "/h5md/author", "name"), std::vector<std::string>{"Trails"});
  EXPECT_EQ(string_attr(f.id, "/h5md/creator", "name"), std::vector<std::string>{"trails"});
  EXPECT_EQ(string_attr(f.id, "/h5md/creator", "version"),
            std::vector<std::string>{TRAILS_VERSION});
  EXPECT_EQ(int_attr(f.id, "/particles/walkers/box", "dimension"),
            std::vector<std::int64_t>{r.spatial_dim});
  EXPECT_EQ(string_attr(f.id, "/particles/walkers/box", "boundary"),
            std::vector<std::string>(3, "none"));
  EXPECT_EQ(int_attr(f.id, "/parameters", "iteration"), std::vector<std::int64_t>{3});
  EXPECT_EQ(int_attr(f.id, "/parameters", "schema_version"),
            std::vector<std::int64_t>{kSchemaVersion});

  const auto frames = static_cast<hsize_t>(r.n_frames());
  EXPECT_EQ(dims_of(f.id, "/particles/walkers/position/value"),
            (std::vector<hsize_t>{frames, 3, 3}));
  EXPECT_TRUE(same_bits(
      read_all<double>(f.id, "/particles/walkers/position/value", H5T_NATIVE_DOUBLE, H5T_FLOAT),
      r.positions));
  EXPECT_EQ(dims_of(f.id, "/observables/cvs/value"), (std::vector<hsize_t>{frames, 2}));
  EXPECT_TRUE(same_bits(
      read_all<double>(f.id, "/observables/cvs/value", H5T_NATIVE_DOUBLE, H5T_FLOAT), r.cvs));

  std::vector<std::int64_t> walker, frame, step;
  std::vector<double> time;
  for (const auto& w : r.walkers) {
    for (std::int64_t k = 0; w.ok && k < w.n_frames; ++k) {
      walker.push_back(w.walker);
      frame.push_back(k);
      step.push_back((k + 1) * r.stride);
      time.push_back(static_cast<double>(step.back()) * r.dt);
    }
  }
  EXPECT_EQ(
      read_all<std::int64_t>(f.id, "/observables/walker/value", H5T_NATIVE_INT64, H5T_INTEGER),
      walker);
  EXPECT_EQ(read_all<std::int64_t>(f.id, "/observables/frame/value", H5T_NATIVE_INT64, H5T_INTEGER),
            frame);
  EXPECT_EQ(read_all<std::int64_t>(f.id, "/particles/walkers/position/step", H5T_NATIVE_INT64,
                                   H5T_INTEGER),
            step);
  EXPECT_TRUE(same_bits(
      read_all<double>(f.id, "/particles/walkers/position/time", H5T_NATIVE_DOUBLE, H5T_FLOAT),
      time));
  for (const char* obs :
       {"/observables/cvs/step", "/observables/walker/step", "/observables/frame/step"}) {
    EXPECT_EQ(read_all<std::int64_t>(f.id, obs, H5T_NATIVE_INT64, H5T_INTEGER), step) << obs;
  }

  // Positions are chunked, shuffled and deflated, with an unlimited ([variable]) first axis.
  hid_t d = H5Dopen2(f.id, "/particles/walkers/position/value", H5P_DEFAULT);
  hid_t dcpl = H5Dget_create_plist(d);
  EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
  std::vector<H5Z_filter_t> filters;
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0;
    std::size_t n = 0;
    filters.push_back(
        H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &n, nullptr, 0, nullptr, nullptr));
  }
  EXPECT_EQ(filters, (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}));
  hid_t space = H5Dget_space(d);
  std::array<hsize_t, 3> maxdims{};
  H5Sget_simple_extent_dims(space, nullptr, maxdims.data());
  EXPECT_EQ(maxdims[0], H5S_UNLIMITED);
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Dclose(d);
}

TEST_F(ShardLayoutTest, ZeroFrameShardIsValid) {
  Shape shape;
  shape.failed = {0, 1, 2, 3};
  fs::path path;
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0, shape));
    path = store.shard_path(0);
  }
  H5File f(path);
  ASSERT_GE(f.id, 0);
  EXPECT_EQ(dims_of(f.id, "/particles/walkers/position/value"), (std::vector<hsize_t>{0, 3, 3}));
  EXPECT_EQ(dims_of(f.id, "/observables/cvs/value"), (std::vector<hsize_t>{0, 2}));
  EXPECT_EQ(dims_of(f.id, "/observables/walker/value"), (std::vector<hsize_t>{0}));
}

TEST_F(ShardLayoutTest, ShardBytesDependOnTheRecordOnly) {
  const auto r = make_record(0);
  const fs::path a = dir_ / "a";
  const fs::path b = dir_ / "b";
  { RunStore::create(a, test_meta()).commit(r); }
  { RunStore::create(b, test_meta()).commit(r); }
  const auto bytes = read_bytes(a / "shards" / "iter_000000.h5");
  EXPECT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes, read_bytes(b / "shards" / "iter_000000.h5"));
}

TEST_F(ShardLayoutTest, H5dumpReadsTheShard) {
  if (std::system("command -v h5dump >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no h5dump";
  }
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
  }
  const std::string cmd = "h5dump -H " + (dir_ / "shards" / "iter_000000.h5").string() + " > " +
                          (dir_ / "dump.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto text = read_bytes(dir_ / "dump.txt");
  const std::string dump(text.begin(), text.end());
  for (const char* part : {"GROUP \"h5md\"", "GROUP \"particles\"", "DATASET \"value\"",
                           "GROUP \"observables\"", "ATTRIBUTE \"boundary\""}) {
    EXPECT_NE(dump.find(part), std::string::npos) << part;
  }
}

}  // namespace
}  // namespace trails::store::test

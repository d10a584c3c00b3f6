// The wire format (docs/execution.md): every field of SegmentTask and SegmentResult round-trips
// bitwise (NaN payloads, infinities, -0.0, empty vs non-empty vectors), the body carries exactly
// as many fields as the structs have (so a new field cannot be forgotten), the version is checked
// with both versions named, damaged bytes are CorruptionErrors naming the field, and frames on a
// pipe survive a round trip while truncated, oversized and foreign streams are refused by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/exec/wire/wire.h"

namespace trails::exec::wire {
namespace {

using engines::Configuration;
using engines::SegmentResult;
using engines::SegmentTask;
using json = nlohmann::json;

double bits(std::uint64_t b) { return std::bit_cast<double>(b); }

// Values a float64 path must not canonicalise: NaN with payload and sign, infinities, -0.0,
// a subnormal, the extremes, a value that would fit a float32 and one that would not.
std::vector<double> awkward_doubles() {
  return {bits(0x7ff8dead0000beefULL),
          bits(0xfff0000000000001ULL),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(),
          -0.0,
          std::numeric_limits<double>::denorm_min(),
          std::numeric_limits<double>::max(),
          std::numeric_limits<double>::lowest(),
          0.5,
          0.1};
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_same(const Configuration& a, const Configuration& b) {
  EXPECT_EQ(a.n_atoms, b.n_atoms);
  EXPECT_EQ(a.spatial_dim, b.spatial_dim);
  EXPECT_TRUE(same_bits(a.positions, b.positions));
  EXPECT_TRUE(same_bits(a.velocities, b.velocities));
  EXPECT_TRUE(same_bits(a.box, b.box));
}

SegmentTask full_task() {
  SegmentTask t;
  t.task_id = -17;
  t.iteration = std::int64_t{1} << 40;
  t.walker = 123456;
  t.start.n_atoms = 5;
  t.start.spatial_dim = 3;
  t.start.positions = awkward_doubles();
  t.start.velocities = {1.0, -2.0, bits(0x7ff0000000000abcULL)};
  t.start.box = {};  // empty stays empty
  t.steps = 5'000'000'000;
  t.stride = 250;
  t.seed = std::numeric_limits<std::uint64_t>::max();
  return t;
}

SegmentResult full_result() {
  SegmentResult r;
  r.task_id = 99;
  r.status = engines::SegmentStatus::Ok;
  r.error = std::string("line one\nNUL->") + '\0' + "<-, non-ASCII: \u00c5ngstr\u00f6m";
  r.n_atoms = 3;
  r.spatial_dim = 3;
  r.n_frames = 2;
  r.frames = awkward_doubles();
  r.frame_boxes = {2.0, 0, 0, 0, 2.0, 0, 0, 0, 2.0};
  r.final_state.n_atoms = 3;
  r.final_state.spatial_dim = 3;
  r.final_state.positions = {0.25};
  r.final_state.velocities = {};
  r.final_state.box = {-0.0};
  r.startup_s = bits(0x7ff8000000000001ULL);
  r.integrate_s = 1.0 / 3.0;
  r.extract_s = -std::numeric_limits<double>::infinity();
  r.recovered = true;
  r.platform = "CPU";
  r.device = "CPU threads=4";
  r.visible_devices = "CUDA_VISIBLE_DEVICES=0,1";
  r.host = "node042";
  return r;
}

json body_of(const std::vector<std::uint8_t>& bytes) { return json::from_cbor(bytes).at("body"); }

TEST(Wire, TaskRoundTripsEveryFieldBitwise) {
  const SegmentTask t = full_task();
  const std::vector<std::uint8_t> bytes = encode(t);
  const Message m = decode(bytes);
  ASSERT_EQ(kind_of(m), MessageKind::Task);
  const auto& d = std::get<SegmentTask>(m);
  EXPECT_EQ(d.task_id, t.task_id);
  EXPECT_EQ(d.iteration, t.iteration);
  EXPECT_EQ(d.walker, t.walker);
  expect_same(d.start, t.start);
  EXPECT_EQ(d.steps, t.steps);
  EXPECT_EQ(d.stride, t.stride);
  EXPECT_EQ(d.seed, t.seed);
  EXPECT_EQ(encode(d), bytes);  // nothing lost: the re-encoding is byte-identical
}

TEST(Wire, ResultRoundTripsEveryFieldBitwise) {
  for (const auto status : {engines::SegmentStatus::Ok, engines::SegmentStatus::Failed}) {
    SegmentResult r = full_result();
    r.status = status;
    const std::vector<std::uint8_t> bytes = encode(r);
    const auto d = std::get<SegmentResult>(decode(bytes));
    EXPECT_EQ(d.task_id, r.task_id);
    EXPECT_EQ(d.status, r.status);
    EXPECT_EQ(d.error, r.error);
    EXPECT_EQ(d.n_atoms, r.n_atoms);
    EXPECT_EQ(d.spatial_dim, r.spatial_dim);
    EXPECT_EQ(d.n_frames, r.n_frames);
    EXPECT_TRUE(same_bits(d.frames, r.frames));
    EXPECT_TRUE(same_bits(d.frame_boxes, r.frame_boxes));
    expect_same(d.final_state, r.final_state);
    EXPECT_TRUE(same_bits(d.startup_s, r.startup_s));
    EXPECT_TRUE(same_bits(d.integrate_s, r.integrate_s));
    EXPECT_TRUE(same_bits(d.extract_s, r.extract_s));
    EXPECT_EQ(d.recovered, r.recovered);
    EXPECT_EQ(d.platform, r.platform);
    EXPECT_EQ(d.device, r.device);
    EXPECT_EQ(d.visible_devices, r.visible_devices);
    EXPECT_EQ(d.host, r.host);
    EXPECT_EQ(encode(d), bytes);
  }
}

// The body has one key per struct field (the counts wire.cpp checks against the structs at
// compile time), and the test structs above set every one of them away from its default.
TEST(Wire, BodiesCarryEveryFieldAndTheTestsSetEveryOne) {
  static_assert(detail::field_count<SegmentTask>() == kSegmentTaskFields);
  static_assert(detail::field_count<SegmentResult>() == kSegmentResultFields);
  static_assert(detail::field_count<Configuration>() == kConfigurationFields);
  const json task = body_of(encode(full_task()));
  const json task0 = body_of(encode(SegmentTask{}));
  const json result = body_of(encode(full_result()));
  const json result0 = body_of(encode(SegmentResult{}));
  EXPECT_EQ(task.size(), kSegmentTaskFields);
  EXPECT_EQ(task.at("start").size(), kConfigurationFields);
  EXPECT_EQ(result.size(), kSegmentResultFields);
  for (const auto& [key, value] : task.items()) EXPECT_NE(value, task0.at(key)) << key;
  for (const auto& [key, value] : result.items()) EXPECT_NE(value, result0.at(key)) << key;
  for (const auto& [key, value] : task.at("start").items()) {
    if (key != "box") EXPECT_NE(value, task0.at("start").at(key)) << key;  // box: empty case
  }
  EXPECT_FALSE(result.at("final_state").at("box").get_binary().empty());  // non-empty case
}

TEST(Wire, ControlMessagesRoundTrip) {
  Hello h{"trails 0.1.0 worker", "openmm", "node7", 4242, engines::Slot{3, 1, 0}};
  const auto dh = std::get<Hello>(decode(encode(h)));
  EXPECT_EQ(dh.program, h.program);
  EXPECT_EQ(dh.engine, h.engine);
  EXPECT_EQ(dh.host, h.host);
  EXPECT_EQ(dh.pid, h.pid);
  EXPECT_EQ(dh.slot, h.slot);
  h.slot.device.reset();
  EXPECT_EQ(std::get<Hello>(decode(encode(h))).slot, h.slot);
  EXPECT_EQ(std::get<Heartbeat>(decode(encode(Heartbeat{77}))).sequence, 77);
  EXPECT_EQ(std::get<Shutdown>(decode(encode(Shutdown{"campaign done"}))).reason, "campaign done");
  const auto e = std::get<ErrorReport>(decode(encode(ErrorReport{5, "no GPU"})));
  EXPECT_EQ(e.task_id, 5);
  EXPECT_EQ(e.message, "no GPU");
  EXPECT_EQ(kind_of(Message{Shutdown{}}), MessageKind::Shutdown);
  EXPECT_EQ(name(MessageKind::Result), "result");
  EXPECT_EQ(name(MessageKind::Error), "error");
  EXPECT_EQ(name(MessageKind::Setup), "setup");
  EXPECT_EQ(std::get<Stop>(decode(encode(Stop{15}))).signal, 15);
  EXPECT_EQ(kind_of(Message{Stop{2}}), MessageKind::Stop);
  EXPECT_EQ(name(MessageKind::Stop), "stop");
}

// Setup (version 2) carries the slot, the heartbeat interval and the engine setup verbatim,
// bytes that are not valid UTF-8 or CBOR included.
TEST(Wire, SetupRoundTripsItsOpaqueEngineSetup) {
  const wire::Setup s{engines::Slot{2, 0, 1}, 250, {0x00, 0xff, 0xc3, 0x28, 0x7f}};
  const auto d = std::get<wire::Setup>(decode(encode(s)));
  EXPECT_EQ(d.slot, s.slot);
  EXPECT_EQ(d.heartbeat_ms, 250);
  EXPECT_EQ(d.engine_setup, s.engine_setup);
  EXPECT_EQ(kind_of(Message{s}), MessageKind::Setup);
  EXPECT_EQ(kVersion, 3u);
  json e = json::from_cbor(encode(s));
  e["body"]["engine_setup"] = "text";
  EXPECT_THROW(decode(json::to_cbor(e)), core::CorruptionError);
  e["body"].erase("engine_setup");
  EXPECT_THROW(decode(json::to_cbor(e)), core::CorruptionError);
}

std::vector<std::uint8_t> with_envelope(const std::string& key, const json& value) {
  json e = json::from_cbor(encode(full_task()));
  e[key] = value;
  return json::to_cbor(e);
}

template <class E>
std::string error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    decode(bytes);
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "decode did not throw the expected error";
  return "";
}

TEST(Wire, VersionMismatchNamesBothVersions) {
  const std::string what = error_of<core::InputError>(with_envelope("version", kVersion + 1));
  EXPECT_NE(what.find("version " + std::to_string(kVersion + 1) + " from the peer"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("speaks version " + std::to_string(kVersion)), std::string::npos) << what;
  // The version is checked before the body is looked at.
  json e = json::from_cbor(with_envelope("version", kVersion + 1));
  e["body"] = "a body of a future format";
  EXPECT_FALSE(error_of<core::InputError>(json::to_cbor(e)).empty());
}

TEST(Wire, DamagedMessagesNameWhatIsWrong) {
  EXPECT_NE(error_of<core::CorruptionError>(with_envelope("format", "other"))
                .find("not a Trails wire message"),
            std::string::npos);
  EXPECT_NE(
      error_of<core::CorruptionError>(with_envelope("kind", 42)).find("unknown message kind 42"),
      std::string::npos);
  json e = json::from_cbor(encode(full_task()));
  e["body"]["start"]["positions"] = std::vector<double>{1.0};  // a CBOR array, not float64 bytes
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e))
                .find("task.start.positions: expected float64 bytes"),
            std::string::npos);
  e = json::from_cbor(encode(full_task()));
  e["body"]["start"]["positions"] = json::binary({1, 2, 3});
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e)).find("3 bytes is not a whole number"),
            std::string::npos);
  e = json::from_cbor(encode(full_task()));
  e["body"].erase("seed");
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e)).find("task.seed: missing"),
            std::string::npos);
  e = json::from_cbor(encode(full_task()));
  e["body"]["priority"] = 1;
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e)).find("task.priority: unknown field"),
            std::string::npos);
  e = json::from_cbor(encode(full_result()));
  e["body"]["status"] = "maybe";
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e)).find("result.status"),
            std::string::npos);
  e = json::from_cbor(encode(full_result()));
  e["body"]["n_atoms"] = std::int64_t{1} << 40;
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(e))
                .find("result.n_atoms: integer out of the int range"),
            std::string::npos);
}

TEST(Wire, GarbageAndTruncatedBytesAreCorruptionErrors) {
  EXPECT_NE(error_of<core::CorruptionError>({}).find("not CBOR"), std::string::npos);
  EXPECT_NE(error_of<core::CorruptionError>(json::to_cbor(json(42))).find("expected a map"),
            std::string::npos);
  const std::vector<std::uint8_t> good = encode(full_result());
  for (std::size_t cut : {std::size_t{1}, good.size() / 2, good.size() - 1}) {
    EXPECT_NE(error_of<core::CorruptionError>({good.begin(), good.begin() + static_cast<long>(cut)})
                  .find("not CBOR"),
              std::string::npos)
        << cut;
  }
  // Random bytes and single-byte damage never crash: they decode or throw a Trails error.
  core::Rng rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::uint8_t> bytes = good;
    if (trial % 2 == 0) {
      bytes.assign(rng.below(64), 0);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.below(256));
    } else {
      bytes[rng.below(bytes.size())] = static_cast<std::uint8_t>(rng.below(256));
    }
    try {
      decode(bytes);
    } catch (const core::Error&) {
    }
  }
}

// A pipe whose ends close with the test.
struct Pipe {
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    close_write();
    if (fds[0] >= 0) ::close(fds[0]);
  }
  void close_write() {
    if (fds[1] >= 0) ::close(fds[1]);
    fds[1] = -1;
  }
  void raw(const std::vector<std::uint8_t>& bytes) {
    ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  int in() const { return fds[0]; }
  int out() const { return fds[1]; }
  int fds[2] = {-1, -1};
};

template <class F>
std::string corruption_of(F&& f) {
  try {
    f();
  } catch (const core::CorruptionError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CorruptionError";
  return "";
}

TEST(WireFrame, MessagesRoundTripThroughAPipeAndEndCleanly) {
  Pipe p;
  write_message(p.out(), full_task());
  write_message(p.out(), Heartbeat{1});
  write_message(p.out(), full_result());
  p.close_write();
  EXPECT_EQ(encode(*read_message(p.in())), encode(full_task()));
  EXPECT_EQ(std::get<Heartbeat>(*read_message(p.in())).sequence, 1);
  EXPECT_EQ(encode(*read_message(p.in())), encode(full_result()));
  EXPECT_FALSE(read_message(p.in()).has_value());  // end of stream between frames
}

TEST(WireFrame, TruncatedFramesAreRefused) {
  {
    Pipe p;
    p.raw({'T', 'R', 'W', 'F', 9});
    p.close_write();
    EXPECT_NE(corruption_of([&] { read_frame(p.in()); }).find("after 5 of the 8 header bytes"),
              std::string::npos);
  }
  {
    Pipe p;
    p.raw({'T', 'R', 'W', 'F', 100, 0, 0, 0, 1, 2, 3});
    p.close_write();
    EXPECT_NE(corruption_of([&] {
                read_frame(p.in());
              }).find("announces 100 bytes, the stream ended after 3"),
              std::string::npos);
  }
}

TEST(WireFrame, OversizedFramesAreRefusedOnBothSides) {
  const std::vector<std::uint8_t> payload = encode(full_result());
  Pipe p;
  EXPECT_NE(corruption_of([&] {
              write_frame(p.out(), payload, 64);
            }).find("over the frame limit of 64 bytes"),
            std::string::npos);
  p.raw({'T', 'R', 'W', 'F', 0, 0, 0, 0x80});  // announces 2 GiB
  EXPECT_NE(corruption_of([&] {
              read_frame(p.in());
            }).find("2147483648 bytes is over the limit of 1073741824"),
            std::string::npos);
}

TEST(WireFrame, AForeignStreamIsNamedAtOnce) {
  Pipe p;
  const std::string text = "Loading plugins...\n";
  p.raw({text.begin(), text.end()});
  EXPECT_NE(corruption_of([&] {
              read_frame(p.in());
            }).find("not a Trails wire frame (first bytes 4c 6f 61 64"),
            std::string::npos);
}

// take_frame: frames out of bytes that arrive in pieces (a non-blocking pipe).
TEST(WireFrame, TakeFrameCutsWholeFramesFromABuffer) {
  const std::vector<std::uint8_t> a = frame_of(encode(full_task()));
  const std::vector<std::uint8_t> b = frame_of(encode(Heartbeat{9}));
  std::vector<std::uint8_t> stream = a;
  stream.insert(stream.end(), b.begin(), b.end());
  std::vector<std::uint8_t> buffer;
  std::vector<std::vector<std::uint8_t>> got;
  for (const std::uint8_t byte : stream) {  // one byte at a time: every split point
    buffer.push_back(byte);
    while (auto payload = take_frame(buffer)) got.push_back(std::move(*payload));
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], encode(full_task()));
  EXPECT_EQ(std::get<Heartbeat>(decode(got[1])).sequence, 9);
  EXPECT_TRUE(buffer.empty());
  std::vector<std::uint8_t> foreign = {'L', 'o'};
  EXPECT_NE(corruption_of([&] { take_frame(foreign); }).find("not a Trails wire frame"),
            std::string::npos);
  std::vector<std::uint8_t> huge = {'T', 'R', 'W', 'F', 0, 0, 0, 0x80};
  EXPECT_NE(corruption_of([&] { take_frame(huge); }).find("over the limit"), std::string::npos);
}

}  // namespace
}  // namespace trails::exec::wire

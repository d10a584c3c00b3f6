// Encoding and decoding of wire messages (wire.h). Bodies are CBOR maps keyed by field name;
// FieldReader gives each decode error the field's path ("result.final_state.box") and rejects
// keys it did not read, so a peer that sends fields this build does not know is caught even if
// it claims the same version.
#include "trails/exec/wire/wire.h"

#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "trails/core/error.h"

namespace trails::exec::wire {

static_assert(
    detail::field_count<engines::Configuration>() == kConfigurationFields,
    "Configuration changed: encode/decode the field here, extend tests/exec/wire_test.cpp, "
    "bump kVersion, then update kConfigurationFields");
static_assert(detail::field_count<engines::SegmentTask>() == kSegmentTaskFields,
              "SegmentTask changed: encode/decode the field here, extend tests/exec/wire_test.cpp, "
              "bump kVersion, then update kSegmentTaskFields");
static_assert(
    detail::field_count<engines::SegmentResult>() == kSegmentResultFields,
    "SegmentResult changed: encode/decode the field here, extend tests/exec/wire_test.cpp, "
    "bump kVersion, then update kSegmentResultFields");

// kind_of() maps the variant's alternative index to the enum: keep them in the same order.
static_assert(std::variant_size_v<Message> == 8);
static_assert(std::is_same_v<std::variant_alternative_t<0, Message>, Hello>);
static_assert(std::is_same_v<std::variant_alternative_t<1, Message>, engines::SegmentTask>);
static_assert(std::is_same_v<std::variant_alternative_t<2, Message>, engines::SegmentResult>);
static_assert(std::is_same_v<std::variant_alternative_t<3, Message>, Heartbeat>);
static_assert(std::is_same_v<std::variant_alternative_t<4, Message>, Shutdown>);
static_assert(std::is_same_v<std::variant_alternative_t<5, Message>, ErrorReport>);
static_assert(std::is_same_v<std::variant_alternative_t<6, Message>, Setup>);
static_assert(std::is_same_v<std::variant_alternative_t<7, Message>, Stop>);
static_assert(static_cast<int>(MessageKind::Setup) == 7);
static_assert(static_cast<int>(MessageKind::Stop) == 8);

namespace {

using json = nlohmann::json;
constexpr const char* kFormatName = "trails-wire";

[[noreturn]] void corrupt(const std::string& what) {
  throw core::CorruptionError("wire message: " + what);
}

json f64s(std::span<const double> values) {
  std::vector<std::uint8_t> bytes(values.size() * 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto bits = std::bit_cast<std::uint64_t>(values[i]);
    for (int b = 0; b < 8; ++b) bytes[8 * i + b] = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  return json::binary(std::move(bytes));
}
json f64(double value) { return f64s(std::span<const double>(&value, 1)); }

class FieldReader {
 public:
  FieldReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) corrupt(path_ + ": expected a map, got " + object_.type_name());
  }
  ~FieldReader() = default;

  const json& at(const char* key) {
    const auto it = object_.find(key);
    if (it == object_.end()) corrupt(path_ + "." + key + ": missing");
    read_.insert(key);
    return *it;
  }
  std::string path(const char* key) const { return path_ + "." + key; }

  std::int64_t i64(const char* key) {
    const json& v = at(key);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) {
      corrupt(path(key) + ": integer out of the int64 range");
    }
    if (!v.is_number_integer()) corrupt(path(key) + ": expected an integer, got " + v.type_name());
    return v.get<std::int64_t>();
  }
  std::uint64_t u64(const char* key) {
    const json& v = at(key);
    if (!v.is_number_unsigned()) {
      corrupt(path(key) + ": expected an unsigned integer, got " + v.type_name());
    }
    return v.get<std::uint64_t>();
  }
  int i32(const char* key) {
    const std::int64_t v = i64(key);
    if (v < INT32_MIN || v > INT32_MAX) corrupt(path(key) + ": integer out of the int range");
    return static_cast<int>(v);
  }
  bool boolean(const char* key) {
    const json& v = at(key);
    if (!v.is_boolean()) corrupt(path(key) + ": expected a boolean, got " + v.type_name());
    return v.get<bool>();
  }
  std::string str(const char* key) {
    const json& v = at(key);
    if (!v.is_string()) corrupt(path(key) + ": expected a string, got " + v.type_name());
    return v.get<std::string>();
  }
  std::vector<double> f64s(const char* key) {
    const json& v = at(key);
    if (!v.is_binary()) corrupt(path(key) + ": expected float64 bytes, got " + v.type_name());
    const auto& bytes = v.get_binary();
    if (bytes.size() % 8 != 0) {
      corrupt(
          fmt::format("{}: {} bytes is not a whole number of float64", path(key), bytes.size()));
    }
    std::vector<double> out(bytes.size() / 8);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint64_t bits = 0;
      for (int b = 0; b < 8; ++b) bits |= std::uint64_t{bytes[8 * i + b]} << (8 * b);
      out[i] = std::bit_cast<double>(bits);
    }
    return out;
  }
  double f64(const char* key) {
    const std::vector<double> v = f64s(key);
    if (v.size() != 1)
      corrupt(fmt::format("{}: expected one float64, got {}", path(key), v.size()));
    return v[0];
  }
  // Every key of the map must have been read.
  void finish() const {
    for (const auto& item : object_.items()) {
      if (!read_.contains(item.key())) {
        corrupt(path_ + "." + item.key() + ": unknown field (a peer built from other sources?)");
      }
    }
  }

 private:
  const json& object_;
  std::string path_;
  std::set<std::string> read_;
};

json encode_configuration(const engines::Configuration& c) {
  return {{"n_atoms", c.n_atoms},
          {"spatial_dim", c.spatial_dim},
          {"positions", f64s(c.positions)},
          {"velocities", f64s(c.velocities)},
          {"box", f64s(c.box)}};
}

engines::Configuration decode_configuration(const json& j, const std::string& path) {
  FieldReader r(j, path);
  engines::Configuration c;
  c.n_atoms = r.i32("n_atoms");
  c.spatial_dim = r.i32("spatial_dim");
  c.positions = r.f64s("positions");
  c.velocities = r.f64s("velocities");
  c.box = r.f64s("box");
  r.finish();
  return c;
}

json encode_body(const engines::SegmentTask& t) {
  return {{"task_id", t.task_id}, {"iteration", t.iteration},
          {"walker", t.walker},   {"start", encode_configuration(t.start)},
          {"steps", t.steps},     {"stride", t.stride},
          {"seed", t.seed}};
}

engines::SegmentTask decode_task(const json& j) {
  FieldReader r(j, "task");
  engines::SegmentTask t;
  t.task_id = r.i64("task_id");
  t.iteration = r.i64("iteration");
  t.walker = r.i64("walker");
  t.start = decode_configuration(r.at("start"), r.path("start"));
  t.steps = r.i64("steps");
  t.stride = r.i64("stride");
  t.seed = r.u64("seed");
  r.finish();
  return t;
}

json encode_body(const engines::SegmentResult& s) {
  return {{"task_id", s.task_id},
          {"status", s.status == engines::SegmentStatus::Ok ? "ok" : "failed"},
          {"error", s.error},
          {"n_atoms", s.n_atoms},
          {"spatial_dim", s.spatial_dim},
          {"n_frames", s.n_frames},
          {"frames", f64s(s.frames)},
          {"frame_boxes", f64s(s.frame_boxes)},
          {"final_state", encode_configuration(s.final_state)},
          {"startup_s", f64(s.startup_s)},
          {"integrate_s", f64(s.integrate_s)},
          {"extract_s", f64(s.extract_s)},
          {"recovered", s.recovered},
          {"platform", s.platform},
          {"device", s.device},
          {"visible_devices", s.visible_devices},
          {"host", s.host}};
}

engines::SegmentResult decode_result(const json& j) {
  FieldReader r(j, "result");
  engines::SegmentResult s;
  s.task_id = r.i64("task_id");
  const std::string status = r.str("status");
  if (status != "ok" && status != "failed") {
    corrupt("result.status: expected \"ok\" or \"failed\", got \"" + status + "\"");
  }
  s.status = status == "ok" ? engines::SegmentStatus::Ok : engines::SegmentStatus::Failed;
  s.error = r.str("error");
  s.n_atoms = r.i32("n_atoms");
  s.spatial_dim = r.i32("spatial_dim");
  s.n_frames = r.i64("n_frames");
  s.frames = r.f64s("frames");
  s.frame_boxes = r.f64s("frame_boxes");
  s.final_state = decode_configuration(r.at("final_state"), r.path("final_state"));
  s.startup_s = r.f64("startup_s");
  s.integrate_s = r.f64("integrate_s");
  s.extract_s = r.f64("extract_s");
  s.recovered = r.boolean("recovered");
  s.platform = r.str("platform");
  s.device = r.str("device");
  s.visible_devices = r.str("visible_devices");
  s.host = r.str("host");
  r.finish();
  return s;
}

json encode_slot(const engines::Slot& s) {
  json slot = {{"index", s.index}, {"worker", s.worker}};
  slot["device"] = s.device ? json(*s.device) : json(nullptr);
  return slot;
}

engines::Slot decode_slot(const json& j, const std::string& path) {
  FieldReader r(j, path);
  engines::Slot s;
  s.index = r.i32("index");
  s.worker = r.i32("worker");
  if (!r.at("device").is_null()) s.device = r.i32("device");
  r.finish();
  return s;
}

json encode_body(const Hello& h) {
  return {{"program", h.program},
          {"engine", h.engine},
          {"host", h.host},
          {"pid", h.pid},
          {"slot", encode_slot(h.slot)}};
}

json encode_body(const Setup& s) {
  return {{"slot", encode_slot(s.slot)},
          {"heartbeat_ms", s.heartbeat_ms},
          {"engine_setup", json::binary(s.engine_setup)}};
}

Setup decode_setup(const json& j) {
  FieldReader r(j, "setup");
  Setup s;
  s.slot = decode_slot(r.at("slot"), r.path("slot"));
  s.heartbeat_ms = r.i64("heartbeat_ms");
  const json& blob = r.at("engine_setup");
  if (!blob.is_binary())
    corrupt(r.path("engine_setup") + ": expected bytes, got " + blob.type_name());
  s.engine_setup = blob.get_binary();
  r.finish();
  return s;
}

Hello decode_hello(const json& j) {
  FieldReader r(j, "hello");
  Hello h;
  h.program = r.str("program");
  h.engine = r.str("engine");
  h.host = r.str("host");
  h.pid = r.i64("pid");
  h.slot = decode_slot(r.at("slot"), r.path("slot"));
  r.finish();
  return h;
}

json encode_body(const Heartbeat& h) { return {{"sequence", h.sequence}}; }
json encode_body(const Shutdown& s) { return {{"reason", s.reason}}; }
json encode_body(const Stop& s) { return {{"signal", s.signal}}; }
json encode_body(const ErrorReport& e) { return {{"task_id", e.task_id}, {"message", e.message}}; }

Message decode_body(MessageKind kind, const json& body) {
  switch (kind) {
    case MessageKind::Hello:
      return decode_hello(body);
    case MessageKind::Task:
      return decode_task(body);
    case MessageKind::Result:
      return decode_result(body);
    case MessageKind::Heartbeat: {
      FieldReader r(body, "heartbeat");
      Heartbeat h{r.i64("sequence")};
      r.finish();
      return h;
    }
    case MessageKind::Shutdown: {
      FieldReader r(body, "shutdown");
      Shutdown s{r.str("reason")};
      r.finish();
      return s;
    }
    case MessageKind::Error: {
      FieldReader r(body, "error");
      ErrorReport e{r.i64("task_id"), r.str("message")};
      r.finish();
      return e;
    }
    case MessageKind::Setup:
      return decode_setup(body);
    case MessageKind::Stop: {
      FieldReader r(body, "stop");
      Stop s{r.i64("signal")};
      r.finish();
      return s;
    }
  }
  corrupt("unreachable message kind");
}

}  // namespace

std::string_view name(MessageKind kind) {
  switch (kind) {
    case MessageKind::Hello:
      return "hello";
    case MessageKind::Task:
      return "task";
    case MessageKind::Result:
      return "result";
    case MessageKind::Heartbeat:
      return "heartbeat";
    case MessageKind::Shutdown:
      return "shutdown";
    case MessageKind::Error:
      return "error";
    case MessageKind::Setup:
      return "setup";
    case MessageKind::Stop:
      return "stop";
  }
  return "unknown";
}

MessageKind kind_of(const Message& message) {
  return static_cast<MessageKind>(message.index() + 1);  // the variant follows the enum
}

std::vector<std::uint8_t> encode(const Message& message) {
  json envelope = {
      {"format", kFormatName}, {"version", kVersion}, {"kind", static_cast<int>(kind_of(message))}};
  envelope["body"] = std::visit([](const auto& body) { return encode_body(body); }, message);
  return json::to_cbor(envelope);
}

Message decode(std::span<const std::uint8_t> bytes) {
  json envelope;
  try {
    envelope = json::from_cbor(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    corrupt(fmt::format("{} bytes are not CBOR: {}", bytes.size(), e.what()));
  }
  FieldReader r(envelope, "message");
  const json& format = r.at("format");
  if (!format.is_string() || format.get<std::string>() != kFormatName) {
    // replace: the bytes may be anything, and dump() would throw on invalid UTF-8
    corrupt("not a Trails wire message (format is " +
            format.dump(-1, ' ', false, json::error_handler_t::replace) + ")");
  }
  const std::uint64_t version = r.u64("version");
  if (version != kVersion) {
    // Plain concatenation: fmt's compile-time check of this call crashes clang-tidy 14.
    throw core::InputError("wire message: format version " + std::to_string(version) +
                           " from the peer, but this trails speaks version " +
                           std::to_string(kVersion) +
                           "; run the same trails build on the driver and every worker");
  }
  const std::int64_t kind = r.i64("kind");
  if (kind < 1 || kind > static_cast<std::int64_t>(std::variant_size_v<Message>)) {
    corrupt(fmt::format("unknown message kind {}", kind));
  }
  Message message = decode_body(static_cast<MessageKind>(kind), r.at("body"));
  r.finish();
  return message;
}

}  // namespace trails::exec::wire

// The fluent builder of the key table's rows (schema.cpp and the engine modules of
// config/engines/), and the binding of a row to the member it fills (of the MdSystemConfig both
// drivers read, or of a campaign's CampaignConfig): a bound row is built (build_md_system,
// build_config) and written back (the run's JSON views) by one generic loop instead of code per
// key (docs/architecture.md, "How to add an engine"). Internal to the config module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A converted key value (already checked against its row) into a member, and back. Paths are
// strings; an optional member is null when unset.
template <class T>
void assign_value(T& member, const nlohmann::json& v) {
  if constexpr (IsOptional<T>::value) {
    if (v.is_null()) {
      member.reset();
    } else {
      typename T::value_type inner{};
      assign_value(inner, v);
      member = std::move(inner);
    }
  } else if (v.is_null()) {  // a nullable row whose member has an empty state (a list)
    member = T{};
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    member = v.get<std::string>();
  } else {
    member = v.get<T>();
  }
}

template <class T>
nlohmann::json value_json(const T& member) {
  if constexpr (IsOptional<T>::value) {
    return member ? value_json(*member) : nlohmann::json(nullptr);
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    return member.string();
  } else {
    return member;
  }
}

// Shorthands for the conditions under which Trails-MD reads a not-built feature's keys.
inline constexpr std::string_view kEngineKey = "engine.md_engine";
inline constexpr std::string_view kSchemeKey = "spawning.spawn_scheme";
inline constexpr std::string_view kBackendKey = "execution.backend";
inline constexpr std::string_view kSpaceKey = "space_mode";

// Small fluent builder: the tables read one key per line.
struct K {
  KeySpec s;
  K(std::string_view block, std::string_view name, ValueType type, nlohmann::json def) {
    s.block = block;
    s.name = name;
    s.type = type;
    s.default_value = std::move(def);
  }
  K& null() {
    s.nullable = true;
    return *this;
  }
  K& non_empty() {
    s.non_empty = true;
    return *this;
  }
  K& wide() {
    s.wide = true;
    return *this;
  }
  K& ge(double v) {
    s.lo = Bound{v, false};
    return *this;
  }
  K& gt(double v) {
    s.lo = Bound{v, true};
    return *this;
  }
  K& le(double v) {
    s.hi = Bound{v, false};
    return *this;
  }
  K& lt(double v) {
    s.hi = Bound{v, true};
    return *this;
  }
  K& one_of(std::vector<std::string_view> c) {
    s.choices = std::move(c);
    return *this;
  }
  K& built_only(std::vector<std::string_view> c, std::string_view feature) {
    s.built_choices = std::move(c);
    s.feature = feature;
    return *this;
  }
  K& not_built(std::string_view feature) {
    s.support = Support::NotBuilt;
    s.feature = feature;
    return *this;
  }
  // The feature's keys matter in Trails-MD only when `key` takes one of `values`.
  K& only_with(std::string_view key, std::vector<std::string_view> values) {
    s.used_with_key = key;
    s.used_with = std::move(values);
    return *this;
  }
  // Shorthands: the keys of one engine, the scheduler backends, a neural space.
  K& engine(std::string_view name) { return only_with(kEngineKey, {name}); }
  K& scheduler() { return only_with(kBackendKey, {"slurm", "pbs", "torque"}); }
  // A neural space's key: read, and written in the run's JSON, only with those spaces.
  K& model(std::vector<std::string_view> spaces) { return only_with(kSpaceKey, std::move(spaces)); }
  K& no_effect() {
    s.support = Support::NoEffect;
    return *this;
  }
  K& builtin_engine() {
    s.support = Support::BuiltinOnly;
    return *this;
  }
  // The key does not change results: written only in effective_json (bound_values).
  K& effective_only() {
    s.effective_only = true;
    return *this;
  }
  // Written in the run's JSON only when not at its default: a key added after runs were made,
  // whose digests stay as they were.
  K& written_when_set() {
    s.written_when_set = true;
    return *this;
  }
  // A campaign row is in the run's JSON only where `when` holds (a learned space's keys only in
  // a learned space, so fixed-space digests stay as they were).
  K& written_if(bool (*when)(const CampaignConfig&)) {
    s.written_if = when;
    return *this;
  }
  // The MdSystemConfig member this key fills: `member` is a generic lambda
  // [](auto& c) -> auto& {...}, so one expression serves both the fill and the read back. The
  // member's default must be the row's default (an absent key fills the row's default).
  template <class Member>
  K& fills(Member member) {
    s.fill_md = [member](MdSystemConfig& c, const nlohmann::json& v) {
      assign_value(member(c), v);
    };
    s.read_md = [member](const MdSystemConfig& c) { return value_json(member(c)); };
    return *this;
  }
  // The same for a member whose type is not the value's: `to` converts the row's value (a
  // choice's name to its enum), `from` converts back.
  template <class Member, class To, class From>
  K& fills(Member member, To to, From from) {
    s.fill_md = [member, to](MdSystemConfig& c, const nlohmann::json& v) { member(c) = to(v); };
    s.read_md = [member, from](const MdSystemConfig& c) { return nlohmann::json(from(member(c))); };
    return *this;
  }
  // The same two for a member of the campaign's own blocks (CampaignConfig).
  template <class Member>
  K& fills_campaign(Member member) {
    s.fill = [member](CampaignConfig& c, const nlohmann::json& v) { assign_value(member(c), v); };
    s.read = [member](const CampaignConfig& c) { return value_json(member(c)); };
    return *this;
  }
  template <class Member, class To, class From>
  K& fills_campaign(Member member, To to, From from) {
    s.fill = [member, to](CampaignConfig& c, const nlohmann::json& v) { member(c) = to(v); };
    s.read = [member, from](const CampaignConfig& c) { return nlohmann::json(from(member(c))); };
    return *this;
  }
};

// The MD rows among `rows` (an engine module's) with their values from `md`, into
// j[block][name] (j[name] at the top level); effective_only rows only with `all`.
void bound_values(const std::vector<KeySpec>& rows, const MdSystemConfig& md, bool all,
                  nlohmann::json& j);
// Every campaign row of the key table (K::fills_campaign) with its value from `c`, where its
// written_if holds (campaign_json.cpp).
void campaign_bound_values(const CampaignConfig& c, bool all, nlohmann::json& j);

// The rows of a K list, in order.
inline std::vector<KeySpec> rows_of(std::vector<K> k) {
  std::vector<KeySpec> out;
  out.reserve(k.size());
  for (auto& e : k) out.push_back(std::move(e.s));
  return out;
}

}  // namespace trails::config::detail

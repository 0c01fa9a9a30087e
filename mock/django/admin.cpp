#include "admin.hpp"

#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "fault_statuses.hpp"
#include "flags.hpp"

namespace entimg::mock::detail {

namespace {

HttpResponse json_answer(int status, const nlohmann::json& body, std::string allow = {}) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!allow.empty()) r.headers.emplace_back("Allow", std::move(allow));
  return r;
}

HttpResponse problem(int status, const std::string& detail, std::string allow = {}) {
  return json_answer(status, {{"detail", detail}}, std::move(allow));
}

nlohmann::json faults_json(const FaultOptions& f) {
  nlohmann::json out = nlohmann::json::object();
  for (const Flag& knob : kFlags)
    for (const KnobKey& key : knob.keys)
      if (!key.name.empty())
        std::visit([&](auto member) { out[std::string(key.name)] = f.*member; }, key.field);
  return out;
}

std::optional<std::uint64_t> whole_of(const nlohmann::json& value, std::uint64_t max) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    return std::nullopt;
  const auto n = value.get<std::uint64_t>();
  return n <= max ? std::optional(n) : std::nullopt;
}

std::optional<double> share_of(const nlohmann::json& value) {
  if (!value.is_number()) return std::nullopt;
  const double p = value.get<double>();
  return std::isfinite(p) && p >= 0 && p <= 1 ? std::optional(p) : std::nullopt;
}

// Sets the field of `key` to `value` when the knob's kind takes it; otherwise says what it takes.
std::string set_fault(const Flag& knob, const KnobKey& key, const nlohmann::json& value, FaultOptions& f) {
  const std::string name = "'" + std::string(key.name) + "'";
  std::optional<std::uint64_t> whole;
  std::optional<double> share;
  switch (knob.kind) {
    case FlagKind::latency:
      if (!(whole = whole_of(value, f.max_delay_ms)))
        return name + " must be whole " + std::string(knob.what) + " from 0 to --max-delay (" +
               std::to_string(f.max_delay_ms) + ")";
      break;
    case FlagKind::whole:  // 0 is the value at the start: the knob off
      if (!(whole = whole_of(value, knob.high))) return name + " must be " + flag_range(knob, 0);
      break;
    case FlagKind::share:
      if (!(share = share_of(value))) return name + " must be a number from 0 to 1";
      break;
    case FlagKind::status:
      whole = whole_of(value, 599);
      if (!whole || !find_fault_status(static_cast<int>(*whole)))
        return name + " must be " + fault_status_choices();
      break;
    default:  // only the fault knobs have keys
      return name + " is not a fault option";
  }
  std::visit(
      [&](auto member) {
        using Field = std::remove_reference_t<decltype(f.*member)>;
        f.*member = share ? static_cast<Field>(*share) : static_cast<Field>(*whole);
      },
      key.field);
  return "";
}

// The knob and key PUT /__mock/faults names `name`, or null.
std::pair<const Flag*, const KnobKey*> put_key(std::string_view name) {
  for (const Flag& knob : kFlags)
    for (const KnobKey& key : knob.keys)
      if (knob.in_put && !key.name.empty() && key.name == name) return {&knob, &key};
  return {nullptr, nullptr};
}

// PUT /__mock/faults: the keys given replace the options in force; the others stay.
std::string apply_faults(const nlohmann::json& body, FaultOptions& f) {
  if (!body.is_object()) return "the body must be a JSON object of fault options";
  for (const auto& item : body.items()) {
    const auto [knob, key] = put_key(item.key());
    if (!knob) return "unknown fault option '" + item.key() + "' (options: " + put_keys() + ")";
    if (std::string error = set_fault(*knob, *key, item.value(), f); !error.empty()) return error;
  }
  if (std::uint64_t{f.latency_ms} + f.jitter_ms > f.max_delay_ms)
    return "latency_ms + jitter_ms is above --max-delay (" + std::to_string(f.max_delay_ms) + " ms)";
  return "";
}

}  // namespace

bool is_admin_path(std::string_view target) {
  return target.starts_with(kAdminPrefix);
}

HttpResponse admin_answer(AdminContext& context, const HttpRequest& request) {
  const std::string_view target = request.target;
  const std::size_t q = target.find('?');
  const std::string path = common::percent_decode(target.substr(0, q), false);
  const std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  const std::string& method = request.method;

  if (path == "/__mock/requests" || path == "/__mock/requests/count") {
    const bool count = path.ends_with("/count");
    if (!count && method == "DELETE") {
      context.journal.clear();
      return json_answer(200, {{"deleted", true}});
    }
    if (method != "GET")
      return problem(405, "Method \"" + method + "\" not allowed.", count ? "GET" : "GET, DELETE");
    const auto [filter, error] = JournalFilter::parse(query);
    if (!filter) return problem(400, error);
    if (count) return json_answer(200, {{"count", context.journal.count(*filter)}});
    HttpResponse r = json_answer(200, nullptr);
    r.body = context.journal.listing(*filter);
    return r;
  }
  if (path == "/__mock/reset") {
    if (method != "POST") return problem(405, "Method \"" + method + "\" not allowed.", "POST");
    std::size_t removed = 0;
    try {
      if (context.reset_uploads) removed = context.reset_uploads();
    } catch (const std::exception& e) {
      return problem(500, std::string("the uploads could not be removed: ") + e.what());
    }
    context.journal.clear();
    context.planner.replace(context.start_faults);
    return json_answer(200, {{"uploads_removed", removed}, {"faults", faults_json(context.start_faults)}});
  }
  if (path == "/__mock/faults") {
    if (method == "GET") return json_answer(200, faults_json(context.planner.options()));
    if (method != "PUT") return problem(405, "Method \"" + method + "\" not allowed.", "GET, PUT");
    const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    if (body.is_discarded())
      return problem(400, "the body is not JSON: send an object such as {\"fail_rate\": 0.5}");
    FaultOptions next = context.planner.options();
    if (const std::string error = apply_faults(body, next); !error.empty()) return problem(400, error);
    context.planner.replace(next);
    return json_answer(200, faults_json(next));
  }
  return problem(404,
                 "no admin route " + path +
                     " (routes: /__mock/requests, /__mock/requests/count, /__mock/reset, /__mock/faults)");
}

}  // namespace entimg::mock::detail

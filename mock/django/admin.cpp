#include "admin.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "entimg/common/ascii.hpp"
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

// The host part of a Host header or of an origin's authority, lower case, brackets kept ("[::1]").
std::string host_part(std::string_view authority) {
  std::string_view host = authority;
  if (host.starts_with("[")) {
    host = host.substr(0, host.find(']') == std::string_view::npos ? host.size() : host.find(']') + 1);
  } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  return common::ascii_lowered(host);
}

bool allowed_host(const AdminAccess& access, const std::string& host) {
  const auto loopback_v4 = [](const std::string& h) {
    return h.starts_with("127.") && h.find_first_not_of("0123456789.") == std::string::npos;
  };
  const std::string listen =
      access.listen_host.find(':') != std::string::npos ? "[" + access.listen_host + "]" : access.listen_host;
  const bool wildcard = listen.empty() || listen == "0.0.0.0" || listen == "[::]";
  return host == "localhost" || host.ends_with(".localhost") || loopback_v4(host) || host == "[::1]" ||
         (!wildcard && host == common::ascii_lowered(listen)) || access.admin_host == "*" ||
         (!access.admin_host.empty() && host == common::ascii_lowered(access.admin_host));
}

}  // namespace

std::string admin_refusal(const AdminAccess& access, const HttpRequest& request) {
  const std::optional<std::string> host = request.header("Host");
  if (host && !allowed_host(access, host_part(*host)))
    return "the admin routes answer only a Host of this machine (localhost, 127.0.0.1, [::1] or the --host "
           "address), not \"" +
           common::utf8_cut(*host, 80, "...") + "\": --admin-host " +
           common::utf8_cut(host_part(*host), 80, "...") + " allows it (docs/mock.md, \"Admin routes\")";
  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD" || m == "OPTIONS") return "";
  if (const auto origin = request.header("Origin")) {
    const bool own = host && (*origin == "http://" + *host || *origin == "https://" + *host);
    const bool listed = std::find(access.cors_origins.begin(), access.cors_origins.end(), *origin) !=
                        access.cors_origins.end();
    // --admin-host names a host whose pages may write too (its own scheme and port); '*' is no origin.
    const std::size_t scheme = origin->find("://");
    const bool admin_host =
        scheme != std::string::npos && !access.admin_host.empty() && access.admin_host != "*" &&
        host_part(std::string_view(*origin).substr(scheme + 3)) == common::ascii_lowered(access.admin_host);
    if (!own && !listed && !admin_host)
      return "a write to the admin routes from another site's page (Origin " +
             common::utf8_cut(*origin, 80, "...") +
             ") is refused, as Django's CSRF check refuses it: --cors " +
             common::utf8_cut(*origin, 80, "...") + " lets that app's pages write";
    return "";
  }
  if (const auto site = request.header("Sec-Fetch-Site"); site && *site != "same-origin" && *site != "none")
    return "a write to the admin routes from another site's page (Sec-Fetch-Site: " +
           common::utf8_cut(*site, 40, "...") + ") is refused, as Django's CSRF check refuses it";
  return "";
}

bool is_admin_path(std::string_view target) {
  return target.starts_with(kAdminPrefix);
}

HttpResponse admin_answer(AdminContext& context, const HttpRequest& request) {
  if (const std::string refusal = admin_refusal(context.access, request); !refusal.empty())
    return problem(403, refusal);
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

#include "admin.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "fault_statuses.hpp"

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
  return {{"latency_ms", f.latency_ms},    {"jitter_ms", f.jitter_ms}, {"fail_rate", f.fail_rate},
          {"fail_status", f.fail_status},  {"drop_rate", f.drop_rate}, {"slow_body_bps", f.slow_body_bps},
          {"max_delay_ms", f.max_delay_ms}};
}

// PUT /__mock/faults: the keys given replace the options in force; the others stay.
std::string apply_faults(const nlohmann::json& body, FaultOptions& f) {
  if (!body.is_object()) return "the body must be a JSON object of fault options";
  for (const auto& item : body.items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 (em++) cannot capture one
    const nlohmann::json& value = item.value();
    const auto whole = [&](std::uint64_t max) -> std::optional<std::uint64_t> {
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
        return {};
      const auto n = value.get<std::uint64_t>();
      return n <= max ? std::optional(n) : std::nullopt;
    };
    const auto share = [&]() -> std::optional<double> {
      if (!value.is_number()) return {};
      const double p = value.get<double>();
      return std::isfinite(p) && p >= 0 && p <= 1 ? std::optional(p) : std::nullopt;
    };
    if (key == "latency_ms" || key == "jitter_ms") {
      const auto n = whole(f.max_delay_ms);
      if (!n)
        return "'" + key + "' must be whole milliseconds from 0 to --max-delay (" +
               std::to_string(f.max_delay_ms) + ")";
      (key == "latency_ms" ? f.latency_ms : f.jitter_ms) = static_cast<std::uint32_t>(*n);
    } else if (key == "fail_rate" || key == "drop_rate") {
      const auto p = share();
      if (!p) return "'" + key + "' must be a number from 0 to 1";
      (key == "fail_rate" ? f.fail_rate : f.drop_rate) = *p;
    } else if (key == "fail_status") {
      const auto n = whole(599);
      const FaultStatus* row = n ? find_fault_status(static_cast<int>(*n)) : nullptr;
      if (!row) return "'fail_status' must be " + fault_status_choices();
      f.fail_status = row->status;
    } else if (key == "slow_body_bps") {
      const auto n = whole(1'000'000'000);
      if (!n) return "'slow_body_bps' must be bytes a second from 0 to 1000000000";
      f.slow_body_bps = *n;
    } else {
      return "unknown fault option '" + key +
             "' (options: latency_ms, jitter_ms, fail_rate, fail_status, drop_rate, slow_body_bps)";
    }
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

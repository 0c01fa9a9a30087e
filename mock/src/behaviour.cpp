#include "entimg/mock/behaviour.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include <nlohmann/json.hpp>

#include "django_pages.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/prng.hpp"
#include "fault_knobs.hpp"
#include "fault_statuses.hpp"

namespace entimg::mock {

struct FaultPlanner::State {
  std::mutex mutex;
  common::Pcg32 rng;
  explicit State(std::uint64_t seed) : rng(common::mix64(seed ^ 0x6661756c7473ULL), 0x6d6f636bULL) {}
};

FaultPlanner::FaultPlanner(FaultOptions options)
    : options_(options), state_(std::make_shared<State>(options.seed)) {}

namespace {

// A plan that answers 400 saying which X-Mock-* header was wrong and how.
Plan refuse(const std::string& message) {
  HttpResponse r;
  r.status = 400;
  r.content_type = "text/plain; charset=utf-8";
  r.body = message + "\n";
  Plan p;
  p.refusal = std::move(r);
  return p;
}

double unit(common::Pcg32& rng) {
  return static_cast<double>(rng.next_u32()) / 4294967296.0;
}

}  // namespace

FaultOptions FaultPlanner::options() const {
  const std::lock_guard lock(state_->mutex);
  return options_;
}

void FaultPlanner::replace(FaultOptions options) {
  const std::lock_guard lock(state_->mutex);
  options_ = options;
  state_->rng = State(options.seed).rng;
}

Plan FaultPlanner::plan(const HttpRequest& request) {
  FaultOptions o;
  {
    const std::lock_guard lock(state_->mutex);
    o = options_;
  }
  Plan p;
  p.slow_body_bps = o.slow_body_bps;
  p.delay = std::chrono::milliseconds(o.latency_ms);
  if (o.drop_rate > 0 || o.fail_rate > 0 || o.jitter_ms > 0) {
    double drop = 0, fail = 0;
    std::uint32_t jitter = 0;
    {
      const std::lock_guard lock(state_->mutex);  // three draws a request, in arrival order
      drop = unit(state_->rng);
      fail = unit(state_->rng);
      jitter = o.jitter_ms > 0 ? state_->rng.below(o.jitter_ms + 1) : 0;
    }
    p.drop = drop < o.drop_rate;
    if (!p.drop && fail < o.fail_rate) p.fail_status = o.fail_status;
    p.delay += std::chrono::milliseconds(jitter);
  }
  // One request can ask for exactly what it wants.
  if (const auto v = request.header("X-Mock-Latency")) {
    const auto ms = common::digits(*v);
    if (!ms) return refuse("X-Mock-Latency: expected a whole number of milliseconds, got '" + *v + "'");
    if (*ms > o.max_delay_ms)
      return refuse("X-Mock-Latency: " + *v + " ms is longer than the mock holds an answer, " +
                    std::to_string(o.max_delay_ms) + " ms (--max-delay)");
    p.delay = std::chrono::milliseconds(*ms);
  }
  if (const auto v = request.header("X-Mock-Fail")) {
    if (*v == "none" || *v == "0") {
      p.fail_status.reset();
    } else if (const detail::FaultStatus* row = detail::find_fault_status(*v)) {
      p.fail_status = row->status;
      p.drop = false;
    } else {
      return refuse("X-Mock-Fail: expected " + detail::fault_status_choices("none") + ", got '" + *v + "'");
    }
  }
  if (const auto v = request.header("X-Mock-Drop")) {
    if (*v != "0" && *v != "1") return refuse("X-Mock-Drop: expected 1 or 0, got '" + *v + "'");
    p.drop = *v == "1";
  }
  if (const auto v = request.header("X-Mock-Slow-Body")) {
    const auto bps = common::digits(*v, detail::kMaxBytesPerSecond);
    if (!bps)
      return refuse("X-Mock-Slow-Body: expected bytes a second from 0 to " +
                    std::to_string(detail::kMaxBytesPerSecond) + ", got '" + *v + "'");
    p.slow_body_bps = *bps;
  }
  return p;
}

namespace {

std::string nginx_error_page(std::string_view title) {
  const std::string t(title);
  return "<html>\r\n<head><title>" + t + "</title></head>\r\n<body>\r\n<center><h1>" + t +
         "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
}

}  // namespace

HttpResponse failure_response(int status) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html";
  if (status == 413) {  // nginx's client_max_body_size
    r.body = nginx_error_page("413 Request Entity Too Large");
    r.headers.emplace_back("Connection", "close");
    return r;
  }
  // What sits in front of or inside a Django deployment sends these (detail::kFaultStatuses); a status
  // the table does not name gets the 429 row's answer under its own status, as mock_failure() may ask.
  const detail::FaultStatus* found = detail::find_fault_status(status);
  const detail::FaultStatus& row = found != nullptr ? *found : *detail::find_fault_status(429);
  if (row.retry_after) r.headers.emplace_back("Retry-After", "1");
  switch (row.page) {
    case detail::FaultPage::django:
      r.body = detail::django_error_page(row.reason, "");
      break;
    case detail::FaultPage::nginx:
      r.body = nginx_error_page(row.reason);
      break;
    case detail::FaultPage::drf:
      r.content_type = "application/json";
      r.body = R"({"detail":")" + std::string(row.reason) + R"("})";
      r.headers.emplace_back("Vary", "Accept");
      r.headers.emplace_back("Allow", "GET, POST, HEAD, OPTIONS");
      break;
  }
  return r;
}

namespace {

// "*" allows any origin; otherwise the Origin must be one of the list exactly (scheme, host, port).
std::optional<std::string> allowed_origin(const CorsOptions& cors, const HttpRequest& request) {
  const auto origin = request.header("Origin");
  if (!cors.enabled() || !origin) return std::nullopt;
  for (const auto& o : cors.origins)
    if (o == "*" || o == *origin) return *origin;
  return std::nullopt;
}

bool allows_any(const CorsOptions& cors) {
  for (const auto& o : cors.origins)
    if (o == "*") return true;
  return false;
}

void allow_origin(const CorsOptions& cors, const std::string& origin, HttpResponse& response) {
  // With any origin allowed the answer says "*", which browsers refuse for requests with credentials;
  // named origins are echoed with credentials allowed, so an app can send Authorization.
  if (allows_any(cors)) {
    response.headers.emplace_back("Access-Control-Allow-Origin", "*");
  } else {
    response.headers.emplace_back("Access-Control-Allow-Origin", origin);
    response.headers.emplace_back("Access-Control-Allow-Credentials", "true");
  }
  patch_vary_headers(response, "Origin");
}

}  // namespace

std::optional<HttpResponse> cors_preflight(const CorsOptions& cors, const HttpRequest& request) {
  if (!cors.enabled() || !common::iequals_ascii(request.method, "OPTIONS") || !request.header("Origin") ||
      !request.header("Access-Control-Request-Method"))
    return std::nullopt;
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/html; charset=utf-8";
  if (const auto origin = allowed_origin(cors, request)) {
    allow_origin(cors, *origin, r);
    r.headers.emplace_back("Access-Control-Allow-Headers",
                           "accept, accept-encoding, authorization, content-type, dnt, origin, user-agent, "
                           "x-csrftoken, x-requested-with, x-mock-latency, x-mock-fail, x-mock-drop, "
                           "x-mock-slow-body");
    r.headers.emplace_back("Access-Control-Allow-Methods", "DELETE, GET, OPTIONS, PATCH, POST, PUT");
    r.headers.emplace_back("Access-Control-Max-Age", "86400");
  }
  return r;
}

void add_cors_headers(const CorsOptions& cors, const HttpRequest& request, HttpResponse& response) {
  const auto origin = allowed_origin(cors, request);
  if (!origin) return;
  allow_origin(cors, *origin, response);
  response.headers.emplace_back("Access-Control-Expose-Headers", "Allow, Retry-After, Vary");
}

std::string log_line(LogFormat format, const std::string& method, const std::string& target, int status,
                     std::uint64_t bytes, double milliseconds) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", milliseconds);
  if (format == LogFormat::json) {
    nlohmann::json line = {
        {"method", method}, {"target", target}, {"bytes", bytes}, {"ms", std::round(milliseconds * 10) / 10}};
    line["status"] = status == 0 ? nlohmann::json("dropped") : nlohmann::json(status);
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string safe;  // the target is the client's: control bytes must not reach a terminal
  for (const char c : target)
    safe += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return method + " " + safe + " " + (status == 0 ? std::string("dropped") : std::to_string(status)) + " " +
         std::to_string(bytes) + " B " + ms + " ms";
}

void patch_vary_headers(HttpResponse& response, std::string_view header) {
  for (auto& [name, value] : response.headers) {
    if (!common::iequals_ascii(name, "Vary")) continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      const std::string_view element = common::trim(rest.substr(0, comma));
      if (element == "*" || common::iequals_ascii(element, header)) return;
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    value += ", " + std::string(header);
    return;
  }
  response.headers.emplace_back("Vary", std::string(header));
}

bool accepts_gzip(std::string_view accept_encoding) {
  std::optional<bool> gzip, any;
  while (!accept_encoding.empty()) {
    const std::size_t comma = std::min(accept_encoding.find(','), accept_encoding.size());
    const std::string_view element = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(std::min(comma + 1, accept_encoding.size()));
    const std::size_t semicolon = std::min(element.find(';'), element.size());
    const std::string_view coding = common::trim(element.substr(0, semicolon));
    bool positive = true;  // q=0, 0.0, 0.00 or 0.000 refuses the coding (RFC 9110 §12.4.2)
    std::string_view params = element.substr(semicolon);
    while (!params.empty()) {
      params.remove_prefix(1);
      const std::size_t next = std::min(params.find(';'), params.size());
      const std::string_view param = common::trim(params.substr(0, next));
      params.remove_prefix(next);
      if (param.size() >= 2 && common::iequals_ascii(param.substr(0, 2), "q="))
        positive = common::trim(param.substr(2)).find_first_not_of("0.") != std::string_view::npos;
    }
    if (common::iequals_ascii(coding, "gzip")) gzip = positive;
    if (coding == "*") any = positive;
  }
  return gzip ? *gzip : any.value_or(false);
}

void apply_gzip_middleware(const HttpRequest& request, HttpResponse& response) {
  if (response.body.size() < 200) return;  // "not worth attempting to compress really short responses"
  for (const auto& [name, value] : response.headers)
    if (common::iequals_ascii(name, "Content-Encoding")) return;
  patch_vary_headers(response, "Accept-Encoding");
  if (!accepts_gzip(request.header("Accept-Encoding").value_or(""))) return;
  std::string compressed = gzip_compress(response.body);
  if (compressed.size() >= response.body.size()) return;  // only when it is shorter
  response.body = std::move(compressed);
  response.headers.emplace_back("Content-Encoding", "gzip");
}

}  // namespace entimg::mock

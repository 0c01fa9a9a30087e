// Rules on status lines and headers: Content-Type, Allow, Vary, HEAD and OPTIONS.
#include <algorithm>
#include <array>
#include <map>

#include "entimg/common/ascii.hpp"
#include "entimg/contract/checks.hpp"
#include "failure_budget.hpp"
#include "header_lists.hpp"
#include "message_text.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

using detail::quote;

std::string joined(const std::vector<std::string_view>& values) {
  std::string out;
  for (const auto v : values)
    out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

// Headers that legitimately differ between two answers to the same request: clocks, connection
// handling, per-request ids and timings, cookies. Content-Length is compared on its own.
bool is_volatile_header(std::string_view lower_name) {
  static constexpr std::array<std::string_view, 31> kVolatile = {"date",
                                                                 "expires",
                                                                 "age",
                                                                 "last-modified",
                                                                 "keep-alive",
                                                                 "connection",
                                                                 "transfer-encoding",
                                                                 "set-cookie",
                                                                 "server-timing",
                                                                 "x-request-id",
                                                                 "x-correlation-id",
                                                                 "request-id",
                                                                 "x-runtime",
                                                                 "x-response-time",
                                                                 "x-amzn-requestid",
                                                                 "x-amzn-trace-id",
                                                                 "x-amz-cf-id",
                                                                 "x-amz-cf-pop",
                                                                 "cf-ray",
                                                                 "x-cache",
                                                                 "x-cache-hits",
                                                                 "x-served-by",
                                                                 "x-timer",
                                                                 "via",
                                                                 "traceparent",
                                                                 "tracestate",
                                                                 "x-trace-id",
                                                                 "x-b3-traceid",
                                                                 "alt-svc",
                                                                 "report-to",
                                                                 "content-length"};
  return std::find(kVolatile.begin(), kVolatile.end(), lower_name) != kVolatile.end();
}

// Name (lower case) → sorted values, of the headers that must be the same.
std::map<std::string, std::vector<std::string>> stable_headers(const HttpExchange& exchange) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [name, value] : exchange.headers) {
    std::string key = common::ascii_lowered(common::trim(name));
    if (!is_volatile_header(key)) out[std::move(key)].emplace_back(common::trim(value));
  }
  for (auto& [name, values] : out)
    std::sort(values.begin(), values.end());
  return out;
}

std::string values_text(const std::vector<std::string>& values) {
  if (values.empty()) return "none";
  std::string out;
  for (const auto& v : values)
    out += (out.empty() ? "" : ", ") + quote(v);
  return out;
}

// Content-Length HEAD must announce: GET's body length, or GET's own Content-Length when the body
// came content-encoded (the client may have decoded it). nullopt when it cannot be known.
std::optional<std::string> expected_content_length(const HttpExchange& get) {
  const auto encoding = get.header("Content-Encoding");
  if (encoding && !common::iequals_ascii(common::trim(*encoding), "identity")) {
    const auto length = get.header("Content-Length");
    return length ? std::optional(std::string(common::trim(*length))) : std::nullopt;
  }
  if (get.body_truncated) return std::nullopt;
  return std::to_string(get.body.size());
}

/// "Response content type: application/json" (spec §4.1); DRF sends it bare (reference §3.1), a
/// charset parameter is tolerated but must then be UTF-8, JSON's only encoding (RFC 8259).
void content_type_json(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& ex = page.exchange;
  if (ex.status != 200) return;
  const auto values = detail::header_values(ex, "Content-Type");
  std::string problem;
  if (values.empty()) {
    problem = "expected Content-Type application/json, got none";
  } else if (values.size() > 1) {
    problem =
        "expected one Content-Type, got " + std::to_string(values.size()) + ": " + quote(joined(values));
  } else {
    std::string_view value = values[0];
    const std::size_t semicolon = value.find(';');
    if (!common::iequals_ascii(common::trim(value.substr(0, semicolon)), "application/json")) {
      problem = "expected Content-Type application/json, got " + quote(value);
    } else if (semicolon != std::string_view::npos) {
      for (std::string_view rest = value.substr(semicolon + 1); !rest.empty();) {
        const std::size_t next = rest.find(';');
        const std::string_view param = common::trim(rest.substr(0, next));
        rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
        const std::size_t eq = param.find('=');
        if (eq == std::string_view::npos ||
            !common::iequals_ascii(common::trim(param.substr(0, eq)), "charset"))
          continue;
        std::string_view charset = common::trim(param.substr(eq + 1));
        if (charset.size() >= 2 && charset.front() == '"' && charset.back() == '"')
          charset = charset.substr(1, charset.size() - 2);
        if (!common::iequals_ascii(charset, "utf-8") && !common::iequals_ascii(charset, "utf8"))
          problem = "expected Content-Type application/json in UTF-8, got " + quote(value);
      }
    }
  }
  if (problem.empty()) {
    findings.pass("content_type_json");
  } else {
    findings.fail({"content_type_json", problem, ex.url, "", std::nullopt});
  }
}

/// "Allow: GET, POST, HEAD, OPTIONS" (spec §1, §4.1; reference §1.1): exactly that set, any order.
void allow_header(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& ex = page.exchange;
  if (ex.status != 200) return;
  const auto values = detail::header_values(ex, "Allow");
  std::vector<std::string> methods;
  for (const auto m : detail::list_elements(values))
    methods.emplace_back(m);
  std::sort(methods.begin(), methods.end());
  methods.erase(std::unique(methods.begin(), methods.end()), methods.end());
  static const std::vector<std::string> kExpected = {"GET", "HEAD", "OPTIONS", "POST"};
  if (methods == kExpected) {
    findings.pass("allow_header");
    return;
  }
  std::vector<std::string> missing, extra;
  std::set_difference(kExpected.begin(), kExpected.end(), methods.begin(), methods.end(),
                      std::back_inserter(missing));
  std::set_difference(methods.begin(), methods.end(), kExpected.begin(), kExpected.end(),
                      std::back_inserter(extra));
  std::string detail_text;
  if (!missing.empty()) detail_text += "; missing " + values_text(missing);
  if (!extra.empty()) detail_text += "; not expected " + values_text(extra);
  findings.fail({"allow_header",
                 "expected Allow to list exactly GET, POST, HEAD, OPTIONS (any order), got " +
                     (values.empty() ? std::string("none") : quote(joined(values))) + detail_text,
                 ex.url, "", std::nullopt});
}

/// "Vary: Accept" (spec §4.1); middleware adds Cookie, Accept-Language, … (reference §3.1, C9), so
/// Accept must be one of its elements.
void vary_accept(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& ex = page.exchange;
  if (ex.status != 200) return;
  const auto values = detail::header_values(ex, "Vary");
  for (const auto element : detail::list_elements(values)) {
    if (common::iequals_ascii(element, "accept")) {
      findings.pass("vary_accept");
      return;
    }
    if (element == "*") {  // varies on everything, Accept included (RFC 9110 §12.5.5)
      findings.pass("vary_accept");
      findings.note("vary_accept", "Vary: * (varies on every request header, Accept included)");
      return;
    }
  }
  findings.fail({"vary_accept",
                 "expected Vary to contain Accept, got " +
                     (values.empty() ? std::string("none") : quote(joined(values))),
                 ex.url, "", std::nullopt});
}

/// "HEAD: behaviour follows the GET headers" (spec §4.2; reference §3.3, M8): same status, same
/// headers but volatile ones, Content-Length of GET's body, and no body.
void head_matches_get(const CheckContext&, const Page& get, const HttpExchange& head, Findings& findings) {
  const HttpExchange& g = get.exchange;
  if (g.status == 0) return;  // nothing to compare with; status_ok reports the GET
  detail::FailureBudget budget(findings, "head_matches_get", head.url);
  if (head.status == 0) {
    budget.fail("expected HEAD to answer like GET (status " + std::to_string(g.status) +
                "), got no answer: " + quote(head.error));
    budget.finish();
    return;
  }
  if (head.status != g.status)
    budget.fail("expected HEAD's status to be GET's " + std::to_string(g.status) + ", got " +
                std::to_string(head.status));
  if (!head.body.empty() || head.bytes_after_head > 0)
    budget.fail("expected HEAD's body empty, got " +
                std::to_string(std::max(head.body.size(), head.bytes_after_head)) +
                " bytes after the headers");
  else if (head.segments_after_head > 0)
    budget.fail("expected HEAD's body empty, got a body after the headers (" +
                std::to_string(head.segments_after_head) +
                " TCP segment(s) of data that came once the client had closed, as the answer said "
                "Connection: close; the kernel drops them unread)");
  const auto from_get = stable_headers(g);
  const auto from_head = stable_headers(head);
  static const std::vector<std::string> kNone;
  for (const auto& [name, values] : from_get) {
    const auto found = from_head.find(name);
    const auto& got = found == from_head.end() ? kNone : found->second;
    if (got != values)
      budget.fail("expected HEAD's " + name + " to be GET's " + values_text(values) + ", got " +
                  values_text(got));
  }
  for (const auto& [name, values] : from_head)
    if (!from_get.contains(name))
      budget.fail("expected no " + name + " header in HEAD's answer (GET has none), got " +
                  values_text(values));
  const auto head_length = detail::header_values(head, "Content-Length");
  const auto get_length = detail::header_values(g, "Content-Length");
  if (const auto expected = expected_content_length(g)) {
    if (!head_length.empty()) {
      if (head_length.size() != 1 || common::trim(head_length[0]) != *expected)
        budget.fail("expected HEAD's Content-Length to be " + *expected + " (GET's body), got " +
                    quote(joined(head_length)));
    } else if (!get_length.empty()) {
      budget.fail("expected HEAD's Content-Length to be " + *expected + " as GET's, got none");
    }
  }
  if (budget.failures() == 0) budget.pass();
  budget.finish();
}

/// "OPTIONS: listed as allowed" (spec §4.2; reference §3.4, M7): it answers 200.
void options_ok(const CheckContext&, const HttpExchange& options, Findings& findings) {
  if (options.status == 200) {
    findings.pass("options_ok");
    return;
  }
  const std::string got =
      options.status == 0 ? "no answer: " + quote(options.error) : "status " + std::to_string(options.status);
  findings.fail({"options_ok", "expected OPTIONS to answer 200, got " + got, options.url, "", std::nullopt});
}

/// A shared cache stores an answer to a request with credentials only when the answer says it may (RFC 9111
/// §3.5: public, s-maxage or must-revalidate) and then hands one user's answer to the next: with the suite's
/// credentials (--header or --header-from-env Authorization or Cookie), no answer may say so unless private
/// or no-store overrules it. Without credentials there is nothing to judge.
void authenticated_not_shared(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& ex = page.exchange;
  if (ex.status == 0) return;
  const bool credentials = ex.request_header("Authorization") || ex.request_header("Cookie");
  if (!credentials) {
    findings.pass("authenticated_not_shared");
    return;
  }
  std::string lets;  // the first directive that lets a shared cache store it
  bool kept_private = false;
  for (const auto element : detail::list_elements(detail::header_values(ex, "Cache-Control"))) {
    const std::string_view name = element.substr(0, element.find('='));
    if (common::iequals_ascii(name, "private") || common::iequals_ascii(name, "no-store"))
      kept_private = true;
    if (lets.empty() && (common::iequals_ascii(name, "public") || common::iequals_ascii(name, "s-maxage") ||
                         common::iequals_ascii(name, "must-revalidate")))
      lets = std::string(element);
  }
  if (lets.empty() || kept_private) {
    findings.pass("authenticated_not_shared");
    return;
  }
  findings.fail(
      {"authenticated_not_shared",
       "expected an answer to a request with credentials not to be stored by shared caches (private, "
       "or none of public, s-maxage, must-revalidate), got Cache-Control: " +
           joined(detail::header_values(ex, "Cache-Control")) + " (" + quote(lets) +
           " lets a shared cache hand this answer to other users)",
       ex.url, "", std::nullopt});
}

constexpr Rule kHeaderRules[] = {
    {"content_type_json", "headers", "Content-Type is application/json (parameters such as charset allowed)",
     "spec §4.1 (Response content type); reference §3.1, C9", EveryPage{content_type_json}},
    {"allow_header", "headers", "Allow lists exactly GET, POST, HEAD, OPTIONS, in any order",
     "spec §1, §4.1 (Response headers); reference §1.1, C9",
     EveryPage{allow_header, Reads::any_representation}},
    {"vary_accept", "headers", "Vary contains the token Accept",
     "spec §4.1 (Response headers); reference §3.1, C9", EveryPage{vary_accept, Reads::any_representation}},
    {"authenticated_not_shared", "headers",
     "with credentials sent, no answer lets a shared cache store it (public, s-maxage, must-revalidate "
     "without "
     "private)",
     "RFC 9111 §3.5", EveryPage{authenticated_not_shared, Reads::any_representation}},
    {"head_matches_get", "headers",
     "HEAD answers with GET's status and headers (Content-Length too), no body",
     "spec §4.2; reference §3.3, M8", HeadExchange{head_matches_get}},
    {"options_ok", "headers", "OPTIONS answers 200", "spec §4.2; reference §3.4, M7",
     OptionsExchange{options_ok}},
};

}  // namespace

std::span<const Rule> detail::header_rules() {
  return kHeaderRules;
}

}  // namespace entimg::contract

#pragma once
// Pages for the check tests, built from JSON literals or from a tiny hand-written DRF-like page
// builder (not the mock's: the tests must not share the mock's idea of a page either).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "entimg/common/schema.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/checks.hpp"
#include "entimg/contract/observation.hpp"
#include "entimg/contract/rules.hpp"
#include "json_parse.hpp"

namespace entimg::contract::test {

using nlohmann::json;

inline constexpr const char* kOrigin = "http://test.example:8000";
inline constexpr const char* kPath = "/edw/api/entities-images/";

inline const common::SchemaValidator& page_validator() {
  static const auto v = common::SchemaValidator::from_file(common::schema_dir() / "page.schema.json");
  return v;
}
inline const common::SchemaValidator& record_validator() {
  static const auto v = common::SchemaValidator::from_file(common::schema_dir() / "image-record.schema.json");
  return v;
}

inline CheckContext context(bool with_schemas = true) {
  CheckContext c;
  c.origin = kOrigin;
  c.collection_path = kPath;
  if (with_schemas) {
    c.page_schema = &page_validator();
    c.record_schema = &record_validator();
  }
  return c;
}

/// Python's quote_plus: unreserved kept, space as '+', the rest %XX upper case.
inline std::string quote_plus(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += c;
    } else if (c == ' ') {
      out += '+';
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

inline std::string query_text(const common::QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params)
    out += (out.empty() ? "" : "&") + quote_plus(k) + "=" + quote_plus(v);
  return out;
}

inline std::string uuid_for(std::int64_t id) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-00%02x-4000-8000-%012llx",
                static_cast<unsigned long long>(id * 7919 + 0xab), static_cast<unsigned>(id % 256),
                static_cast<unsigned long long>(id));
  return buf;
}

/// A valid record with the given id, its image on origin.
inline json record(std::int64_t id, const std::string& origin = kOrigin, const std::string& name = "") {
  const std::string uuid = uuid_for(id);
  const std::string stored = name.empty() ? "photo_" + std::to_string(id) + ".jpg" : name;
  const std::string file =
      "filer_public/" + uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/" + uuid + "/" + stored;
  return json{{"id", id},
              {"image", origin + "/media/" + file},
              {"file", file},
              {"original_filename", "dir/sub/" + stored},
              {"file_size", 1000 + id},
              {"author", ""},
              {"name", ""},
              {"default_caption", ""},
              {"alt", ""},
              {"description", ""},
              {"subject_location", ""},
              {"mime_type", "image/jpeg"},
              {"order", 0},
              {"key", nullptr},
              {"entity", 1 + id % 7}};
}

/// DRF's link: the sent parameters with limit (and offset) replaced, keys sorted, quote_plus.
inline json drf_link(const common::QueryParams& sent, std::uint64_t limit,
                     std::optional<std::uint64_t> offset, const std::string& origin = kOrigin,
                     const std::string& path = kPath) {
  common::QueryParams params;
  for (const auto& p : sent)
    if (p.first != "limit" && p.first != "offset") params.push_back(p);
  params.emplace_back("limit", std::to_string(limit));
  if (offset) params.emplace_back("offset", std::to_string(*offset));
  std::stable_sort(params.begin(), params.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return origin + path + "?" + query_text(params);
}

/// The body DRF would send for the window over a collection of ids 1..count (ids doubled to leave gaps).
inline json page_body(std::uint64_t count, std::uint64_t offset, std::uint64_t limit,
                      const common::QueryParams& sent = {}) {
  json results = json::array();
  for (std::uint64_t i = offset; i < count && i < offset + limit; ++i)
    results.push_back(record(static_cast<std::int64_t>(2 * i + 1)));
  json next = offset + limit >= count ? json(nullptr) : drf_link(sent, limit, offset + limit);
  json previous = nullptr;
  if (offset > 0)
    previous = offset <= limit ? drf_link(sent, limit, std::nullopt) : drf_link(sent, limit, offset - limit);
  return json{{"count", count}, {"next", next}, {"previous", previous}, {"results", results}};
}

inline Headers drf_headers(std::size_t length) {
  return {{"Date", "Mon, 01 Jan 2024 00:00:00 GMT"},
          {"Content-Type", "application/json"},
          {"Vary", "Accept"},
          {"Allow", "GET, POST, HEAD, OPTIONS"},
          {"Content-Length", std::to_string(length)}};
}

/// A fetched page from a body text, as the runner would have it.
inline Page make_page_text(std::string body, const common::QueryParams& sent, std::uint64_t limit,
                           std::uint64_t offset, int status = 200) {
  Page page;
  page.sent = sent;
  page.effective_limit = limit;
  page.effective_offset = offset;
  page.exchange.method = "GET";
  page.exchange.url = std::string(kOrigin) + kPath + (sent.empty() ? "" : "?" + query_text(sent));
  page.exchange.status = status;
  page.exchange.headers = drf_headers(body.size());
  page.exchange.body = std::move(body);
  parse_body(page);
  return page;
}

/// The page's parsed body as nlohmann::json (tests edit and compare it).
inline json body_json(const Page& page) {
  return page.json ? detail::to_nlohmann(*page.json) : json();
}

inline Page make_page(const json& body, const common::QueryParams& sent, std::uint64_t limit,
                      std::uint64_t offset, int status = 200) {
  return make_page_text(body.dump(), sent, limit, offset, status);
}

/// The DRF page for the window, with limit/offset sent when given.
inline Page drf_page(std::uint64_t count, std::optional<std::uint64_t> limit,
                     std::optional<std::uint64_t> offset, common::QueryParams extra = {}) {
  common::QueryParams sent = std::move(extra);
  if (limit) sent.emplace_back("limit", std::to_string(*limit));
  if (offset) sent.emplace_back("offset", std::to_string(*offset));
  const std::uint64_t l = limit.value_or(12), o = offset.value_or(0);
  return make_page(page_body(count, o, l, sent), sent, l, o);
}

/// Runs the rule of that name through its table row, as the runner does; the arguments follow the rule's
/// shape (rules.hpp).
inline void judge(std::string_view rule, const CheckContext& c, const Page& page, Findings& findings) {
  const Rule* row = find_rule(rule);
  if (row != nullptr && std::holds_alternative<EveryPage>(row->check))
    rule_check<EveryPage>(rule).check(c, page, findings);
  else
    rule_check<PlannedPage>(rule).check(c, page, findings);  // throws for an unknown rule
}

inline void judge(std::string_view rule, const CheckContext& c, const Page& a, const Page& b,
                  Findings& findings) {
  rule_check<PagePair>(rule).check(c, a, b, findings);
}
inline void judge(std::string_view rule, const CheckContext& c, const Page& get, const HttpExchange& head,
                  Findings& findings) {
  rule_check<HeadExchange>(rule).check(c, get, head, findings);
}
inline void judge(std::string_view rule, const CheckContext& c, const HttpExchange& options,
                  Findings& findings) {
  rule_check<OptionsExchange>(rule).check(c, options, findings);
}

inline void judge(std::string_view rule, SideState& sides, const SideAsk& ask, const Page& answer,
                  const Page* other, Findings& findings) {
  rule_check<SideAnswer>(rule).check(sides, ask, answer, other, findings);
}

inline std::set<std::string> failing_rules(const Findings& findings) {
  std::set<std::string> out;
  for (const auto& f : findings.failures())
    out.insert(f.rule);
  return out;
}

/// The rules check_page fails on this page.
inline std::set<std::string> failing_page_rules(const Page& page, const CheckContext& c = context()) {
  Findings findings;
  check_page(c, page, findings);
  return failing_rules(findings);
}

inline std::set<std::string> none() {
  return {};
}
inline std::set<std::string> only(const std::string& rule) {
  return {rule};
}

/// Whether a note of the rule holds the fragment.
inline bool has_note(const Findings& findings, const std::string& rule, std::string_view fragment) {
  return std::any_of(findings.notes().begin(), findings.notes().end(), [&](const auto& note) {
    return note.first == rule && note.second.find(fragment) != std::string::npos;
  });
}

/// The first failure's message of a rule ("" when none).
inline std::string message_of(const Findings& findings, const std::string& rule) {
  for (const auto& f : findings.failures())
    if (f.rule == rule) return f.message;
  return "";
}

}  // namespace entimg::contract::test

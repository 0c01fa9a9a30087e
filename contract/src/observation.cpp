#include "entimg/contract/observation.hpp"
#include "entimg/common/json_pointer.hpp"

#include <algorithm>
#include <cstring>

#include "check_support.hpp"
#include "json_parse.hpp"

namespace entimg::contract {
namespace {

// The Content-Encoding a body came with, or "gzip" for gzip's magic bytes without one; nullopt for a
// plain body. The client sends no Accept-Encoding, so a compressed body is the server's mistake, and
// "not JSON: … at <U+001F>" would hide it.
std::optional<std::string> compression_of(const HttpExchange& exchange) {
  if (const auto encoding = exchange.header("Content-Encoding")) {
    const std::string_view value = common::trim(*encoding);
    if (!value.empty() && !common::iequals_ascii(value, "identity"))
      return "Content-Encoding: " + detail::quote(value);
  }
  if (exchange.body.starts_with("\x1f\x8b")) return std::string("gzip (its magic bytes 1f 8b)");
  return std::nullopt;
}

}  // namespace

void parse_body(Page& page) {
  page.json.reset();
  page.json_document.reset();
  page.json_error.clear();
  const std::string& body = page.exchange.body;
  if (page.exchange.body_truncated) {
    page.json_error = "the body was cut at " + std::to_string(body.size()) + " bytes (over the size limit)";
    return;
  }
  if (body.empty()) {
    page.json_error = "the body is empty";
    return;
  }
  if (const auto encoding = compression_of(page.exchange)) {
    page.json_error = "a body compressed with " + *encoding + " (the suite never asks for compression)";
    return;
  }
  if (detail::nesting_depth(body) > detail::kMaxJsonDepth) {
    page.json_error =
        "the body nests arrays/objects deeper than " + std::to_string(detail::kMaxJsonDepth) + " levels";
    return;
  }
  try {
    auto parsed = detail::parse_json_dom(body);
    page.json = parsed.root;
    page.json_document = std::move(parsed.document);
  } catch (const nlohmann::json::exception& e) {
    // The message quotes the bytes read last, which may be invalid UTF-8.
    page.json_error = "not JSON: " + detail::parse_error_text(e.what());
  } catch (const std::runtime_error& e) {
    page.json_error = std::string("the body could not be read: ") + e.what();
  }
}

void set_body(Page& page, std::string text) {
  page.exchange.body = std::move(text);
  parse_body(page);
}

namespace detail {

using simdjson::dom::element_type;

std::optional<Json> body_object(const Page& page) {
  if (page.exchange.status != 200 || !page.json || !page.json->is_object()) return std::nullopt;
  return *page.json;
}

std::optional<Json> member(Json obj, std::string_view key) {
  if (obj.type() != element_type::OBJECT) return std::nullopt;
  // parse_json_dom leaves no repeated key, so the first match is the only one.
  // A copy: value_unsafe() of a temporary result refers into it, so a range-for over it would dangle.
  const simdjson::dom::object object = obj.get_object().value_unsafe();
  for (const auto field : object)
    if (field.key == key) return field.value;
  return std::nullopt;
}

std::optional<JsonArray> results_array(const Page& page) {
  const auto body = body_object(page);
  if (!body) return std::nullopt;
  const auto results = member(*body, "results");
  if (!results || results->type() != element_type::ARRAY) return std::nullopt;
  return results->get_array().value_unsafe();
}

std::optional<std::uint64_t> as_count(std::optional<Json> value) {
  if (!value) return std::nullopt;
  if (value->type() == element_type::UINT64) return value->get_uint64().value_unsafe();
  if (value->type() == element_type::INT64 && value->get_int64().value_unsafe() >= 0)
    return static_cast<std::uint64_t>(value->get_int64().value_unsafe());
  return std::nullopt;
}

std::optional<std::int64_t> record_id(Json record) {
  const auto id = member(record, "id");
  if (!id || id->type() != element_type::INT64) return std::nullopt;  // UINT64: beyond int64
  return id->get_int64().value_unsafe();
}

std::optional<std::string_view> as_string(std::optional<Json> value) {
  if (!value || value->type() != element_type::STRING) return std::nullopt;
  return value->get_string().value_unsafe();
}

Json last_item(JsonArray array) {
  Json last;
  for (const Json item : array)
    last = item;
  return last;
}

bool is_integer(Json value) {
  return value.type() == element_type::INT64 || value.type() == element_type::UINT64;
}

std::string pointer_token(std::string_view key) {
  return common::json_pointer_token(key);
}

std::string record_pointer(std::size_t index, std::string_view key) {
  std::string out = "/results/" + std::to_string(index);
  if (!key.empty()) out += "/" + pointer_token(key);
  return out;
}

Link parse_link(std::string_view url) {
  Link link;
  link.parts = common::split_url(url);
  link.absolute = link.parts.ok && (link.parts.scheme == "http" || link.parts.scheme == "https");
  std::string_view query;
  if (link.parts.ok) {
    query = link.parts.query;
  } else if (const std::size_t q = url.find('?'); q != std::string_view::npos) {
    query = url.substr(q + 1);
    query = query.substr(0, query.find('#'));
  }
  link.params = common::parse_query(query);
  return link;
}

std::vector<std::string> values_of(const common::QueryParams& params, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& [k, v] : params)
    if (k == key) out.emplace_back(v);
  return out;
}

std::string decimal(std::uint64_t n) {
  return std::to_string(n);
}

std::string add_decimal(std::uint64_t a, std::uint64_t b) {
  if (a <= UINT64_MAX - b) return std::to_string(a + b);
  // Schoolbook addition of the two decimal strings: only offsets near 2^64 get here.
  const std::string x = std::to_string(a), y = std::to_string(b);
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(x.size(), y.size()) || carry; ++i) {
    int digit = carry;
    if (i < x.size()) digit += x[x.size() - 1 - i] - '0';
    if (i < y.size()) digit += y[y.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + digit % 10));
    carry = digit / 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

bool is_decimal_equal(std::string_view text, std::string_view expected) {
  if (text.empty()) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  while (text.size() > 1 && text.front() == '0')
    text.remove_prefix(1);
  return text == expected;
}

std::vector<std::string_view> header_values(const HttpExchange& exchange, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : exchange.headers)
    if (iequals_ascii(k, name)) out.emplace_back(v);
  return out;
}

std::vector<std::string_view> list_elements(const std::vector<std::string_view>& values) {
  std::vector<std::string_view> out;
  for (std::string_view value : values) {
    while (true) {
      const std::size_t comma = value.find(',');
      const std::string_view element = trim(value.substr(0, comma));
      if (!element.empty()) out.push_back(element);
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  return out;
}

std::optional<std::string> normalised_origin(std::string_view url) {
  const common::UrlParts parts = common::split_url(url);
  if (!parts.ok || (parts.scheme != "http" && parts.scheme != "https")) return std::nullopt;
  std::string authority = parts.authority;
  std::transform(authority.begin(), authority.end(), authority.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  // A port is the digits after the last ':' that follows any IPv6 literal's ']'.
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    const std::string_view port = std::string_view(authority).substr(colon + 1);
    if (port.empty() || (parts.scheme == "http" && port == "80") ||
        (parts.scheme == "https" && port == "443"))
      authority.resize(colon);
  }
  return parts.scheme + "://" + authority;
}

void check_link_limits(Json body, std::string_view expected, std::string_view why, FailureBudget& budget) {
  for (const char* key : {"next", "previous"}) {
    const auto link = as_string(member(body, key));
    if (!link) continue;
    const auto parsed = parse_link(*link);
    const auto limits = values_of(parsed.params, "limit");
    if (limits.size() == 1 && is_decimal_equal(limits[0], expected)) {
      budget.pass();
      continue;
    }
    std::string got = limits.empty() ? "no limit" : "limit=";
    for (std::size_t i = 0; i < limits.size(); ++i)
      got += (i ? "&limit=" : "") + quote(limits[i]);
    budget.fail(std::string("expected ") + key + " to carry limit=" + std::string(expected) + " (" +
                    std::string(why) + "), got " + got,
                std::string("/") + key);
  }
}

}  // namespace detail
}  // namespace entimg::contract

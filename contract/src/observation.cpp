#include "entimg/contract/observation.hpp"
#include "entimg/common/json_pointer.hpp"

#include <algorithm>
#include <cstring>

#include "check_support.hpp"
#include "json_parse.hpp"

namespace entimg::contract {
namespace {

// A page is three levels deep; anything far deeper is refused before parsing, because the conversion
// to nlohmann, its dump and the schema validator recurse once per level and a hostile body could
// exhaust the stack.
constexpr std::size_t kMaxDepth = 128;

// Deepest nesting of [ and { outside strings, stopping as soon as it passes kMaxDepth. Strings are
// skipped with memchr, so the scan costs a fraction of the parse it guards.
std::size_t nesting_depth(std::string_view body) {
  std::size_t depth = 0, deepest = 0;
  const char* const data = body.data();
  const std::size_t size = body.size();
  for (std::size_t i = 0; i < size;) {
    const char c = data[i];
    if (c == '"') {
      std::size_t from = i + 1;
      for (;;) {
        const void* found = std::memchr(data + from, '"', size - from);
        if (found == nullptr) return deepest;  // unterminated: the parser says so
        const auto quote_at = static_cast<std::size_t>(static_cast<const char*>(found) - data);
        std::size_t backslashes = 0;
        while (quote_at - backslashes > from && data[quote_at - backslashes - 1] == '\\')
          ++backslashes;
        from = quote_at + 1;
        if (backslashes % 2 == 0) break;  // not escaped: the string ends here
      }
      i = from;
      continue;
    }
    if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxDepth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return deepest;
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
  if (nesting_depth(body) > kMaxDepth) {
    page.json_error = "the body nests arrays/objects deeper than " + std::to_string(kMaxDepth) + " levels";
    return;
  }
  try {
    auto parsed = detail::parse_json_dom(body);
    page.json = parsed.root;
    page.json_document = std::move(parsed.document);
  } catch (const nlohmann::json::exception& e) {
    // The message quotes the bytes read last, which may be invalid UTF-8.
    page.json_error = "not JSON: " + common::utf8_replace_invalid(e.what());
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

}  // namespace detail
}  // namespace entimg::contract

#include "json_parse.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "entimg/common/url.hpp"

namespace entimg::contract::detail {
namespace {

using Json = nlohmann::json;
using simdjson::dom::element;
using simdjson::dom::element_type;

// The first key an object in value repeats, or nullopt. Of an object's first 32 keys, each sets one bit of
// a 64-bit mask by a hash of its size and ends, and only a key whose bit is already set is compared with
// the keys before it (a record's 15 keys share none; comparing every pair cost a tenth of the walk).
// Larger objects are sorted.
std::optional<std::string_view> repeated_key(element value) {
  if (value.type() == element_type::ARRAY) {
    const simdjson::dom::array items = value.get_array().value_unsafe();
    for (const element item : items) {
      const auto type = item.type();
      if (type != element_type::ARRAY && type != element_type::OBJECT) continue;
      if (const auto key = repeated_key(item)) return key;
    }
    return std::nullopt;
  }
  if (value.type() != element_type::OBJECT) return std::nullopt;
  const simdjson::dom::object object = value.get_object().value_unsafe();
  constexpr std::size_t kMasked = 32;
  // Not string_views: their constructor would zero all 32 for every object (a fifth of this function's time).
  struct Key {
    const char* data;
    std::size_t size;
    std::string_view view() const { return {data, size}; }
  };
  Key keys[kMasked];  // the first n are set
  std::vector<std::string_view> many;
  std::uint64_t bits = 0;
  std::size_t n = 0;
  // By the iterator, not a range-for: see member() in json_access.hpp.
  for (auto field = object.begin(), end = object.end(); field != end; ++field) {
    const std::string_view key = field.key();
    if (n < kMasked) {
      // Size, first and last byte, weighed so that a record's 15 keys and the envelope's 4 each set a bit
      // of their own.
      const std::size_t hash = key.empty() ? 0
                                           : key.size() + static_cast<unsigned char>(key.front()) +
                                                 static_cast<unsigned char>(key.back()) * 25U;
      const std::uint64_t bit = std::uint64_t{1} << (hash & 63U);
      if ((bits & bit) != 0) {
        for (std::size_t i = 0; i < n; ++i)
          if (keys[i].view() == key) return key;
      }
      bits |= bit;
      keys[n] = {key.data(), key.size()};
    } else {
      if (n == kMasked)
        for (const Key& earlier : keys)
          many.push_back(earlier.view());
      many.push_back(key);
    }
    ++n;
    const element member = field.value();
    const auto type = member.type();
    if (type != element_type::ARRAY && type != element_type::OBJECT) continue;
    if (const auto inner = repeated_key(member)) return inner;
  }
  if (many.empty()) return std::nullopt;
  std::sort(many.begin(), many.end());
  const auto at = std::adjacent_find(many.begin(), many.end());
  return at == many.end() ? std::nullopt : std::optional(*at);
}

// A parser keeps its working buffers between documents; one per thread, as the walk parses on several. It
// refuses nesting deeper than kMaxJsonDepth, so a body it reads needs no nesting_depth scan. simdjson counts
// a scalar at the bottom as a level, so a body nested exactly kMaxJsonDepth deep may need the second
// parser, one level deeper.
simdjson::dom::parser make_parser(std::size_t max_depth) {
  simdjson::dom::parser parser;
  if (parser.allocate(simdjson::SIMDJSON_PADDING, max_depth) != simdjson::SUCCESS) throw std::bad_alloc();
  return parser;
}

simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser = make_parser(kMaxJsonDepth);
  return parser;
}

simdjson::dom::parser& thread_parser_one_deeper() {
  thread_local simdjson::dom::parser parser = make_parser(kMaxJsonDepth + 1);
  return parser;
}

// Parses into a document of its own; simdjson's error when it refuses the text.
simdjson::error_code parse_into(simdjson::dom::parser& parser, const std::string& text, ParsedJson& out) {
  auto document = std::make_shared<simdjson::dom::document>();
  const auto parsed = parser.parse_into_document(*document, text);
  if (parsed.error() != simdjson::SUCCESS) return parsed.error();
  out.root = parsed.value_unsafe();
  out.document = std::move(document);
  return simdjson::SUCCESS;
}

}  // namespace

// Strings are skipped with memchr, so the scan costs a fraction of the parse it guards.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  const char* const data = text.data();
  const std::size_t size = text.size();
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
      if (deepest > kMaxJsonDepth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return deepest;
}

std::string parse_error_text(std::string_view what) {
  constexpr std::string_view kLastRead = "last read: '";
  constexpr std::size_t kShown = 40;
  std::string text(what);
  if (const auto at = text.find(kLastRead); at != std::string::npos) {
    const std::size_t from = at + kLastRead.size();
    const std::size_t end = text.rfind('\'');
    const std::size_t length = end != std::string::npos && end >= from ? end - from : text.size() - from;
    if (length > kShown)
      text = text.substr(0, from + kShown) + "… (" + std::to_string(length) + " bytes)" +
             (end != std::string::npos && end >= from ? text.substr(end) : "");
  }
  text = common::utf8_replace_invalid(text);
  const std::size_t total = text.size();
  return common::utf8_cut(std::move(text), 400, "… (" + std::to_string(total) + " bytes)");
}

namespace {

// The longest run of number characters outside strings: simdjson refuses integers beyond 64 bits, and
// nlohmann, which reads them next, runs strtod over the whole token (17 s for 60 MB of digits).
std::size_t longest_number(std::string_view text) {
  std::size_t longest = 0, run = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    const bool number = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    run = number ? run + 1 : 0;
    longest = std::max(longest, run);
    in_string = c == '"';
  }
  return longest;
}

// Far beyond any number a double or a 64-bit integer can tell apart.
constexpr std::size_t kMaxNumberChars = 4096;

}  // namespace

ParsedJson parse_json_dom(const std::string& text) {
  ParsedJson out;
  simdjson::error_code error = parse_into(thread_parser(), text, out);
  if (error != simdjson::SUCCESS) {
    if (nesting_depth(text) > kMaxJsonDepth) throw TooDeep();
    if (error == simdjson::DEPTH_ERROR) error = parse_into(thread_parser_one_deeper(), text, out);
  }
  std::string repeated;
  if (error == simdjson::SUCCESS) {
    const auto key = repeated_key(out.root);
    if (!key) return out;
    repeated = std::string(*key);  // copied: the next parse reuses the document it points into
  }
  if (const std::size_t digits = longest_number(text); digits > kMaxNumberChars)
    throw std::runtime_error("it holds a number of " + std::to_string(digits) + " characters (at most " +
                             std::to_string(kMaxNumberChars) + " are read)");
  // nlohmann's reading, written back as JSON both agree on (throws when the text is not JSON at all).
  const std::string normal = Json::parse(text).dump();
  if (parse_into(thread_parser_one_deeper(), normal, out) != simdjson::SUCCESS)
    throw std::runtime_error("simdjson refused nlohmann's own output");
  out.repeated_key = std::move(repeated);
  return out;
}

Json parse_json(const std::string& text) {
  const auto parsed = thread_parser().parse(text);
  if (parsed.error() != simdjson::SUCCESS) {
    if (const std::size_t digits = longest_number(text); digits > kMaxNumberChars)
      throw std::runtime_error("it holds a number of " + std::to_string(digits) + " characters (at most " +
                               std::to_string(kMaxNumberChars) + " are read)");
    return Json::parse(text);
  }
  return to_nlohmann(parsed.value_unsafe());
}

}  // namespace entimg::contract::detail

#include "json_parse.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace entimg::contract::detail {
namespace {

using Json = nlohmann::json;
using simdjson::dom::element;
using simdjson::dom::element_type;

// Whether any object in value repeats a key. Objects of a page have a few keys, compared pairwise;
// larger ones are sorted.
bool has_repeated_key(element value) {
  if (value.type() == element_type::ARRAY) {
    const simdjson::dom::array items = value.get_array().value_unsafe();
    for (const element item : items)
      if (has_repeated_key(item)) return true;
    return false;
  }
  if (value.type() != element_type::OBJECT) return false;
  const simdjson::dom::object object = value.get_object().value_unsafe();
  constexpr std::size_t kPairwise = 32;
  std::string_view keys[kPairwise];
  std::vector<std::string_view> many;
  std::size_t n = 0;
  for (const auto field : object) {
    if (n < kPairwise) {
      for (std::size_t i = 0; i < n; ++i)
        if (keys[i] == field.key) return true;
      keys[n] = field.key;
    } else {
      if (n == kPairwise) many.assign(keys, keys + kPairwise);
      many.push_back(field.key);
    }
    ++n;
    if (has_repeated_key(field.value)) return true;
  }
  if (many.empty()) return false;
  std::sort(many.begin(), many.end());
  return std::adjacent_find(many.begin(), many.end()) != many.end();
}

// A parser keeps its working buffers between documents; one per thread, as the walk parses on several.
simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// Parses into a document of its own; false when simdjson refuses the text.
bool parse_into(const std::string& text, ParsedJson& out) {
  auto document = std::make_shared<simdjson::dom::document>();
  const auto parsed = thread_parser().parse_into_document(*document, text);
  if (parsed.error() != simdjson::SUCCESS) return false;
  out.root = parsed.value_unsafe();
  out.document = std::move(document);
  return true;
}

}  // namespace

ParsedJson parse_json_dom(const std::string& text) {
  ParsedJson out;
  if (parse_into(text, out) && !has_repeated_key(out.root)) return out;
  // nlohmann's reading, written back as JSON both agree on (throws when the text is not JSON at all).
  const std::string normal = Json::parse(text).dump();
  if (!parse_into(normal, out)) throw std::runtime_error("simdjson refused nlohmann's own output");
  return out;
}

Json parse_json(const std::string& text) {
  const auto parsed = thread_parser().parse(text);
  if (parsed.error() != simdjson::SUCCESS) return Json::parse(text);
  return to_nlohmann(parsed.value_unsafe());
}

}  // namespace entimg::contract::detail

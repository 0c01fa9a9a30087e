#pragma once
// Page bodies are read into simdjson's DOM: one allocation per document instead of one per value, which
// is most of what a full walk would otherwise spend. The checks read that DOM (detail::Json); the few
// places that build or compare whole documents convert to nlohmann::json.
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "entimg/common/json_dom.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// A JSON text in simdjson's DOM; `root` points into `document`, which copies share.
struct ParsedJson {
  std::shared_ptr<const simdjson::dom::document> document;
  simdjson::dom::element root;
  /// A key an object of the text held twice (the last value was kept; it may be ""); nullopt when none did.
  std::optional<std::string> repeated_key;
  /// The items of the root object's `results` array with the members the rules read, unless they are too
  /// many for the text's size (Page::json_records).
  std::vector<RecordMembers> records;
};

/// Deepest nesting a body may have: a page is three levels deep, and the conversion to nlohmann, its
/// dump and the schema validator recurse once per level, so a deeper text is refused (TooDeep) before
/// anything but simdjson, which keeps its own bounded stack, reads it.
inline constexpr std::size_t kMaxJsonDepth = 128;

/// What parse_json_dom throws for a text nested deeper than kMaxJsonDepth.
struct TooDeep : std::runtime_error {
  TooDeep() : std::runtime_error("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels") {}
};

/// Most values a body may hold (arrays, objects, strings, numbers, literals; object keys aside): a page of
/// 1,000 records holds about 16,000. The DOM and what is built from it cost a few tens of bytes a value (the
/// nlohmann copies compressed_as_asked compares, about 50 each), so a 60 MB text of `[]`s (20 million values)
/// once took 2 GiB; a text over the bound is refused (TooManyValues) before any parser reads it.
inline constexpr std::size_t kMaxJsonValues = 1'000'000;

/// What parse_json_dom and parse_json throw for a text over kMaxJsonValues values (or, when it is not JSON,
/// over 4 × kMaxJsonValues brackets, commas and colons, each of which a parser indexes).
struct TooManyValues : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Values and structural characters of a text, outside strings.
struct JsonCount {
  std::size_t values =
      0;  ///< exact for a JSON text: opened arrays and objects, strings, other tokens, less keys
  std::size_t structurals = 0;  ///< [ ] { } , :
};
/// Counts a text's values and structurals, stopping soon after either passes its bound (kMaxJsonValues,
/// 4 × kMaxJsonValues).
JsonCount count_values(std::string_view text);
/// Throws TooManyValues when the text may hold more than kMaxJsonValues values; a text short enough that it
/// cannot ((size + 1) / 2 values at most: every value takes a byte and is set apart by one) is not read.
void check_value_count(std::string_view text);

/// The document nlohmann::json::parse(text) would give, in simdjson's DOM. Texts simdjson reads as
/// nlohmann does not are taken through nlohmann first: integers beyond 64 bits (nlohmann makes them
/// doubles) and objects with a repeated key (the last one wins, as in nlohmann, Python and
/// JavaScript). Throws nlohmann::json::exception, with nlohmann's message, when the text is not JSON;
/// TooDeep when it nests deeper than kMaxJsonDepth (whatever else is wrong with it); std::runtime_error
/// for a number token over 4096 characters (see parse_json); TooManyValues for a text over kMaxJsonValues
/// values. "-0" is the integer 0 in both.
ParsedJson parse_json_dom(const std::string& text);
/// The texts the documents kept for reuse can take together (bytes; at most 16 MiB). For tests.
std::size_t kept_document_text();
/// Deepest nesting of [ and { outside strings, stopping as soon as it passes kMaxJsonDepth.
std::size_t nesting_depth(std::string_view text);
/// nlohmann's parse error message with the bytes it quotes cut short and invalid UTF-8 replaced: its
/// "last read" can be a whole 5 MB number.
std::string parse_error_text(std::string_view what);

using common::count_of;
using common::to_nlohmann;

/// nlohmann::json::parse(text), read through simdjson (about twice as fast on large pages). Both parsers
/// throw std::runtime_error for a number token over 4096 characters rather than run strtod over it, and
/// TooManyValues as parse_json_dom does.
nlohmann::json parse_json(const std::string& text);

}  // namespace entimg::contract::detail

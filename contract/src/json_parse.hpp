#pragma once
// Page bodies are read into simdjson's DOM: one allocation per document instead of one per value, which
// is most of what a full walk would otherwise spend. The checks read that DOM (detail::Json); the few
// places that build or compare whole documents convert to nlohmann::json.
#include <memory>
#include <string>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "entimg/common/json_dom.hpp"

namespace entimg::contract::detail {

/// A JSON text in simdjson's DOM; `root` points into `document`, which copies share.
struct ParsedJson {
  std::shared_ptr<const simdjson::dom::document> document;
  simdjson::dom::element root;
};

/// The document nlohmann::json::parse(text) would give, in simdjson's DOM. Texts simdjson reads as
/// nlohmann does not are taken through nlohmann first: integers beyond 64 bits (nlohmann makes them
/// doubles) and objects with a repeated key (the last one wins, as in nlohmann, Python and
/// JavaScript). Throws nlohmann::json::exception, with nlohmann's message, when the text is not JSON.
/// "-0" is the integer 0 in both.
ParsedJson parse_json_dom(const std::string& text);

using common::count_of;
using common::to_nlohmann;

/// nlohmann::json::parse(text), read through simdjson (about twice as fast on large pages).
nlohmann::json parse_json(const std::string& text);

}  // namespace entimg::contract::detail

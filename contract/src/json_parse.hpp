#pragma once
// nlohmann::json::parse, about twice as fast on the pages a full walk reads: simdjson validates and
// indexes the text, then its DOM is copied into nlohmann's (which the checks and valijson read).
#include <string>

#include <nlohmann/json.hpp>

namespace entimg::contract::detail {

/// The document nlohmann::json::parse(text) would give. Any text simdjson refuses (malformed JSON,
/// integers beyond 64 bits, ...) is handed to nlohmann::json::parse itself, so the errors it throws and
/// its corner cases (such integers become doubles) are nlohmann's own. One difference remains: "-0"
/// becomes an unsigned 0 rather than a signed one (equal as numbers, and dumped alike).
nlohmann::json parse_json(const std::string& text);

}  // namespace entimg::contract::detail

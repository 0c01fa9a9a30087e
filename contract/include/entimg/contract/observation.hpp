#pragma once
// What the suite saw: fetched pages with what it asked for, and the walk over them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract {

/// One list request and its answer. The suite knows which limit and offset the service must apply
/// (DRF's rules, reference §2.1), so each page carries them: checks never re-derive them.
struct Page {
  HttpExchange exchange;
  common::QueryParams sent;  ///< the query parameters the suite sent, decoded
  std::uint64_t effective_limit = 12;
  std::uint64_t effective_offset = 0;
  std::optional<nlohmann::json> json;  ///< the parsed body, when it is JSON
  std::string json_error;              ///< why it is not, otherwise
};

/// A request with its expected effective window, before it is sent.
struct PageQuery {
  common::QueryParams params;  ///< e.g. {{"format","json"},{"offset","24"}}
  std::uint64_t effective_limit = 12;
  std::uint64_t effective_offset = 0;
  std::string label;  ///< "first page", "limit=abc", … for messages
};

/// Parses the body as JSON into page.json or sets json_error; a truncated body is never parsed.
void parse_body(Page& page);

}  // namespace entimg::contract

#pragma once
// What the suite saw: fetched pages with what it asked for, and the walk over them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "entimg/common/url.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract {

/// The members of one item of a body's `results` that the record rules read. They are found as the
/// body is parsed, in the pass that looks for repeated keys, instead of by a look-up per rule and record.
struct RecordMembers {
  simdjson::dom::element record;                                     ///< the item itself (any JSON value)
  std::optional<simdjson::dom::element> id, image, file, mime_type;  ///< nullopt when it has no such key
};

/// One list request and its answer. The suite knows which limit and offset the service must apply
/// (DRF's rules, reference §2.1), so each page carries them: checks never re-derive them.
struct Page {
  HttpExchange exchange;
  common::QueryParams sent;  ///< the query parameters the suite sent, decoded
  std::uint64_t effective_limit = 12;
  std::uint64_t effective_offset = 0;
  /// The parsed body, when it is JSON: simdjson's read-only DOM, pointing into json_document.
  std::optional<simdjson::dom::element> json;
  std::shared_ptr<const simdjson::dom::document> json_document;  ///< owns what json points into
  std::string json_error;                                        ///< why the body is not JSON, otherwise
  /// A key some object of the body repeats (RFC 8259 §4: receivers differ on which value counts); the
  /// DOM keeps the last, as nlohmann, Python and JavaScript do. It may be "" (a key like any other);
  /// nullopt when every key is unique.
  std::optional<std::string> json_repeated_key;
  /// One per item of `results` when the body is an object whose `results` is an array (in its order), unless
  /// the items are too many for the body's size (a huge array of tiny items); else empty. Read them through
  /// detail::result_records, which finds each item's members itself when they were not kept. Points into
  /// json_document like json.
  std::vector<RecordMembers> json_records;
  /// The content coding the body came in ("gzip", "br"), which the request accepted: exchange.body then
  /// holds the decoded text. "" for a body that came plain.
  std::string content_coding;
};

/// A request with its expected effective window, before it is sent.
struct PageQuery {
  common::QueryParams params;  ///< e.g. {{"format","json"},{"offset","24"}}
  std::uint64_t effective_limit = 12;
  std::uint64_t effective_offset = 0;
  std::string label;  ///< "first page", "limit=abc", … for messages
};

/// Parses the body as JSON into page.json or sets json_error; a truncated body is never parsed. A body
/// in a content coding the request accepted is decoded first (content_coding says which); one in a
/// coding it did not accept is not JSON, and json_error says so.
void parse_body(Page& page);
/// page.exchange.body = text, then parse_body: a page whose body a test or tool writes.
void set_body(Page& page, std::string text);

}  // namespace entimg::contract

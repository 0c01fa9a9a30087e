#pragma once
// What the suite saw: fetched pages with what it asked for, and the walk over them.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "entimg/common/url.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract {

/// The 15 keys of an image record (spec §2.1), numbered as RecordMembers keeps them: first the four that
/// the record rules read (RecordKey).
inline constexpr std::array<std::string_view, 15> kRecordKeys = {"id",
                                                                 "image",
                                                                 "file",
                                                                 "mime_type",
                                                                 "alt",
                                                                 "key",
                                                                 "name",
                                                                 "order",
                                                                 "author",
                                                                 "entity",
                                                                 "file_size",
                                                                 "description",
                                                                 "default_caption",
                                                                 "subject_location",
                                                                 "original_filename"};
enum RecordKey : std::uint8_t { kRecordId, kRecordImage, kRecordFile, kRecordMimeType };

/// The members of one item of a body's `results` under a record key. They are found as the body is parsed,
/// in the pass that looks for repeated keys, instead of by a look-up per rule and record.
struct RecordMembers {
  simdjson::dom::element record;  ///< the item itself (any JSON value)
  /// The member under kRecordKeys[k], set when bit k of `present` is.
  std::array<simdjson::dom::element, kRecordKeys.size()> by_key;
  std::uint16_t present = 0;
  /// Whether by_key holds every member of the item: an object whose keys are all record keys, each once.
  bool whole = false;

  std::optional<simdjson::dom::element> member(std::size_t k) const {
    return (present >> k & 1U) != 0 ? std::optional(by_key[k]) : std::nullopt;
  }
  std::optional<simdjson::dom::element> id() const { return member(kRecordId); }
  std::optional<simdjson::dom::element> image() const { return member(kRecordImage); }
  std::optional<simdjson::dom::element> file() const { return member(kRecordFile); }
  std::optional<simdjson::dom::element> mime_type() const { return member(kRecordMimeType); }
};

/// One list request and its answer. The suite knows which limit and offset the service must apply
/// (DRF's rules, reference §2.1), so each page carries them: checks never re-derive them.
struct Page {
  HttpExchange exchange;
  common::QueryParams sent;  ///< the query parameters the suite sent, decoded
  std::uint64_t effective_limit = 12;
  std::uint64_t effective_offset = 0;
  /// The limit asked, when the deployment capped it at effective_limit (DRF's max_limit, which its links
  /// say: detail::adopt_capped_limit); 0 when it was not capped.
  std::uint64_t capped_from = 0;
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

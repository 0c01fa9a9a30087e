#pragma once
// What the checks share: reading a page whatever shape it has, bounded failure reporting, links
// parsed into parameters, header lists and decimal arithmetic that cannot overflow.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/checks.hpp"
#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// A value of a page's body (simdjson's DOM: read-only, valid while the page's json_document lives).
using Json = simdjson::dom::element;
using JsonArray = simdjson::dom::array;

/// Failures reported per rule per page before the rest are summed up in one "… and N more".
inline constexpr std::size_t kFailuresPerPage = 20;

/// The body when the answer is a 200 JSON object; rules that read fields skip the page otherwise.
std::optional<Json> body_object(const Page& page);
/// Member `key` of an object, or nullopt (also when obj is not an object).
std::optional<Json> member(Json obj, std::string_view key);
/// `results` of a 200 JSON object when it is an array.
std::optional<JsonArray> results_array(const Page& page);
/// A non-negative integer that fits 64 bits (count, offsets); nullopt for any other value.
std::optional<std::uint64_t> as_count(std::optional<Json> value);
/// The record's integer `id` when it fits 64 bits signed.
std::optional<std::int64_t> record_id(Json record);
/// The text of a string value; nullopt for any other value.
std::optional<std::string_view> as_string(std::optional<Json> value);
/// The last item of a non-empty array.
Json last_item(JsonArray array);
/// Whether the value is an integer (of any sign and size simdjson keeps: int64 or uint64).
bool is_integer(Json value);

/// A key escaped as an RFC 6901 pointer token ("~" → "~0", "/" → "~1").
std::string pointer_token(std::string_view key);
/// "/results/3/id": pointer to a field of a record (the key escaped as RFC 6901 wants).
std::string record_pointer(std::size_t index, std::string_view key = {});
/// A value shown in a message: scalars (strings cut at ~80 bytes), containers by kind and size.
std::string describe(Json value);
std::string describe(const nlohmann::json& value);
/// Server text shown in a message: invalid UTF-8 replaced, cut at ~120 bytes, in quotes.
std::string quote(std::string_view text);

/// Reports up to kFailuresPerPage failures of one rule, then counts the rest; finish() adds the
/// "… and N more" line and the passes.
class FailureBudget {
 public:
  FailureBudget(Findings& findings, std::string_view rule, std::string url)
      : findings_(findings), rule_(rule), url_(std::move(url)) {}
  FailureBudget(const FailureBudget&) = delete;
  FailureBudget& operator=(const FailureBudget&) = delete;
  /// True while a further failure would still be reported in full (lets callers skip costly messages).
  bool room() const { return reported_ < kFailuresPerPage; }
  void fail(std::string message, std::string pointer = {}, std::optional<std::int64_t> id = std::nullopt);
  void pass(std::uint64_t n = 1) { passes_ += n; }
  /// Failures so far, reported or counted.
  std::size_t failures() const { return reported_ + more_; }
  /// what_more names the unit of the summary line ("failures", "records").
  void finish(std::string_view what_more = "failures");

 private:
  Findings& findings_;
  std::string_view rule_;
  std::string url_;
  std::size_t reported_ = 0;
  std::size_t more_ = 0;
  std::uint64_t passes_ = 0;
};

/// A link (next/previous) as the checks read it.
struct Link {
  bool absolute = false;  ///< an http(s) URL with an authority
  common::UrlParts parts;
  common::QueryParams params;  ///< decoded, in order
};
Link parse_link(std::string_view url);
/// Every value of `key` among the parameters (copies: links are often temporaries).
std::vector<std::string> values_of(const common::QueryParams& params, std::string_view key);
/// Each link (next, previous) of the body must carry exactly one limit=expected; reports through budget,
/// `why` saying where expected comes from.
void check_link_limits(Json body, std::string_view expected, std::string_view why, FailureBudget& budget);

/// Decimal text of n, and of a + b without overflow.
std::string decimal(std::uint64_t n);
std::string add_decimal(std::uint64_t a, std::uint64_t b);
/// True when text is ASCII digits whose value is the decimal `expected` (leading zeros allowed).
bool is_decimal_equal(std::string_view text, std::string_view expected);

using common::iequals_ascii;
using common::trim;
/// Values of every header of that name (a list header may come in several lines).
std::vector<std::string_view> header_values(const HttpExchange& exchange, std::string_view name);
/// The non-empty, trimmed elements of comma-separated header values.
std::vector<std::string_view> list_elements(const std::vector<std::string_view>& values);

/// Lower-cased "scheme://host[:port]" with the default port left out, or nullopt when not absolute http(s).
std::optional<std::string> normalised_origin(std::string_view url);

}  // namespace entimg::contract::detail

#pragma once
// The request journal behind --admin: the last requests the mock answered, for a frontend's end-to-end
// test to assert on ("the app asked for offset 24 once, with limit 12"), as WireMock's journal is used.
// docs/mock.md, "Admin routes".
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/common/url.hpp"
#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

/// One request the mock answered. Its listing JSON is made when it is added, so the journal's size is what
/// its listing will be, and the journal is bounded by bytes as well as by entries.
struct JournalEntry {
  std::uint64_t seq = 0;  ///< 1, 2, ... in the order answers were made; never reused until a reset
  std::int64_t unix_ms = 0;
  std::string method, target, path;  ///< path: decoded; the query is read from target when filtering
  std::string json;                  ///< the entry as GET /__mock/requests lists it

  /// The bytes it holds, as counted against --journal-bytes.
  std::size_t footprint() const {
    return sizeof(JournalEntry) + method.size() + target.size() + path.size() + json.size();
  }
};

/// Which entries a query selects: GET /__mock/requests?method=GET&path=/edw/api/entities-images/
/// &query.offset=24&since=SEQ&after=TIME&before=TIME&limit=N.
struct JournalFilter {
  std::optional<std::string> method;                                       ///< exact, case-insensitive
  std::optional<std::string> path;                                         ///< the decoded path, exact
  std::vector<std::pair<std::string, std::optional<std::string>>> params;  ///< query.NAME[=VALUE]
  std::uint64_t since = 0;                                                 ///< entries after this seq
  std::optional<std::int64_t> after_ms, before_ms;  ///< after=T, before=T: unix ms or ISO-8601 UTC
  std::optional<std::uint64_t> limit;               ///< the first N selected

  /// The filter of an admin query string, or the message of a 400 saying what is wrong with it.
  static std::pair<std::optional<JournalFilter>, std::string> parse(std::string_view query);
  /// Whether the filter selects the entry; the entry's query is read once and sorted, so many query.NAME
  /// filters cost a binary search each, not a pass over the entry's parameters.
  bool selects(const JournalEntry& entry) const;
};

/// Request headers whose values are credentials (any case): masked in the journal unless asked.
inline constexpr std::string_view kCredentialHeaders[] = {
    "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token",
    "X-CSRFToken",   "X-Amz-Security-Token"};

class RequestJournal {
 public:
  /// Of a longer body the journal keeps this many bytes, with the whole body's length and sha256.
  static constexpr std::size_t kBodyKept = 16384;

  /// Keeps the latest `capacity` entries, and fewer when they would hold more than `max_bytes`. The values of
  /// credential headers (Authorization, Cookie, ...: kCredentialHeaders) are kept as "*****" unless
  /// `keep_credentials` (--journal-credentials): a page that reads the journal learns no secret.
  RequestJournal(std::size_t capacity, std::size_t max_bytes, bool keep_credentials = false)
      : capacity_(capacity), max_bytes_(max_bytes), keep_credentials_(keep_credentials) {}
  void add(const HttpRequest& request, int status, std::uint64_t bytes, double ms);
  /// {"count": N, "requests": [...]} of the entries the filter selects, oldest first. Filters a snapshot of
  /// the entries taken under the lock, so a costly filter never holds up the requests being journaled.
  std::string listing(const JournalFilter& filter) const;
  std::size_t count(const JournalFilter& filter) const;
  void clear();
  std::size_t bytes() const;

 private:
  using Entries = std::vector<std::shared_ptr<const JournalEntry>>;
  /// The entries of this moment, oldest first: copied pointers, so an entry evicted meanwhile lives on
  /// until the listing that holds it is made.
  Entries snapshot() const;
  /// The entries of the snapshot the filter selects, up to its limit (outside the lock).
  static Entries selected(const Entries& entries, const JournalFilter& filter);

  std::size_t capacity_, max_bytes_;
  bool keep_credentials_;
  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const JournalEntry>> entries_;
  std::size_t bytes_ = 0;
  std::uint64_t next_seq_ = 1;
};

}  // namespace entimg::mock::detail

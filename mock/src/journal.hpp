#pragma once
// The request journal behind --admin: the last requests the mock answered, for a frontend's end-to-end
// test to assert on ("the app asked for offset 24 once, with limit 12"), as WireMock's journal is used.
// docs/mock.md, "Admin routes".
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/common/url.hpp"
#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

struct JournalEntry {
  std::uint64_t seq = 0;  ///< 1, 2, ... in the order answers were made; never reused until a reset
  std::int64_t unix_ms = 0;
  std::string method, target, path;
  common::QueryParams query;  ///< decoded as Django's QueryDict decodes it
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  ///< at most kBodyKept bytes of the request body
  bool body_cut = false;
  int status = 0;  ///< 0: dropped without an answer
  std::uint64_t bytes = 0;
  double ms = 0;
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
  bool selects(const JournalEntry& entry) const;
};

class RequestJournal {
 public:
  static constexpr std::size_t kBodyKept = 65536;

  explicit RequestJournal(std::size_t capacity) : capacity_(capacity) {}
  void add(const HttpRequest& request, int status, std::uint64_t bytes, double ms);
  std::vector<JournalEntry> select(const JournalFilter& filter) const;
  std::size_t count(const JournalFilter& filter) const;
  void clear();

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<JournalEntry> entries_;
  std::uint64_t next_seq_ = 1;
};

/// The JSON the admin route answers for entries: {"count": N, "requests": [...]} (bodies as UTF-8 text,
/// or base64 under "body_base64" when they are not).
std::string journal_json(const std::vector<JournalEntry>& entries);

}  // namespace entimg::mock::detail

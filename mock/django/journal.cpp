#include "journal.hpp"

#include <ctime>
#include <iterator>

#include <nlohmann/json.hpp>

#include "entimg/common/ascii.hpp"
#include "entimg/common/snapshot.hpp"

namespace entimg::mock::detail {

namespace {

std::string iso_time(std::int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(unix_ms % 1000));
  return std::string(text, n) + millis;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left > 1) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (left > 2) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += left > 1 ? kAlphabet[(n >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[n & 63] : '=';
  }
  return out;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// A moment as unix milliseconds ("1764067200000") or ISO-8601 UTC ("2026-11-25T12:00:00Z", with
// optional .mmm), as the journal writes it.
std::optional<std::int64_t> moment(const std::string& text) {
  if (const auto ms = common::digits(text); ms && *ms <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(*ms);
  std::tm utc{};
  int millis = 0, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &utc.tm_year, &utc.tm_mon, &utc.tm_mday,
                  &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &used) != 6)
    return std::nullopt;
  std::string_view rest = std::string_view(text).substr(static_cast<std::size_t>(used));
  if (rest.size() == 5 && rest.front() == '.' && rest.back() == 'Z') {
    const auto m = common::digits(std::string(rest.substr(1, 3)));
    if (!m) return std::nullopt;
    millis = static_cast<int>(*m);
  } else if (rest != "Z") {
    return std::nullopt;
  }
  if (utc.tm_mon < 1 || utc.tm_mon > 12 || utc.tm_mday < 1 ||
      utc.tm_mday > days_in_month(utc.tm_year, utc.tm_mon) || utc.tm_hour > 23 || utc.tm_min > 59 ||
      utc.tm_sec > 60 || utc.tm_hour < 0 || utc.tm_min < 0 || utc.tm_sec < 0)
    return std::nullopt;  // timegm would carry 2026-02-30 into March rather than refuse it
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  const std::time_t seconds = timegm(&utc);
  if (seconds == -1) return std::nullopt;
  return static_cast<std::int64_t>(seconds) * 1000 + millis;
}

}  // namespace

std::pair<std::optional<JournalFilter>, std::string> JournalFilter::parse(std::string_view query) {
  JournalFilter f;
  for (std::size_t start = 0; start <= query.size();) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view piece = query.substr(start, end - start);
    start = end + 1;
    if (piece.empty()) continue;
    const common::QueryParams one = common::parse_query(piece);
    const std::string& key = one.front().first;
    const std::string& value = one.front().second;
    if (key == "method") {
      f.method = value;
    } else if (key == "path") {
      f.path = value;
    } else if (key.starts_with("query.") && key.size() > 6) {
      // query.NAME=VALUE: the request had NAME with VALUE; query.NAME alone (no '='): it had NAME.
      const bool bare = piece.find('=') == std::string_view::npos;
      f.params.emplace_back(key.substr(6), bare ? std::nullopt : std::optional<std::string>(value));
    } else if (key == "after" || key == "before") {
      const auto at = moment(value);
      if (!at)
        return {std::nullopt,
                "'" + key + "' must be unix milliseconds or a UTC time such as 2026-11-25T12:00:00Z, got '" +
                    value + "'"};
      (key == "after" ? f.after_ms : f.before_ms) = *at;
    } else if (key == "since" || key == "limit") {
      const auto n = common::digits(value);
      if (!n) return {std::nullopt, "'" + key + "' must be a whole number, got '" + value + "'"};
      (key == "since" ? f.since : f.limit.emplace()) = *n;
    } else {
      return {std::nullopt, "unknown filter '" + key +
                                "' (filters: method, path, query.NAME[=VALUE], since, after, before, limit)"};
    }
  }
  return {f, ""};
}

bool JournalFilter::selects(const JournalEntry& e) const {
  if (e.seq <= since) return false;
  if ((after_ms && e.unix_ms < *after_ms) || (before_ms && e.unix_ms >= *before_ms)) return false;
  if (method && !common::iequals_ascii(*method, e.method)) return false;
  if (path && *path != e.path) return false;
  if (params.empty()) return true;
  const std::size_t q = e.target.find('?');
  const common::QueryParams query = q == std::string::npos
                                        ? common::QueryParams{}
                                        : common::parse_query(std::string_view(e.target).substr(q + 1));
  for (const auto& [name, value] : params) {
    bool found = false;
    for (const auto& [k, v] : query)
      found = found || (k == name && (!value || v == *value));
    if (!found) return false;
  }
  return true;
}

namespace {

// An entry as the listing shows it: the body's first kBodyKept bytes (as text, or base64 when they are
// not UTF-8), with the whole body's length and sha256 when there is one.
std::string entry_json(const JournalEntry& e, const HttpRequest& request, int status, std::uint64_t bytes,
                       double ms) {
  nlohmann::json query = nlohmann::json::object();
  const std::size_t q = e.target.find('?');
  if (q != std::string::npos)
    for (const auto& [k, v] : common::parse_query(std::string_view(e.target).substr(q + 1)))
      query[k].push_back(v);
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : request.headers)
    headers.push_back({common::utf8_replace_invalid(name), common::utf8_replace_invalid(value)});
  nlohmann::json item = {{"seq", e.seq},
                         {"time", iso_time(e.unix_ms)},
                         {"method", common::utf8_replace_invalid(e.method)},
                         {"target", common::utf8_replace_invalid(e.target)},
                         {"path", common::utf8_replace_invalid(e.path)},
                         {"query", std::move(query)},
                         {"headers", std::move(headers)},
                         {"status", status},
                         {"bytes", bytes},
                         {"ms", ms}};
  if (!request.body.empty()) {
    const std::string kept = common::utf8_cut(request.body.substr(0, RequestJournal::kBodyKept + 1),
                                              RequestJournal::kBodyKept, "");
    if (common::utf8_replace_invalid(kept) == kept)
      item["body"] = kept;
    else
      item["body_base64"] = base64(std::string_view(request.body).substr(0, RequestJournal::kBodyKept));
    item["body_cut"] = request.body.size() > RequestJournal::kBodyKept;
    item["body_length"] = request.body.size();
    item["body_sha256"] = common::sha256_hex(request.body);
  }
  return item.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void RequestJournal::add(const HttpRequest& request, int status, std::uint64_t bytes, double ms) {
  JournalEntry e;
  e.unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  e.method = request.method;
  e.target = request.target;
  const std::size_t q = request.target.find('?');
  e.path = common::percent_decode(std::string_view(request.target).substr(0, q), false);
  std::unique_lock lock(mutex_);
  e.seq = next_seq_++;
  lock.unlock();
  e.json = entry_json(e, request, status, bytes, ms);  // the costly part, outside the lock
  e.json.shrink_to_fit();
  const std::size_t size = e.footprint();
  lock.lock();
  // Entries go in by seq; one made while another thread journaled goes to its place.
  auto at = entries_.end();
  while (at != entries_.begin() && std::prev(at)->seq > e.seq)
    --at;
  entries_.insert(at, std::move(e));
  bytes_ += size;
  while (!entries_.empty() && (entries_.size() > capacity_ || bytes_ > max_bytes_)) {
    bytes_ -= entries_.front().footprint();
    entries_.pop_front();
  }
}

std::string RequestJournal::listing(const JournalFilter& filter) const {
  const std::lock_guard lock(mutex_);
  std::size_t count = 0, size = 0;
  for (const JournalEntry& e : entries_) {
    if (filter.limit && count >= *filter.limit) break;
    if (filter.selects(e)) ++count, size += e.json.size() + 1;
  }
  std::string out = "{\"count\":" + std::to_string(count) + ",\"requests\":[";
  out.reserve(out.size() + size + 2);
  std::size_t written = 0;
  for (const JournalEntry& e : entries_) {
    if (written == count) break;
    if (!filter.selects(e)) continue;
    if (written++ > 0) out += ',';
    out += e.json;
  }
  out += "]}";
  return out;  // by name: no copy of what may be --journal-bytes
}

std::size_t RequestJournal::count(const JournalFilter& filter) const {
  std::size_t n = 0;
  const std::lock_guard lock(mutex_);
  for (const JournalEntry& e : entries_)
    n += filter.selects(e);
  return filter.limit ? std::min<std::size_t>(n, *filter.limit) : n;
}

void RequestJournal::clear() {
  const std::lock_guard lock(mutex_);
  entries_.clear();
  bytes_ = 0;
}

std::size_t RequestJournal::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace entimg::mock::detail

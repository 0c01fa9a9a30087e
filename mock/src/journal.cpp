#include "journal.hpp"

#include <ctime>

#include <nlohmann/json.hpp>

#include "entimg/common/ascii.hpp"

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
  if (utc.tm_mon < 1 || utc.tm_mon > 12 || utc.tm_mday < 1 || utc.tm_mday > 31 || utc.tm_hour > 23 ||
      utc.tm_min > 59 || utc.tm_sec > 60 || utc.tm_hour < 0 || utc.tm_min < 0 || utc.tm_sec < 0)
    return std::nullopt;  // timegm would carry a 13th month into the next year rather than refuse it
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  const std::time_t seconds = timegm(&utc);
  if (seconds == -1) return std::nullopt;
  return static_cast<std::int64_t>(seconds) * 1000 + millis;
}

}  // namespace

std::pair<std::optional<JournalFilter>, std::string> JournalFilter::parse(std::string_view query) {
  JournalFilter f;
  for (const auto& [key, value] : common::parse_query(query)) {
    if (key == "method") {
      f.method = value;
    } else if (key == "path") {
      f.path = value;
    } else if (key.starts_with("query.") && key.size() > 6) {
      // query.NAME=VALUE: the request had NAME with VALUE; query.NAME alone (no '='): it had NAME.
      const bool bare = query.find(key + "=") == std::string_view::npos && value.empty();
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
  for (const auto& [name, value] : params) {
    bool found = false;
    for (const auto& [k, v] : e.query)
      found = found || (k == name && (!value || v == *value));
    if (!found) return false;
  }
  return true;
}

void RequestJournal::add(const HttpRequest& request, int status, std::uint64_t bytes, double ms) {
  JournalEntry e;
  e.unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  e.method = request.method;
  e.target = request.target;
  const std::size_t q = request.target.find('?');
  e.path = common::percent_decode(std::string_view(request.target).substr(0, q), false);
  if (q != std::string::npos) e.query = common::parse_query(std::string_view(request.target).substr(q + 1));
  e.headers = request.headers;
  e.body_cut = request.body.size() > kBodyKept;
  e.body = request.body.substr(0, kBodyKept);
  e.status = status;
  e.bytes = bytes;
  e.ms = ms;
  const std::lock_guard lock(mutex_);
  e.seq = next_seq_++;
  entries_.push_back(std::move(e));
  while (entries_.size() > capacity_)
    entries_.pop_front();
}

std::vector<JournalEntry> RequestJournal::select(const JournalFilter& filter) const {
  std::vector<JournalEntry> out;
  const std::lock_guard lock(mutex_);
  for (const JournalEntry& e : entries_) {
    if (filter.limit && out.size() >= *filter.limit) break;
    if (filter.selects(e)) out.push_back(e);
  }
  return out;
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
}

std::string journal_json(const std::vector<JournalEntry>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const JournalEntry& e : entries) {
    nlohmann::json query = nlohmann::json::object();
    for (const auto& [k, v] : e.query)
      query[k].push_back(v);
    nlohmann::json headers = nlohmann::json::array();
    for (const auto& [name, value] : e.headers)
      headers.push_back({common::utf8_replace_invalid(name), common::utf8_replace_invalid(value)});
    nlohmann::json item = {{"seq", e.seq},
                           {"time", iso_time(e.unix_ms)},
                           {"method", common::utf8_replace_invalid(e.method)},
                           {"target", common::utf8_replace_invalid(e.target)},
                           {"path", common::utf8_replace_invalid(e.path)},
                           {"query", std::move(query)},
                           {"headers", std::move(headers)},
                           {"status", e.status},
                           {"bytes", e.bytes},
                           {"ms", e.ms}};
    if (!e.body.empty()) {
      if (common::utf8_replace_invalid(e.body) == e.body)
        item["body"] = e.body;
      else
        item["body_base64"] = base64(e.body);
      item["body_cut"] = e.body_cut;
    }
    list.push_back(std::move(item));
  }
  return nlohmann::json{{"count", entries.size()}, {"requests", std::move(list)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace entimg::mock::detail

#include "journal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <map>

#include "entimg/common/ascii.hpp"
#include "entimg/common/snapshot.hpp"
#include "json_writer.hpp"

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
  common::QueryParams query = q == std::string::npos
                                  ? common::QueryParams{}
                                  : common::parse_query(std::string_view(e.target).substr(q + 1));
  // Sorted once, then each filter is a binary search: 501 filters over an entry of 500 parameters cost
  // 501 searches, not 250,000 comparisons (issue 36).
  std::sort(query.begin(), query.end());
  for (const auto& [name, value] : params) {
    const auto at = std::lower_bound(query.begin(), query.end(), std::pair(name, value.value_or("")));
    if (at == query.end() || at->first != name || (value && at->second != *value)) return false;
  }
  return true;
}

namespace {

void write_query(JsonWriter& out, std::string_view target) {
  // {name: [values]}, names in order and each name once, as a QueryDict lists them.
  std::map<std::string, std::vector<std::string>> query;
  const std::size_t q = target.find('?');
  if (q != std::string::npos)
    for (auto& [k, v] : common::parse_query(target.substr(q + 1)))
      query[common::utf8_replace_invalid(k)].push_back(common::utf8_replace_invalid(v));
  out.begin_object();
  for (const auto& [name, values] : query) {
    out.key(name);
    out.begin_array();
    for (const std::string& value : values)
      out.string(value);
    out.end_array();
  }
  out.end_object();
}

bool credential_header(std::string_view name) {
  return std::any_of(std::begin(kCredentialHeaders), std::end(kCredentialHeaders),
                     [&](std::string_view c) { return common::iequals_ascii(c, name); });
}

void write_headers(JsonWriter& out, const HttpRequest& request, bool keep_credentials) {
  out.begin_array();
  for (const auto& [name, value] : request.headers) {
    out.begin_array();
    out.string(common::utf8_replace_invalid(name));
    out.string(keep_credentials || !credential_header(name) ? common::utf8_replace_invalid(value) : "*****");
    out.end_array();
  }
  out.end_array();
}

// The body's first kBodyKept bytes (as text, or base64 when they are not UTF-8), with the whole body's
// length and sha256. Written straight into the entry: nlohmann's DOM copied the kept bytes three times and
// escaped each control character with snprintf.
void write_body(JsonWriter& out, std::string_view body) {
  const std::string_view start = body.substr(0, RequestJournal::kBodyKept);
  std::size_t cut = start.size();
  while (cut < body.size() && cut > 0 && (static_cast<unsigned char>(body[cut]) & 0xC0U) == 0x80U)
    --cut;  // not inside a UTF-8 sequence
  const std::string_view kept = start.substr(0, cut);
  if (common::utf8_replace_invalid(kept) == kept) {
    out.key("body");
    out.string(kept);
  } else {
    out.key("body_base64");
    out.string(base64(start));
  }
  out.key("body_cut");
  out.boolean(body.size() > RequestJournal::kBodyKept);
  out.key("body_length");
  out.raw_number(std::to_string(body.size()));
  out.key("body_sha256");
  out.string(common::sha256_hex(body));
}

// Milliseconds to the microsecond.
void write_milliseconds(JsonWriter& out, double ms) {
  char text[32];
  const int n = std::snprintf(text, sizeof text, "%.3f", std::isfinite(ms) && ms >= 0 ? ms : 0.0);
  out.raw_number(std::string_view(text, n > 0 ? static_cast<std::size_t>(n) : 0));
}

// An entry as the listing shows it.
std::string entry_json(const JournalEntry& e, const HttpRequest& request, int status, std::uint64_t bytes,
                       double ms, bool keep_credentials) {
  std::string json;
  json.reserve(512 + json_string_bound(std::min(request.body.size(), RequestJournal::kBodyKept)));
  JsonWriter out(json);
  out.begin_object();
  out.key("seq");
  out.raw_number(std::to_string(e.seq));
  out.key("time");
  out.string(iso_time(e.unix_ms));
  const std::pair<const char*, const std::string*> texts[] = {
      {"method", &e.method}, {"target", &e.target}, {"path", &e.path}};
  for (const auto& [name, value] : texts) {
    out.key(name);
    out.string(common::utf8_replace_invalid(*value));
  }
  out.key("query");
  write_query(out, e.target);
  out.key("headers");
  write_headers(out, request, keep_credentials);
  out.key("status");
  out.integer(status);
  out.key("bytes");
  out.raw_number(std::to_string(bytes));
  out.key("ms");
  write_milliseconds(out, ms);
  if (!request.body.empty()) write_body(out, request.body);
  out.end_object();
  return json;
}

}  // namespace

void RequestJournal::add(const HttpRequest& request, int status, std::uint64_t bytes, double ms) {
  auto e = std::make_shared<JournalEntry>();
  e->unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  e->method = request.method;
  e->target = request.target;
  const std::size_t q = request.target.find('?');
  e->path = common::percent_decode(std::string_view(request.target).substr(0, q), false);
  std::unique_lock lock(mutex_);
  e->seq = next_seq_++;
  lock.unlock();
  e->json =
      entry_json(*e, request, status, bytes, ms, keep_credentials_);  // the costly part, outside the lock
  e->json.shrink_to_fit();
  const std::size_t size = e->footprint();
  lock.lock();
  // Entries go in by seq; one made while another thread journaled goes to its place.
  auto at = entries_.end();
  while (at != entries_.begin() && (*std::prev(at))->seq > e->seq)
    --at;
  entries_.insert(at, std::move(e));
  bytes_ += size;
  while (!entries_.empty() && (entries_.size() > capacity_ || bytes_ > max_bytes_)) {
    bytes_ -= entries_.front()->footprint();
    entries_.pop_front();
  }
}

RequestJournal::Entries RequestJournal::snapshot() const {
  const std::lock_guard lock(mutex_);
  return Entries(entries_.begin(), entries_.end());
}

RequestJournal::Entries RequestJournal::selected(const Entries& entries, const JournalFilter& filter) {
  Entries out;
  for (const auto& e : entries) {
    if (filter.limit && out.size() >= *filter.limit) break;
    if (filter.selects(*e)) out.push_back(e);
  }
  return out;
}

std::string RequestJournal::listing(const JournalFilter& filter) const {
  const Entries entries = selected(snapshot(), filter);
  std::size_t size = 0;
  for (const auto& e : entries)
    size += e->json.size() + 1;
  std::string out = "{\"count\":" + std::to_string(entries.size()) + ",\"requests\":[";
  out.reserve(out.size() + size + 2);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ',';
    out += entries[i]->json;
  }
  out += "]}";
  return out;  // by name: no copy of what may be --journal-bytes
}

std::size_t RequestJournal::count(const JournalFilter& filter) const {
  return selected(snapshot(), filter).size();
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

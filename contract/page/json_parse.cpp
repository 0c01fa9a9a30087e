#include "json_parse.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "entimg/common/url.hpp"

namespace entimg::contract::detail {
namespace {

using NJson = nlohmann::json;
using simdjson::dom::element;
using simdjson::dom::element_type;

std::optional<std::string_view> repeated_key(element value);

// The first key `object` repeats, or the first that a member's value repeats, as repeated_key says. Of the
// first 32 keys, each sets one bit of a 64-bit mask by a hash of its size and ends, and only a key whose bit
// is already set is compared with the keys before it (a record's 15 keys share none; comparing every pair
// cost a tenth of the walk). Larger objects are sorted. `inner(key, member)` looks into each member.
template <typename Inner>
std::optional<std::string_view> object_repeated_key(simdjson::dom::object object, Inner&& inner) {
  constexpr std::size_t kMasked = 32;
  // Not string_views: their constructor would zero all 32 for every object (a fifth of this function's time).
  struct Key {
    const char* data;
    std::size_t size;
    std::string_view view() const { return {data, size}; }
  };
  Key keys[kMasked];  // the first n are set
  std::vector<std::string_view> many;
  std::uint64_t bits = 0;
  std::size_t n = 0;
  // By the iterator, not a range-for: see member() in json_access.hpp.
  for (auto field = object.begin(), end = object.end(); field != end; ++field) {
    const std::string_view key = field.key();
    if (n < kMasked) {
      // Size, first and last byte, weighed so that a record's 15 keys and the envelope's 4 each set a bit
      // of their own.
      const std::size_t hash = key.empty() ? 0
                                           : key.size() + static_cast<unsigned char>(key.front()) +
                                                 static_cast<unsigned char>(key.back()) * 25U;
      const std::uint64_t bit = std::uint64_t{1} << (hash & 63U);
      if ((bits & bit) != 0) {
        for (std::size_t i = 0; i < n; ++i)
          if (keys[i].view() == key) return key;
      }
      bits |= bit;
      keys[n] = {key.data(), key.size()};
    } else {
      if (n == kMasked)
        for (const Key& earlier : keys)
          many.push_back(earlier.view());
      many.push_back(key);
    }
    ++n;
    if (const auto found = inner(key, field.value())) return found;
  }
  if (many.empty()) return std::nullopt;
  std::sort(many.begin(), many.end());
  const auto at = std::adjacent_find(many.begin(), many.end());
  return at == many.end() ? std::nullopt : std::optional(*at);
}

bool holds_members(element value) {
  const auto type = value.type();
  return type == element_type::ARRAY || type == element_type::OBJECT;
}

// The first key an object in value repeats, in the order of the text, or nullopt.
std::optional<std::string_view> repeated_key(element value) {
  if (value.type() == element_type::ARRAY) {
    const simdjson::dom::array items = value.get_array().value_unsafe();
    for (const element item : items) {
      if (!holds_members(item)) continue;
      if (const auto key = repeated_key(item)) return key;
    }
    return std::nullopt;
  }
  if (value.type() != element_type::OBJECT) return std::nullopt;
  return object_repeated_key(value.get_object().value_unsafe(),
                             [](std::string_view, element member) -> std::optional<std::string_view> {
                               if (!holds_members(member)) return std::nullopt;
                               return repeated_key(member);
                             });
}

// The number of a record key in kRecordKeys; -1 for any other key. Only a shortcut: a record with another
// key is scanned as any object is. json_parse_test holds it to kRecordKeys.
int record_key_bit(std::string_view key) {
  const char* k = key.data();
  const auto is = [k](const char* name, std::size_t size) { return std::memcmp(k, name, size) == 0; };
  switch (key.size()) {
    case 2:
      return is("id", 2) ? 0 : -1;
    case 3:
      return is("alt", 3) ? 4 : is("key", 3) ? 5 : -1;
    case 4:
      return is("file", 4) ? 2 : is("name", 4) ? 6 : -1;
    case 5:
      return is("image", 5) ? 1 : is("order", 5) ? 7 : -1;
    case 6:
      return is("author", 6) ? 8 : is("entity", 6) ? 9 : -1;
    case 9:
      return is("mime_type", 9) ? 3 : is("file_size", 9) ? 10 : -1;
    case 11:
      return is("description", 11) ? 11 : -1;
    case 15:
      return is("default_caption", 15) ? 12 : -1;
    case 16:
      return is("subject_location", 16) ? 13 : -1;
    case 17:
      return is("original_filename", 17) ? 14 : -1;
    default:
      return -1;
  }
}

}  // namespace

RecordMembers members_of(element record) {
  RecordMembers out;
  out.record = record;
  if (record.type() != element_type::OBJECT) return out;
  const simdjson::dom::object object = record.get_object().value_unsafe();
  bool whole = true;
  for (auto field = object.begin(), end = object.end(); field != end; ++field) {
    const int bit = record_key_bit(field.key());
    if (bit < 0) {
      whole = false;
      continue;
    }
    const auto mask = static_cast<std::uint16_t>(1U << bit);
    whole = whole && (out.present & mask) == 0;
    out.present |= mask;
    out.by_key[static_cast<std::size_t>(bit)] = field.value();  // the last of a repeated key, as the DOM
  }
  out.whole = whole;
  return out;
}

namespace {

// One item of results: its members the rules read, and what repeated_key(item) says, in one pass over its
// keys when they are all a record's (each known key a bit; a key seen twice is the repeat). Flattened: GCC
// left simdjson's step from one member to the next and record_key_bit out of line, a call per key (a fifth
// of this pass's instructions).
[[gnu::flatten]] std::optional<std::string_view> scan_record(element item, RecordMembers& out) {
  out.record = item;
  if (item.type() != element_type::OBJECT) return holds_members(item) ? repeated_key(item) : std::nullopt;
  const simdjson::dom::object object = item.get_object().value_unsafe();
  std::uint32_t seen = 0;
  for (auto field = object.begin(), end = object.end(); field != end; ++field) {
    const std::string_view key = field.key();
    const int bit = record_key_bit(key);
    if (bit < 0) {  // a key of its own: as any object (a body with a repeated key is read again without it)
      out = members_of(item);
      return repeated_key(item);
    }
    const std::uint32_t mask = std::uint32_t{1} << bit;
    if ((seen & mask) != 0) return key;
    seen |= mask;
    const element member = field.value();
    out.by_key[static_cast<std::size_t>(bit)] = member;
    if (holds_members(member))
      if (const auto inner = repeated_key(member)) return inner;
  }
  out.present = static_cast<std::uint16_t>(seen);
  out.whole = true;
  return std::nullopt;
}

// Items of results whose members are kept, at most: 264 bytes each, so that an array of tiny items (2 bytes
// each in the text) cannot make them many times the size of the body. Past that, or past kAlwaysKept items
// that average under kLeastBytesPerKept bytes of text, none are kept and the rules find each record's
// members as they come to it (RecordRange). A record of the mock is about 430 bytes.
constexpr std::size_t kMostKept = std::size_t{1} << 18;
constexpr std::size_t kAlwaysKept = 1024;
constexpr std::size_t kLeastBytesPerKept = 128;

// What repeated_key(root) says, and, when root is an object whose `results` is an array, its items with
// their members (records), unless there are too many of them for a text of `size` bytes.
std::optional<std::string_view> scan_body(element root, std::size_t size,
                                          std::vector<RecordMembers>& records) {
  records.clear();
  if (root.type() != element_type::OBJECT) return repeated_key(root);
  bool results_seen = false;
  return object_repeated_key(
      root.get_object().value_unsafe(),
      [&](std::string_view key, element member) -> std::optional<std::string_view> {
        if (key != "results" || results_seen || member.type() != element_type::ARRAY)
          return holds_members(member) ? repeated_key(member) : std::nullopt;
        results_seen = true;  // a second `results` is a repeated key, found before its value is read
        const simdjson::dom::array items = member.get_array().value_unsafe();
        const std::size_t count = count_of(items);
        if (count > kMostKept || (count > kAlwaysKept && count > size / kLeastBytesPerKept))
          return repeated_key(member);
        records.reserve(count);
        for (const element item : items)
          if (const auto found = scan_record(item, records.emplace_back())) return found;
        return std::nullopt;
      });
}

// A parser keeps its working buffers between documents; one per thread, as the walk parses on several. It
// refuses nesting deeper than kMaxJsonDepth, so a body it reads needs no nesting_depth scan. simdjson counts
// a scalar at the bottom as a level, so a body nested exactly kMaxJsonDepth deep may need the second
// parser, one level deeper.
simdjson::dom::parser make_parser(std::size_t max_depth) {
  simdjson::dom::parser parser;
  if (parser.allocate(simdjson::SIMDJSON_PADDING, max_depth) != simdjson::SUCCESS) throw std::bad_alloc();
  return parser;
}

simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser = make_parser(kMaxJsonDepth);
  return parser;
}

simdjson::dom::parser& thread_parser_one_deeper() {
  thread_local simdjson::dom::parser parser = make_parser(kMaxJsonDepth + 1);
  return parser;
}

// Documents whose pages are gone, kept for the next parse: a document holds 8 bytes of tape and 5/3 of a byte
// of strings per byte of the text it can take, and made new for every page it came back from the allocator
// as fresh pages the kernel zeroed on first touch (page faults were about 2 % of a walk). Pages are parsed
// on the walk's threads and dropped on another, hence one pool behind a mutex rather than one per thread.
// What it keeps is bounded by the texts its documents can take together (kKeptText: a document of a page
// of 1,000 records takes 512 KiB, so 32 of them), which bounds what it holds to about ten times that (of
// which only the pages a parse wrote are resident).
// Never destroyed: documents may be handed back while static objects are destroyed at exit.
class DocumentPool {
 public:
  static DocumentPool& instance() {
    static auto* const pool = new DocumentPool;
    return *pool;
  }

  std::size_t kept_text() {
    const std::lock_guard lock(mutex_);
    return kept_text_;
  }

  // A document with room for a text of `size` bytes; nullptr when there is no memory for one.
  std::shared_ptr<simdjson::dom::document> take(std::size_t size) {
    std::unique_ptr<simdjson::dom::document> document;
    {
      const std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        document = std::move(free_.back());
        free_.pop_back();
        kept_text_ -= document->capacity();
      }
    }
    if (!document) document = std::make_unique<simdjson::dom::document>();
    // A size that may be kept gets room for the next power of two, so that a page a few bytes longer than
    // the last does not make the document again; a larger one gets just its size.
    const std::size_t room = size <= kMostText ? std::bit_ceil(std::max<std::size_t>(size, 4096)) : size;
    if (document->capacity() < size && document->allocate(room) != simdjson::SUCCESS) return nullptr;
    return {document.release(), [this](simdjson::dom::document* given) { give_back(given); }};
  }

 private:
  static constexpr std::size_t kKeptText = 16u << 20;  // the capacities of the kept documents, together
  static constexpr std::size_t kMostText = 4u << 20;   // a document for a larger text is not kept

  void give_back(simdjson::dom::document* given) {
    std::unique_ptr<simdjson::dom::document> document(given);
    const std::size_t capacity = document->capacity();
    if (capacity > kMostText) return;
    const std::lock_guard lock(mutex_);
    if (kept_text_ + capacity > kKeptText) return;  // freed once the lock is let go
    kept_text_ += capacity;
    free_.push_back(std::move(document));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<simdjson::dom::document>> free_;
  std::size_t kept_text_ = 0;  // the capacities of free_'s documents
};

// Parses into a document of its own (from the pool); simdjson's error when it refuses the text.
simdjson::error_code parse_into(simdjson::dom::parser& parser, const std::string& text, ParsedJson& out) {
  auto document = DocumentPool::instance().take(text.size());
  if (!document) return simdjson::MEMALLOC;
  const auto parsed = parser.parse_into_document(*document, text);
  if (parsed.error() != simdjson::SUCCESS) return parsed.error();
  out.root = parsed.value_unsafe();
  out.document = std::move(document);
  return simdjson::SUCCESS;
}

}  // namespace

// Strings are skipped with memchr, so the scan costs a fraction of the parse it guards.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  const char* const data = text.data();
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size;) {
    const char c = data[i];
    if (c == '"') {
      std::size_t from = i + 1;
      for (;;) {
        const void* found = std::memchr(data + from, '"', size - from);
        if (found == nullptr) return deepest;  // unterminated: the parser says so
        const auto quote_at = static_cast<std::size_t>(static_cast<const char*>(found) - data);
        std::size_t backslashes = 0;
        while (quote_at - backslashes > from && data[quote_at - backslashes - 1] == '\\')
          ++backslashes;
        from = quote_at + 1;
        if (backslashes % 2 == 0) break;  // not escaped: the string ends here
      }
      i = from;
      continue;
    }
    if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return deepest;
}

std::string parse_error_text(std::string_view what) {
  constexpr std::string_view kLastRead = "last read: '";
  constexpr std::size_t kShown = 40;
  std::string text(what);
  if (const auto at = text.find(kLastRead); at != std::string::npos) {
    const std::size_t from = at + kLastRead.size();
    const std::size_t end = text.rfind('\'');
    const std::size_t length = end != std::string::npos && end >= from ? end - from : text.size() - from;
    if (length > kShown)
      text = text.substr(0, from + kShown) + "… (" + std::to_string(length) + " bytes)" +
             (end != std::string::npos && end >= from ? text.substr(end) : "");
  }
  text = common::utf8_replace_invalid(text);
  const std::size_t total = text.size();
  return common::utf8_cut(std::move(text), 400, "… (" + std::to_string(total) + " bytes)");
}

namespace {

// The longest run of number characters outside strings: simdjson refuses integers beyond 64 bits, and
// nlohmann, which reads them next, runs strtod over the whole token (17 s for 60 MB of digits).
std::size_t longest_number(std::string_view text) {
  std::size_t longest = 0, run = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    const bool number = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    run = number ? run + 1 : 0;
    longest = std::max(longest, run);
    in_string = c == '"';
  }
  return longest;
}

// Far beyond any number a double or a 64-bit integer can tell apart.
constexpr std::size_t kMaxNumberChars = 4096;

// The first key an object of a valid JSON text repeats, in the order of the text, or nullopt: a SAX reader
// that keeps the keys of each object it is in. Linear (nlohmann's parse with a callback is not: it scans a
// container again each time one of its objects closes).
class FirstRepeatedKey : public nlohmann::json_sax<NJson> {
 public:
  static std::optional<std::string> of(const std::string& text) {
    FirstRepeatedKey reader;
    NJson::sax_parse(text, &reader);
    return reader.found_;
  }
  bool key(string_t& key) override {
    if (!open_.empty() && !open_.back().insert(key).second) {
      found_ = key;
      return false;  // the first is enough
    }
    return true;
  }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<std::unordered_set<std::string>> open_;  // the keys of each object being read
  std::optional<std::string> found_;
};

}  // namespace

std::size_t kept_document_text() {
  return DocumentPool::instance().kept_text();
}

ParsedJson parse_json_dom(const std::string& text) {
  check_value_count(text);
  ParsedJson out;
  simdjson::error_code error = parse_into(thread_parser(), text, out);
  if (error != simdjson::SUCCESS) {
    if (nesting_depth(text) > kMaxJsonDepth) throw TooDeep();
    if (error == simdjson::DEPTH_ERROR) error = parse_into(thread_parser_one_deeper(), text, out);
  }
  std::optional<std::string> repeated;
  if (error == simdjson::SUCCESS) {
    const auto key = scan_body(out.root, text.size(), out.records);
    if (!key) return out;
    repeated = std::string(*key);  // copied: the next parse reuses the document it points into
  }
  if (const std::size_t digits = longest_number(text); digits > kMaxNumberChars)
    throw std::runtime_error("it holds a number of " + std::to_string(digits) + " characters (at most " +
                             std::to_string(kMaxNumberChars) + " are read)");
  // nlohmann's reading, written back as JSON both agree on (throws when the text is not JSON at all). When
  // simdjson refused the text (an integer beyond 64 bits), its repeated key is looked for in a second pass.
  const std::string normal = NJson::parse(text).dump();
  if (error != simdjson::SUCCESS) repeated = FirstRepeatedKey::of(text);
  if (parse_into(thread_parser_one_deeper(), normal, out) != simdjson::SUCCESS ||
      scan_body(out.root, normal.size(), out.records))
    throw std::runtime_error("simdjson refused nlohmann's own output, or found a key repeated in it");
  out.repeated_key = std::move(repeated);
  return out;
}

NJson parse_json(const std::string& text) {
  check_value_count(text);
  const auto parsed = thread_parser().parse(text);
  if (parsed.error() != simdjson::SUCCESS) {
    if (const std::size_t digits = longest_number(text); digits > kMaxNumberChars)
      throw std::runtime_error("it holds a number of " + std::to_string(digits) + " characters (at most " +
                               std::to_string(kMaxNumberChars) + " are read)");
    return NJson::parse(text);
  }
  return to_nlohmann(parsed.value_unsafe());
}

}  // namespace entimg::contract::detail

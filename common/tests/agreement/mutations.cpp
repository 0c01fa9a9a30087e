#include "mutations.hpp"

#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "entimg/common/prng.hpp"

namespace entimg::agreement {
namespace {

using common::Pcg32;
using Json = nlohmann::json;

// ---- text ------------------------------------------------------------------------------------------------

// Number tokens go into the tree as marked strings and are written back verbatim after dump(), so a
// document can hold 1E2, -0 or 18446744073709551616 exactly as written.
constexpr std::string_view kRawMark = "\x01raw:";

Json raw_number(std::string_view token) {
  return std::string(kRawMark) + std::string(token);
}

std::string render(const Json& doc, bool ascii) {
  std::string text = doc.dump(-1, ' ', ascii);
  const std::string open = "\"\\u0001raw:";
  for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at)) {
    const std::size_t end = text.find('"', at + open.size());
    const std::string token = text.substr(at + open.size(), end - at - open.size());
    text.replace(at, end + 1 - at, token);
    at += token.size();
  }
  return text;
}

template <typename T>
const T& pick(Pcg32& rng, const std::vector<T>& from) {
  return from[rng.below(static_cast<std::uint32_t>(from.size()))];
}

std::string hex_digits(Pcg32& rng, int n) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i)
    out += kHex[rng.below(16)];
  return out;
}

// Characters that trip validators: multi-byte UTF-8 of every length, combining marks, direction marks,
// line and paragraph separators, a byte-order mark, NUL and other escapes, the last code point.
const std::vector<std::string>& odd_characters() {
  static const std::vector<std::string> kOdd = {"\xc3\xa9",
                                                "\xd0\x96",
                                                "\xe4\xb8\xad",
                                                "\xf0\x9f\x98\x80",
                                                "e\xcc\x81",
                                                "\xe2\x80\x8f",
                                                "\xe2\x80\xa8",
                                                "\xe2\x80\xa9",
                                                "\xef\xbb\xbf",
                                                std::string(1, '\0'),
                                                "\n",
                                                "\t",
                                                "\"",
                                                "\\",
                                                "\xef\xbf\xbf",
                                                "\xf4\x8f\xbf\xbf",
                                                "\xc2\x85",
                                                "\xc2\xa0",
                                                "\xe2\x80\x8d",
                                                "\x7f",
                                                "\xef\xbc\xa9\xef\xbd\x84"};  // the last one: fullwidth "Id"
  return kOdd;
}

// Odd characters of one code point each, for strings whose length must come out exact.
const std::vector<std::string>& odd_code_points() {
  static const std::vector<std::string> kOdd = {
      "\xc3\xa9",     "\xd0\x96",           "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xe2\x80\xa8",
      "\xef\xbb\xbf", std::string(1, '\0'), "\n",           "\xef\xbf\xbf",     "\xf4\x8f\xbf\xbf"};
  return kOdd;
}

std::string some_text(Pcg32& rng, std::size_t most) {
  static constexpr std::string_view kPlain = "abcXYZ019 ._-~!$&'()*+,;=:@%?#[]";
  std::string out;
  const auto length = rng.below(static_cast<std::uint32_t>(most + 1));
  for (std::uint32_t i = 0; i < length; ++i) {
    out += rng.chance(20) ? pick(rng, odd_characters())
                          : std::string(1, kPlain[rng.below(static_cast<std::uint32_t>(kPlain.size()))]);
  }
  return out;
}

// The characters of UTF-8 text, each as its bytes, so edits never cut one in two.
std::vector<std::string> characters(std::string_view text) {
  std::vector<std::string> out;
  for (const char c : text) {
    if (out.empty() || (static_cast<unsigned char>(c) & 0xC0U) != 0x80U) out.emplace_back();
    out.back() += c;
  }
  return out;
}

// A stored file name: text without '/', then an extension.
std::string file_name(Pcg32& rng) {
  static const std::vector<std::string> kExtensions = {".jpg",  ".JPG",  ".png", ".jpeg", ".gif",
                                                       ".webp", ".tiff", ".svg", ".bmp",  ""};
  std::string base = some_text(rng, 12);
  std::erase(base, '/');
  if (base.empty()) base = "img";
  return base + pick(rng, kExtensions);
}

std::string percent_encoded(std::string_view text, bool upper) {
  static constexpr std::string_view kUpper = "0123456789ABCDEF";
  static constexpr std::string_view kLower = "0123456789abcdef";
  const std::string_view digits = upper ? kUpper : kLower;
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += digits[byte >> 4U];
      out += digits[byte & 15U];
    }
  }
  return out;
}

// ---- hosts and URLs --------------------------------------------------------------------------------------

// An IPv6 address: sometimes one of RFC 3986's forms, sometimes characters of the host pattern's
// bracket class at random (mostly not an address: the validators must still agree).
std::string ipv6_text(Pcg32& rng) {
  if (rng.chance(50)) {
    static constexpr std::string_view kClass = "0123456789abcdefABCDEF:.";
    std::string out;
    const auto length = 1 + rng.below(24);
    for (std::uint32_t i = 0; i < length; ++i)
      out += kClass[rng.below(static_cast<std::uint32_t>(kClass.size()))];
    return out;
  }
  const auto group = [&rng] { return hex_digits(rng, 1 + static_cast<int>(rng.below(4))); };
  const bool ipv4 = rng.chance(30);
  const std::string tail = ipv4 ? std::to_string(rng.below(300)) + "." + std::to_string(rng.below(256)) +
                                      "." + (rng.chance(20) ? "0" : "") + std::to_string(rng.below(256)) +
                                      "." + std::to_string(rng.below(256))
                                : group();
  const int units = static_cast<int>(rng.below(9));  // pieces besides the tail, some too many
  const bool gap = rng.chance(70);
  const int before = gap ? static_cast<int>(rng.below(static_cast<std::uint32_t>(units + 1))) : units;
  std::string out;
  for (int i = 0; i < before; ++i)
    out += group() + ":";
  if (gap) {
    if (before == 0) out += ":";
    out += ":";
  }
  for (int i = before; i < units; ++i)
    out += group() + ":";
  return rng.chance(10) ? out : out + tail;
}

std::string host(Pcg32& rng) {
  static const std::vector<std::string> kNames = {"example.org", "127.0.0.1",        "localhost",
                                                  "a-b.example", "EXAMPLE.ORG",      "999.1.1.1",
                                                  "x",           "media.cdn.example"};
  return rng.chance(25) ? "[" + ipv6_text(rng) + "]" : pick(rng, kNames);
}

struct Origin {
  std::string scheme = "http", host = "example.org", port, prefix;
  std::string text() const { return scheme + "://" + host + port + prefix; }
};

Origin origin(Pcg32& rng) {
  Origin o;
  o.scheme = rng.chance(50) ? "http" : "https";
  o.host = host(rng);
  if (rng.chance(30)) o.port = ":" + std::to_string(1 + rng.below(65535));
  static const std::vector<std::string> kPrefixes = {"", "", "/api", "/a%20b", "/x/y"};
  o.prefix = pick(rng, kPrefixes);
  return o;
}

// ---- records and pages -----------------------------------------------------------------------------------

struct RecordParts {
  Origin at;
  std::string uuid, name;
  bool upper_escapes = false;
  std::string file() const {
    return "filer_public/" + uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/" + uuid + "/" + name;
  }
  std::string image() const {
    const std::string path = "filer_public/" + uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/" + uuid + "/";
    return at.text() + "/media/" + path + percent_encoded(name, upper_escapes);
  }
};

Json valid_record(Pcg32& rng, RecordParts& parts) {
  parts.at = origin(rng);
  parts.uuid = hex_digits(rng, 8) + "-" + hex_digits(rng, 4) + "-4" + hex_digits(rng, 3) + "-a" +
               hex_digits(rng, 3) + "-" + hex_digits(rng, 12);
  parts.name = file_name(rng);
  parts.upper_escapes = rng.chance(50);
  static const std::vector<std::string> kMime = {"image/jpeg", "image/png", "", "image/svg+xml",
                                                 "image/x-ms-bmp"};
  return Json{{"id", rng.between(1, 2147483647)},
              {"image", parts.image()},
              {"file", parts.file()},
              {"original_filename", rng.chance(20) ? Json(nullptr) : Json(some_text(rng, 16))},
              {"file_size", rng.between(0, 1LL << 40)},
              {"author", some_text(rng, 8)},
              {"name", some_text(rng, 8)},
              {"default_caption", some_text(rng, 8)},
              {"alt", some_text(rng, 8)},
              {"description", some_text(rng, 20)},
              {"subject_location",
               rng.chance(70) ? std::string()
                              : std::to_string(rng.below(999)) + "," + std::to_string(rng.below(999))},
              {"mime_type", pick(rng, kMime)},
              {"order", rng.between(-32768, 32767)},
              {"key", rng.chance(40) ? Json(nullptr) : Json(rng.between(-2147483648LL, 2147483647LL))},
              {"entity", rng.between(1, 1000000)}};
}

// Number tokens at and past every bound of the schemas, in the spellings JSON allows.
const std::vector<std::string>& number_tokens() {
  static const std::vector<std::string> kTokens = {"0",
                                                   "1",
                                                   "-1",
                                                   "-0",
                                                   "2",
                                                   "32767",
                                                   "32768",
                                                   "-32768",
                                                   "-32769",
                                                   "2147483647",
                                                   "2147483648",
                                                   "-2147483648",
                                                   "-2147483649",
                                                   "9007199254740993",
                                                   "9223372036854775807",
                                                   "9223372036854775808",
                                                   "18446744073709551615",
                                                   "18446744073709551616",
                                                   "-9223372036854775808",
                                                   "-9223372036854775809",
                                                   "100000000000000000000000000000",
                                                   "1.0",
                                                   "-0.0",
                                                   "1.5",
                                                   "0.5",
                                                   "1e2",
                                                   "1E2",
                                                   "1e-7",
                                                   "-1.5e300",
                                                   "1.5e300",
                                                   "2147483647.0",
                                                   "32767.5",
                                                   "5e-324"};
  return kTokens;
}

Json other_type(Pcg32& rng) {
  static const std::vector<Json> kValues = {
      "x", "1", "", 7, -3, 1.5, true, false, nullptr, Json::array(), {1}, Json::object(), {{"a", 1}}};
  return pick(rng, kValues);
}

std::string extra_key(Pcg32& rng) {
  static const std::vector<std::string> kKeys = {"url",
                                                 "Id",
                                                 "ID",
                                                 "id ",
                                                 " id",
                                                 std::string("id\0", 3),
                                                 "\xef\xbd\x89\xef\xbd\x84",
                                                 "",
                                                 "i\xcc\x87"
                                                 "d",
                                                 "thumbnail",
                                                 "file_size2",
                                                 "$ref",
                                                 "__proto__",
                                                 "constructor",
                                                 "count",
                                                 "results"};
  return rng.chance(80) ? pick(rng, kKeys) : some_text(rng, 6);
}

// One character inserted, dropped, replaced or case-flipped, or the text cut or doubled.
std::string edited(Pcg32& rng, std::string_view text) {
  static const std::vector<std::string> kInserts = {"/", "%", "%2", "%zz", " ",  "G",  "A",  "#",   "?",
                                                    "[", "]", "@",  ":",   "\\", "//", "..", "%2F", "%C3%A9"};
  std::vector<std::string> chars = characters(text);
  const auto at =
      static_cast<std::ptrdiff_t>(chars.empty() ? 0 : rng.below(static_cast<std::uint32_t>(chars.size())));
  const auto whole = [&chars](std::ptrdiff_t from, std::ptrdiff_t to) {
    std::string out;
    for (auto i = from; i < to; ++i)
      out += chars[static_cast<std::size_t>(i)];
    return out;
  };
  const auto size = static_cast<std::ptrdiff_t>(chars.size());
  switch (rng.below(7)) {
    case 0:
      chars.insert(chars.begin() + at, rng.chance(70) ? pick(rng, kInserts) : pick(rng, odd_characters()));
      return whole(0, size + 1);
    case 1:
      if (size > 0) chars.erase(chars.begin() + at);
      return whole(0, static_cast<std::ptrdiff_t>(chars.size()));
    case 2:
      if (size > 0) chars[static_cast<std::size_t>(at)] = pick(rng, kInserts);
      return whole(0, size);
    case 3:
      if (size > 0 && chars[static_cast<std::size_t>(at)].size() == 1) {
        char& c = chars[static_cast<std::size_t>(at)][0];
        if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 32);
      }
      return whole(0, size);
    case 4:
      return whole(0, at);
    case 5:
      return whole(0, size) + whole(0, size);
    default:
      return whole(at, size);
  }
}

// A string of `count` characters, some of them several bytes long.
std::string of_length(Pcg32& rng, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i)
    out += rng.chance(10) ? pick(rng, odd_code_points()) : std::string(1, 'a');
  return out;
}

bool is_raw(const Json& value) {
  return value.is_string() && value.get_ref<const std::string&>().starts_with(kRawMark);
}

using Edit = std::function<std::string(Pcg32&, Json&, RecordParts&)>;

// The record's own names, as a valid record has them.
const std::vector<std::string>& record_fields() {
  static const std::vector<std::string> kFields = [] {
    Pcg32 rng(0, 0);
    RecordParts parts;
    const Json record = valid_record(rng, parts);
    std::vector<std::string> names;
    for (const auto& [name, value] : record.items())
      names.push_back(name);
    return names;
  }();
  return kFields;
}

const std::vector<std::string>& envelope_fields() {
  static const std::vector<std::string> kFields = {"count", "next", "previous", "results"};
  return kFields;
}

// Edits any object takes: a member of another type, a member missing, a member more.
Edit of_another_type(const std::vector<std::string>& fields) {
  return [&fields](Pcg32& rng, Json& doc, RecordParts&) {
    const std::string& f = pick(rng, fields);
    doc[f] = other_type(rng);
    return f + " of another type (" + doc[f].dump() + ")";
  };
}

Edit missing(const std::vector<std::string>& fields) {
  return [&fields](Pcg32& rng, Json& doc, RecordParts&) {
    const std::string& f = pick(rng, fields);
    doc.erase(f);
    return f + " missing";
  };
}

Edit one_more() {
  return [](Pcg32& rng, Json& doc, RecordParts&) {
    const std::string key = extra_key(rng);
    doc[key] = other_type(rng);
    return "extra key " + Json(key).dump();
  };
}

std::vector<Edit> record_edits() {
  return {
      of_another_type(record_fields()),
      missing(record_fields()),
      one_more(),
      [](Pcg32& rng, Json& r, RecordParts&) {
        const std::string& f = pick(rng, record_fields());
        r[f] = nullptr;
        return f + " null";
      },
      [](Pcg32& rng, Json& r, RecordParts&) {
        static const std::vector<std::string> kNumeric = {"id", "file_size", "order", "key", "entity"};
        const std::string& f = rng.chance(85) ? pick(rng, kNumeric) : pick(rng, record_fields());
        const std::string& token = pick(rng, number_tokens());
        r[f] = raw_number(token);
        return f + " " + token;
      },
      [](Pcg32& rng, Json& r, RecordParts&) {
        static const std::vector<std::string> kPatterned = {"image", "file", "mime_type"};
        const std::string& f = pick(rng, kPatterned);
        if (!r.contains(f) || !r[f].is_string() || is_raw(r[f]))
          return std::string("nothing (") + f + " not a string)";
        r[f] = edited(rng, r[f].get<std::string>());
        return f + " edited to " + r[f].dump();
      },
      [](Pcg32& rng, Json& r, RecordParts& parts) {
        parts.at.host = rng.chance(70) ? "[" + ipv6_text(rng) + "]" : edited(rng, parts.at.host);
        if (rng.chance(20)) parts.at.port = rng.chance(50) ? ":" : ":" + std::to_string(rng.below(1000000));
        if (rng.chance(10)) parts.at.host = "user:pw@" + parts.at.host;
        r["image"] = parts.image();
        return "image host " + parts.at.host + parts.at.port;
      },
      [](Pcg32& rng, Json& r, RecordParts&) {
        static const std::vector<std::string> kStrings = {
            "author", "name", "alt", "file", "image", "original_filename", "mime_type"};
        const std::string& f = pick(rng, kStrings);
        r[f] = some_text(rng, 12);
        return f + " odd text " + r[f].dump();
      },
      [](Pcg32& rng, Json& r, RecordParts& parts) {
        // At the maxLength edges: file 1024 code points, image 2048 characters, mime_type 255.
        const int d = static_cast<int>(rng.below(3)) - 1;
        switch (rng.below(3)) {
          case 0: {
            const std::size_t fixed = parts.file().size() - parts.name.size();
            parts.name = of_length(rng, static_cast<std::size_t>(1024 - static_cast<int>(fixed) + d));
            r["file"] = parts.file();
            return "file of about 1024 characters (" + std::to_string(d) + ")";
          }
          case 1: {
            parts.name = "n";
            const std::size_t fixed = parts.image().size() - 1;
            parts.name = std::string(static_cast<std::size_t>(2048 - static_cast<int>(fixed) + d), 'n');
            r["image"] = parts.image();
            return "image of 2048 characters (" + std::to_string(d) + ")";
          }
          default:
            r["mime_type"] = "image/" + std::string(static_cast<std::size_t>(249 + d), 'a');
            return "mime_type of 255 characters (" + std::to_string(d) + ")";
        }
      },
  };
}

Json link(Pcg32& rng, const Origin& at, std::uint64_t offset) {
  std::string url = at.text() + "/edw/api/entities-images/?limit=12";
  if (offset > 0) url += "&offset=" + std::to_string(offset);
  if (rng.chance(10)) url += "&entity=" + percent_encoded(some_text(rng, 4), rng.chance(50));
  return url;
}

std::vector<Edit> page_edits() {
  return {
      of_another_type(envelope_fields()),
      missing(envelope_fields()),
      one_more(),
      [](Pcg32& rng, Json& p, RecordParts&) {
        const std::string& token = pick(rng, number_tokens());
        p["count"] = raw_number(token);
        return "count " + token;
      },
      [](Pcg32& rng, Json& p, RecordParts&) {
        const char* f = rng.chance(50) ? "next" : "previous";
        if (!p.contains(f) || !p[f].is_string()) p[f] = link(rng, origin(rng), 12);
        if (rng.chance(50))
          p[f] = edited(rng, p[f].get<std::string>());
        else if (rng.chance(50))
          p[f] = "http://[" + ipv6_text(rng) + "]/edw/api/entities-images/";
        else
          p[f] = link(rng, origin(rng), 24).get<std::string>() + "#" + some_text(rng, 3);
        return std::string(f) + " " + p[f].dump();
      },
      [](Pcg32& rng, Json& p, RecordParts& parts) {
        if (!p.contains("results") || !p["results"].is_array() || p["results"].empty())
          return std::string("nothing (no records)");
        Json& record = p["results"][rng.below(static_cast<std::uint32_t>(p["results"].size()))];
        if (!record.is_object()) return std::string("nothing (an item that is no record)");
        const std::vector<Edit> edits = record_edits();
        return "a record's " + pick(rng, edits)(rng, record, parts);
      },
  };
}

}  // namespace

Mutated mutated_document(std::uint64_t seed, std::uint64_t index) {
  Pcg32 rng(seed, index);
  Mutated out;
  out.page = rng.chance(25);
  RecordParts parts;
  Json doc;
  if (out.page) {
    const Origin at = origin(rng);
    Json results = Json::array();
    const auto records = rng.below(4);
    for (std::uint32_t i = 0; i < records; ++i)
      results.push_back(valid_record(rng, parts));
    const std::uint64_t offset = 12 * rng.below(100);
    doc = Json{{"count", raw_number(std::to_string(offset + records + rng.below(50)))},
               {"next", rng.chance(30) ? Json(nullptr) : link(rng, at, offset + 12)},
               {"previous", offset == 0 ? Json(nullptr) : link(rng, at, offset - 12)},
               {"results", std::move(results)}};
  } else {
    doc = valid_record(rng, parts);
  }
  const std::vector<Edit> edits = out.page ? page_edits() : record_edits();
  const auto how_many = rng.chance(20) ? 0U : 1U + rng.below(3);
  for (std::uint32_t i = 0; i < how_many; ++i) {
    if (!out.what.empty()) out.what += "; ";
    out.what += pick(rng, edits)(rng, doc, parts);
  }
  out.text = render(doc, rng.chance(50));
  return out;
}

}  // namespace entimg::agreement

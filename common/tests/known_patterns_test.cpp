// The hand-written matchers of known_patterns.cpp against PCRE2 (the engine they stand in for, itself checked
// against ajv by common.schema_agreement) on seeded random strings: valid values of each pattern, then edited
// where such values break (slashes, percent escapes, shard folders, case, ports, brackets, odd Unicode).
#include "known_patterns.hpp"  // common/src

#include <fstream>
#include <string>
#include <vector>

#include <simdjson.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ecma_regex.hpp"
#include "entimg/common/prng.hpp"
#include "entimg/common/schema.hpp"
#include "uri_format.hpp"

namespace {

using entimg::common::Pcg32;
using entimg::common::detail::EcmaRegex;
using entimg::common::detail::is_uri;
using entimg::common::detail::known_pattern;
using entimg::common::detail::known_pattern_uri_proof;

std::string pick(Pcg32& rng, const std::vector<std::string>& from) {
  return from[rng.below(static_cast<std::uint32_t>(from.size()))];
}

std::string hex(Pcg32& rng, std::size_t n, std::string_view digits = "0123456789abcdef") {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += digits[rng.below(static_cast<std::uint32_t>(digits.size()))];
  return out;
}

// django-filer's folders: "ab/cd/abcdxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx/".
// Now and then the folders are other lowercase hex digits than the uuid's first four (file_layout's business,
// which the patterns leave alone: both must accept them).
std::string shards(Pcg32& rng) {
  const std::string uuid =
      hex(rng, 8) + "-" + hex(rng, 4) + "-" + hex(rng, 4) + "-" + hex(rng, 4) + "-" + hex(rng, 12);
  std::string folders = uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/";
  if (rng.chance(10)) folders[rng.chance(50) ? rng.below(2) : 3 + rng.below(2)] = hex(rng, 1)[0];
  return folders + uuid + "/";
}

// Mostly one of `usual`, now and then one of `odd`: each part of a value breaks it only sometimes, so both
// verdicts stay common.
std::string either(Pcg32& rng, const std::vector<std::string>& usual, const std::vector<std::string>& odd) {
  return rng.chance(88) ? pick(rng, usual) : pick(rng, odd);
}

std::string name(Pcg32& rng) {
  static const std::vector<std::string> kParts = {"photo", "IMG_0001",  "a%20b", "x",    "~t", "(1)",
                                                  "a=b",   "%E2%82%AC", "q@r",   "v1.2", "_"};
  static const std::vector<std::string> kOdd = {"", "%zz", "%4", "a b", "\xc3\xa9", "a/b", "?x", "#"};
  std::string out = either(rng, kParts, kOdd);
  while (rng.chance(40))
    out += either(rng, kParts, kOdd);
  return out + pick(rng, {".jpg", ".PNG", "", ".tar.gz", "."});
}

std::string image(Pcg32& rng) {
  return either(rng, {"http://", "https://"}, {"HTTP://", "ftp://", "http:/", "https:", ""}) +
         either(rng, {"example.com", "127.0.0.1", "[::1]", "[2001:db8::7]", "a-b.c", "host"},
                // the last two match the pattern's loose IP literal but are no IPv6 address
                {"[v1.x]", "[]", "ex_ample.com", "", "[::1", "u@h", "h]", "[1::2::3]", "[ab.cd]"}) +
         either(rng, {"", ":8000", ":1", ":65535"}, {":123456", ":", ":x", "::80"}) +
         // a prefix of at most 8 segments (the pattern's bounded loop); 9 is one too many
         either(rng,
                {"", "/static", "/a/b", "//", "/%41", "/:@!$&'()*+,;=", "/media/filer_public",
                 "/1/2/3/4/5/6/7/8"},
                {"/a b", "/\xc3\xbc", "/x%2", "x", "/%g0", "/1/2/3/4/5/6/7/8/9"}) +
         // a whole earlier media part: the match is decided by the last one
         (rng.chance(15) ? "/media/filer_public/" + shards(rng) + "x" : "") + "/media/filer_public/" +
         shards(rng) + name(rng);
}

std::string file(Pcg32& rng) {
  return either(rng, {"filer_public/"}, {"/filer_public/", "filer_private/", "", "Filer_public/"}) +
         shards(rng) + name(rng);
}

std::string mime(Pcg32& rng) {
  return rng.chance(10) ? ""
                        : either(rng, {"image/"}, {"Image/", "video/", "image", ""}) +
                              either(rng, {"jpeg", "png", "svg+xml", "x-ms-bmp", "vnd.a.b"},
                                     {"", "JPEG", "a b", "a/b", "\xc3\xa9", "webp\n"});
}

// A few edits where the patterns draw their lines.
std::string edited(Pcg32& rng, std::string text) {
  static const std::vector<std::string> kInserts = {"/",
                                                    "%",
                                                    "%4",
                                                    "%41",
                                                    "A",
                                                    "F",
                                                    "g",
                                                    "0",
                                                    ":",
                                                    "[",
                                                    "]",
                                                    ".",
                                                    "-",
                                                    "@",
                                                    " ",
                                                    "\n",
                                                    "\xc3\xa9",
                                                    "\xe2\x80\xa8",
                                                    "?",
                                                    "#",
                                                    std::string(1, '\0'),
                                                    "media/filer_public/"};
  const std::uint32_t edits = rng.below(4);
  for (std::uint32_t e = 0; e < edits; ++e) {
    const std::size_t at = text.empty() ? 0 : rng.below(static_cast<std::uint32_t>(text.size() + 1));
    switch (rng.below(5)) {
      case 0:
        text.insert(at, pick(rng, kInserts));
        break;
      case 1:
        if (at < text.size()) text.erase(at, 1 + rng.below(3));
        break;
      case 2:
        if (at < text.size()) text[at] = pick(rng, kInserts)[0];
        break;
      case 3:
        if (at < text.size()) text[at] = static_cast<char>(text[at] ^ 0x20);  // flips case (and more)
        break;
      default:
        text.resize(std::min(text.size(), at));
    }
  }
  return text;
}

std::string schema_pattern(const char* property) {
  std::ifstream in(entimg::common::schema_dir() / "image-record.schema.json");
  return nlohmann::json::parse(in).at("properties").at(property).at("pattern").get<std::string>();
}

bool valid_utf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

}  // namespace

// A guard for speed, not for verdicts: a pattern edited in the schema is still judged right (by PCRE2), but
// this fails until its matcher is written again or dropped.
TEST_CASE("every pattern of the record schema has its hand-written matcher", "[known_patterns]") {
  for (const char* property : {"image", "file", "mime_type"}) {
    INFO(property);
    CHECK(known_pattern(schema_pattern(property)) != nullptr);
  }
  CHECK(known_pattern("^a$") == nullptr);
  // One character off is another pattern: PCRE2 runs it.
  CHECK(known_pattern(schema_pattern("mime_type") + " ") == nullptr);
}

TEST_CASE("the hand-written matchers answer as PCRE2 does on seeded random strings", "[known_patterns]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  const char* property = GENERATE("image", "file", "mime_type");
  INFO("seed " << seed << ", " << property
               << " (common_tests \"the hand-written matchers answer as PCRE2 does*\")");
  const std::string pattern = schema_pattern(property);
  const auto matcher = known_pattern(pattern);
  REQUIRE(matcher != nullptr);
  const auto pcre2 = EcmaRegex::compile(pattern, nullptr);
  REQUIRE(pcre2.has_value());
  Pcg32 rng(seed, 77);
  const std::string_view which = property;
  std::size_t matched = 0, compared = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string valid = which == "image" ? image(rng) : which == "file" ? file(rng) : mime(rng);
    const std::string text = rng.chance(30) ? valid : edited(rng, valid);
    if (!valid_utf8(text)) continue;  // the schema program gives PCRE2 those, never a matcher
    const bool expected = pcre2->search(text) == EcmaRegex::Outcome::match;
    ++compared;
    matched += expected ? 1 : 0;
    if (matcher(text) != expected)
      FAIL("string " << i << ": " << nlohmann::json(text).dump() << " PCRE2 says "
                     << (expected ? "match" : "no match"));
  }
  // Both verdicts are common, so a matcher that always said one of them would fail above.
  CHECK(matched > compared / 10);
  CHECK(matched < compared * 9 / 10);
}

// The schema program skips the image URL's format check when the image pattern's match proves it: every
// match the proof accepts must be a URI, and matches that are no URI (a loose IP literal) must exist and be
// refused by the proof, or the test would not tell a proof that accepts everything.
TEST_CASE("a match of the image pattern the URI proof accepts is a URI", "[known_patterns]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  INFO("seed " << seed << " (common_tests \"a match of the image pattern the URI proof accepts*\")");
  const std::string pattern = schema_pattern("image");
  const auto matcher = known_pattern(pattern);
  const auto proof = known_pattern_uri_proof(pattern);
  REQUIRE(matcher != nullptr);
  REQUIRE(proof != nullptr);
  CHECK(known_pattern_uri_proof(schema_pattern("file")) == nullptr);
  Pcg32 rng(seed, 78);
  std::size_t proved = 0, refused_not_uri = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string valid = image(rng);
    const std::string text = rng.chance(30) ? valid : edited(rng, valid);
    if (!valid_utf8(text) || !matcher(text)) continue;
    if (proof(text)) {
      ++proved;
      if (!is_uri(text))
        FAIL("string " << i << ": " << nlohmann::json(text).dump() << " is proved but no URI");
    } else if (!is_uri(text)) {
      ++refused_not_uri;
    }
  }
  CHECK(proved > 1000);
  CHECK(refused_not_uri > 0);
}

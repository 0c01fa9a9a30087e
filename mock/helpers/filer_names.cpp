#include "filer_names.hpp"
#include "utf8.hpp"

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

namespace entimg::mock::detail {
namespace {

bool is_ascii_alnum(char32_t c) {
  return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= U'0' && c <= U'9');
}

// unidecode's transliteration of the Russian and Ukrainian alphabets (upper case; lower case is
// the same letters lower-cased), and of the Latin-1 letters. Other scripts become "" here, where
// unidecode would transliterate them too: a known, documented simplification.
constexpr std::array<const char*, 32> kCyrillicUpper = {
    "A", "B", "V", "G", "D", "E",  "Zh", "Z",  "I",  "I",    "K",  "L", "M", "N", "O",  "P",
    "R", "S", "T", "U", "F", "Kh", "Ts", "Ch", "Sh", "Shch", "\"", "Y", "'", "E", "Iu", "Ia"};
constexpr std::array<const char*, 64> kLatin1 = {
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I",  "I",
    "D", "N", "O", "O", "O", "O", "O",  "x", "O", "U", "U", "U", "U", "Y", "Th", "ss",
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i",  "i",
    "d", "n", "o", "o", "o", "o", "o",  "/", "o", "u", "u", "u", "u", "y", "th", "y"};

std::string transliterate(char32_t c) {
  if (c < 0x80) return std::string(1, static_cast<char>(c));
  if (c >= 0xC0 && c <= 0xFF) return kLatin1[c - 0xC0];
  std::string out;
  if (c >= 0x410 && c <= 0x42F) out = kCyrillicUpper[c - 0x410];
  if (c >= 0x430 && c <= 0x44F) out = kCyrillicUpper[c - 0x430];
  if (c == 0x401 || c == 0x451) out = "Io";
  if (c == 0x404 || c == 0x454) out = "Ie";
  if (c == 0x406 || c == 0x456) out = "I";
  if (c == 0x407 || c == 0x457) out = "Yi";
  if (c == 0x490 || c == 0x491) out = "G";
  const bool lower = (c >= 0x430 && c <= 0x45F) || c == 0x491;
  if (lower) common::ascii_lower_in_place(out);
  return out;
}

// Django's get_valid_filename: strip, ' ' -> '_', drop everything but [-\w.] (Unicode \w; every
// non-ASCII code point other than white space counts as a word character here).
std::u32string django_valid_filename(std::string_view s) {
  std::u32string cps;
  for (std::size_t i = 0; i < s.size();)
    cps.push_back(next_code_point(s, i));
  std::size_t b = 0, e = cps.size();
  while (b < e && is_python_space(cps[b]))
    ++b;
  while (e > b && is_python_space(cps[e - 1]))
    --e;
  std::u32string out;
  for (std::size_t i = b; i < e; ++i) {
    char32_t c = cps[i] == U' ' ? U'_' : cps[i];
    if (is_ascii_alnum(c) || c == U'_' || c == U'-' || c == U'.' || (c >= 0x80 && !is_python_space(c)))
      out.push_back(c);
  }
  return out;
}

// Django's slugify after unidecode: ASCII, lower case, [-\s]+ -> '-', stripped of '-' and '_'.
std::string slugify(std::u32string_view text) {
  std::string ascii;
  for (const char32_t c : text)
    ascii += transliterate(c);
  std::string kept;
  for (char c : ascii) {
    c = common::ascii_lower(c);
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (word || c == '-' || c == ' ' || (c >= '\t' && c <= '\r')) kept.push_back(c);
  }
  std::string out;
  for (std::size_t i = 0; i < kept.size();) {
    const char c = kept[i];
    if (c == '-' || c == ' ' || (c >= '\t' && c <= '\r')) {
      while (i < kept.size() && (kept[i] == '-' || kept[i] == ' ' || (kept[i] >= '\t' && kept[i] <= '\r')))
        ++i;
      out.push_back('-');
    } else {
      out.push_back(c);
      ++i;
    }
  }
  const std::size_t first = out.find_first_not_of("-_");
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of("-_") - first + 1);
}

// os.path.splitext: the last dot that is not part of the leading dots.
std::pair<std::u32string_view, std::u32string_view> split_extension(std::u32string_view name) {
  const std::size_t dot = name.rfind(U'.');
  if (dot == std::u32string_view::npos) return {name, {}};
  std::size_t lead = 0;
  while (lead < name.size() && name[lead] == U'.')
    ++lead;
  if (dot < lead) return {name, {}};
  return {name.substr(0, dot), name.substr(dot)};
}

}  // namespace

std::string filer_stored_name(std::string_view original) {
  const std::u32string valid = django_valid_filename(original);
  const auto [stem, ext] = split_extension(valid);
  std::string name = slugify(stem);
  const std::string ext_slug = slugify(ext);
  if (!ext_slug.empty()) name += "." + ext_slug;
  return name;
}

std::string_view guess_mime_type(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  // Python strips compression suffixes first: "x.png.gz" is image/png (encoding gzip).
  static constexpr std::array<std::string_view, 5> kEncodings = {".gz", ".Z", ".bz2", ".xz", ".br"};
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const auto enc : kEncodings)
      if (base.size() > enc.size() && base.ends_with(enc)) {
        base.remove_suffix(enc.size());
        stripped = true;
      }
  }
  const std::size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  const std::string_view ext = base.substr(dot + 1);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kTypes = {
      {{"jpg", "image/jpeg"},
       {"jpeg", "image/jpeg"},
       {"jpe", "image/jpeg"},
       {"jfif", "image/jpeg"},
       {"png", "image/png"},
       {"apng", "image/apng"},
       {"gif", "image/gif"},
       {"webp", "image/webp"},
       {"bmp", "image/bmp"},
       {"svg", "image/svg+xml"},
       {"svgz", "image/svg+xml"},
       {"tif", "image/tiff"},
       {"tiff", "image/tiff"},
       {"ico", "image/vnd.microsoft.icon"},
       {"avif", "image/avif"},
       {"heic", "image/heic"}}};
  for (const auto& [e, type] : kTypes)
    if (common::iequals_ascii(e, ext)) return type;
  return "";
}

namespace {

// The bytes filepath_to_uri keeps as they are: quote(path, safe="/~!*()'").
constexpr common::PercentSafe kUriKeeps = common::quote_safe("/~!*()'");

}  // namespace

char* write_filepath_uri(char* at, std::string_view path) {
  // Stored paths are almost always kept whole: one pass without a branch a byte, then one copy.
  bool plain = true;
  for (const char ch : path)
    plain &= kUriKeeps[static_cast<unsigned char>(ch)];
  if (plain) {
    if (!path.empty()) std::memcpy(at, path.data(), path.size());  // an empty view's data may be null
    return at + path.size();
  }
  // filepath_to_uri quotes str(path).replace("\\", "/"): each run between backslashes, then a '/'.
  for (std::size_t slash = path.find('\\');; slash = path.find('\\')) {
    at = common::write_quote(at, path.substr(0, slash), kUriKeeps);
    if (slash == std::string_view::npos) return at;
    *at++ = '/';
    path.remove_prefix(slash + 1);
  }
}

void append_filepath_uri(std::string& out, std::string_view path) {
  const std::size_t at = out.size();
  out.resize(at + filepath_uri_bound(path.size()));
  out.resize(static_cast<std::size_t>(write_filepath_uri(out.data() + at, path) - out.data()));
}

}  // namespace entimg::mock::detail

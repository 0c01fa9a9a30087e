// The default collection: every record is a pure function of (seed, position), so memory does not
// grow with the size and any page is computed in constant time.
//
// Layout: position p has id 3p + 1 + j (j in 0..2 from the record's own stream): ascending, with
// gaps. Entities: p belongs to the entity of residue p mod E (E ≈ records/4, so about four images
// each, spread over the collection); residues map to entity ids through an affine permutation, so
// entity ids are not sorted by image id and a filter by entity is an arithmetic progression.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "entimg/common/prng.hpp"
#include "entimg/mock/dataset.hpp"
#include "filer_names.hpp"

namespace entimg::mock {
namespace {

using common::mix64;
using common::Pcg32;

constexpr std::int64_t kFirstEntityId = 101;

constexpr std::array<std::string_view, 7> kCyrillicWords = {
    "Фото", "Снимок экрана", "Изображение", "Портрет", "Пейзаж", "Обложка", "Товар"};
constexpr std::array<std::string_view, 6> kLatinWords = {"photo", "banner",     "product",
                                                         "cover", "screenshot", "interior"};
constexpr std::array<std::string_view, 5> kSections = {"catalog", "news", "gallery", "projects", "about"};
constexpr std::array<std::string_view, 6> kAuthors = {"Иван Петров",  "Anna Smith",      "Мария Иванова",
                                                      "Studio North", "Алексей Смирнов", "J. O'Neil"};
constexpr std::array<std::string_view, 5> kCaptions = {"Вид спереди", "Front view", "Общий план", "Detail",
                                                       "Фото товара"};
constexpr std::array<std::string_view, 4> kDescriptions = {
    "Фотография товара, вид спереди.", "Product photo on a white background.",
    "Снимок сделан в студии; цвета откалиброваны.", "Archive scan, \"as is\"."};

template <typename Array>
std::string_view pick(Pcg32& rng, const Array& items) {
  return items[rng.below(static_cast<std::uint32_t>(items.size()))];
}

// The text of one record, written into a buffer of its own without allocating: the views of the record
// point into it until the next record is written. Its bounds, with ids below 2^63 (19 digits): `file` at
// most 13 + 6 + 36 + 1 + 23 bytes, the original name 53, the stored name 23, the subject location 9.
class RecordText {
 public:
  void clear() { size_ = 0; }
  std::size_t mark() const { return size_; }
  std::string_view since(std::size_t mark) const { return {buffer_.data() + mark, size_ - mark}; }
  std::string_view between(std::size_t from, std::size_t to) const {
    return {buffer_.data() + from, to - from};
  }

  RecordText& add(std::string_view text) {
    if (!text.empty()) std::memcpy(room(text.size()), text.data(), text.size());
    size_ += text.size();
    return *this;
  }
  RecordText& add(std::int64_t n) {
    char* at = room(20);
    size_ += static_cast<std::size_t>(std::to_chars(at, at + 20, n).ptr - at);
    return *this;
  }
  /// n in 0..9999 with leading zeros, as "%04lld" writes it.
  RecordText& add_4_digits(std::int64_t n) {
    char* at = room(4);
    for (int k = 3; k >= 0; --k, n /= 10)
      at[k] = static_cast<char>('0' + n % 10);
    size_ += 4;
    return *this;
  }

 private:
  char* room(std::size_t n) {
    if (n > buffer_.size() - size_) throw std::length_error("a generated record's text outgrew its buffer");
    return buffer_.data() + size_;
  }
  std::array<char, 512> buffer_;
  std::size_t size_ = 0;
};

// A uuid4 from two draws, as text ("xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx").
std::array<char, 36> uuid4(Pcg32& rng) {
  std::uint64_t hi = rng.next_u64(), lo = rng.next_u64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  static constexpr std::array<std::array<char, 2>, 256> kHexPairs = [] {
    constexpr char kHex[] = "0123456789abcdef";
    std::array<std::array<char, 2>, 256> pairs{};
    for (std::size_t b = 0; b < 256; ++b)
      pairs[b] = {kHex[b >> 4], kHex[b & 15]};
    return pairs;
  }();
  static constexpr std::array<std::size_t, 16> kAt = {0,  2,  4,  6,  9,  11, 14, 16,
                                                      19, 21, 24, 26, 28, 30, 32, 34};
  std::array<char, 36> out;
  out[8] = out[13] = out[18] = out[23] = '-';
  for (std::size_t byte = 0; byte < 16; ++byte) {
    const std::uint64_t word = byte < 8 ? hi : lo;
    const auto value = static_cast<std::size_t>((word >> (56 - 8 * (byte % 8))) & 0xFF);
    out[kAt[byte]] = kHexPairs[value][0];
    out[kAt[byte] + 1] = kHexPairs[value][1];
  }
  return out;
}

// The slug filer gives each Cyrillic word, computed once by the general rule.
const std::array<std::string, kCyrillicWords.size()>& cyrillic_slugs() {
  static const auto slugs = [] {
    std::array<std::string, kCyrillicWords.size()> out;
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = detail::filer_stored_name(kCyrillicWords[i]);
    return out;
  }();
  return slugs;
}

struct Names {
  std::string_view original;   // as uploaded
  std::string_view stored;     // the name filer stores it under: filer_stored_name(basename(original))
  std::string_view title;      // the path-like `name`, when the importer set one
  std::string_view mime_type;  // guess_mime_type(stored)
};

// guess_mime_type of a stored name, found once for each extension the generator gives one.
std::string_view mime_type_of(std::string_view extension) {
  static const std::array<std::string_view, 3> kTypes = {
      detail::guess_mime_type("a.png"), detail::guess_mime_type("a.jpg"), detail::guess_mime_type("a.jpeg")};
  return kTypes[extension == "png" ? 0 : extension == "jpg" ? 1 : 2];
}

// Builds the stored name alongside the original rather than slugifying per record (this runs on
// every request); dataset_test checks stored == filer_stored_name(basename(original)) throughout. The draws
// come in the order the first version made them (it printed with snprintf, whose arguments GCC evaluated
// last to first), so a seed gives the same collection as it always did.
Names make_names(Pcg32& rng, std::int64_t id, RecordText& text) {
  const std::uint32_t kind = rng.below(100);
  const std::int64_t n = rng.between(1, 9999);
  const std::string_view ext = rng.chance(50) ? "png" : rng.chance(75) ? "jpg" : "jpeg";
  Names names;
  const std::size_t start = text.mark();
  if (kind < 30) {
    const bool img = rng.chance(50);
    names.original = text.add(img ? "IMG_" : "DSC_").add_4_digits(n).add(img ? ".JPG" : ".jpg").since(start);
    const std::size_t stored = text.mark();
    names.stored = text.add(img ? "img_" : "dsc_").add_4_digits(n).add(".jpg").since(stored);
  } else if (kind < 50) {
    names.original = names.stored =
        text.add(pick(rng, kLatinWords)).add("-").add(n).add(".").add(ext).since(start);
  } else if (kind < 72) {
    const std::uint32_t word = rng.below(static_cast<std::uint32_t>(kCyrillicWords.size()));
    names.original = text.add(kCyrillicWords[word]).add(" ").add(n).add(".").add(ext).since(start);
    const std::size_t stored = text.mark();
    names.stored = text.add(cyrillic_slugs()[word]).add("_").add(n).add(".").add(ext).since(stored);
  } else if (kind < 95) {
    const std::string_view word = pick(rng, kLatinWords);  // drawn before the section (see above)
    const std::string_view section = pick(rng, kSections);
    text.add(section).add("/").add(word).add("-").add(id).add("/");
    const std::size_t leaf = text.mark();
    if (rng.chance(50))
      text.add("main");
    else
      text.add("detail-").add(n % 10);
    const std::size_t title_end = text.mark();
    names.original = text.add(".").add(ext).since(start);
    names.stored = text.since(leaf);
    if (rng.chance(70)) names.title = text.between(start, title_end);
  } else {
    names.original = text.add("My Photo (").add(n).add(").JPEG").since(start);
    const std::size_t stored = text.mark();
    names.stored = text.add("my_photo_").add(n).add(".jpeg").since(stored);
  }
  names.mime_type = kind < 30 ? mime_type_of("jpg") : kind < 95 ? mime_type_of(ext) : mime_type_of("jpeg");
  return names;
}

class GeneratedDataset final : public Dataset {
 public:
  GeneratedDataset(std::uint64_t records, std::uint64_t seed) : records_(records), seed_(seed) {
    entities_ = std::max<std::uint64_t>(1, (records + 3) / 4);
    Pcg32 rng(mix64(seed), 0xE17);
    multiplier_ = entities_ == 1 ? 1 : (rng.next_u64() % entities_) | 1;
    while (std::gcd(multiplier_, entities_) != 1)
      multiplier_ = (multiplier_ + 2) % entities_;
    shift_ = rng.next_u64() % entities_;
    inverse_ = modular_inverse(multiplier_, entities_);
  }

  std::uint64_t count(const Selection& selection) const override {
    if (selection.matches_nothing) return 0;
    if (!selection.entity) return records_;
    const auto residue = residue_of(*selection.entity);
    if (!residue || *residue >= records_) return 0;
    return (records_ - 1 - *residue) / entities_ + 1;
  }

  void page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
            std::vector<Record>& out) const override {
    const std::uint64_t total = count(selection);
    if (offset >= total) return;
    const std::uint64_t end = offset + std::min(limit, total - offset);
    const std::uint64_t residue = selection.entity ? *residue_of(*selection.entity) : 0;
    const std::uint64_t stride = selection.entity ? entities_ : 1;
    for (std::uint64_t k = offset; k < end; ++k)
      out.push_back(record_at(residue + k * stride));
  }

  void each_record(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                   RecordSink& sink) const override {
    const std::uint64_t total = count(selection);
    if (offset >= total) return;
    const std::uint64_t end = offset + std::min(limit, total - offset);
    const std::uint64_t residue = selection.entity ? *residue_of(*selection.entity) : 0;
    const std::uint64_t stride = selection.entity ? entities_ : 1;
    RecordText text;
    for (std::uint64_t k = offset; k < end; ++k)
      sink.record(view_at(residue + k * stride, text));
  }

  std::string describe() const override {
    return std::to_string(records_) + " generated records (seed " + std::to_string(seed_) + ")";
  }

  std::int64_t max_id() const override { return records_ == 0 ? 0 : record_at(records_ - 1).id; }

  // Ids are 3 * position + 1 + (0, 1 or 2): the position is (id - 1) / 3, and the record there has the id
  // or none does.
  std::optional<Record> find_by_id(std::int64_t id) const override {
    if (id < 1) return std::nullopt;
    const auto position = static_cast<std::uint64_t>(id - 1) / 3;
    if (position >= records_) return std::nullopt;
    Record r = record_at(position);
    if (r.id != id) return std::nullopt;
    return r;
  }

  // A record's uuid comes from its position's random stream and cannot be inverted, so the first
  // lookup builds an index of (hash of the uuid folder, position) over the whole collection, sorted:
  // 16 bytes and one record's generation a record (300,000: ~5 MB, well under a second).
  std::optional<Record> find_by_file(std::string_view file) const override {
    const auto key = uuid_key(file);
    if (!key) return std::nullopt;
    std::call_once(index_once_, [this] {
      index_.reserve(static_cast<std::size_t>(records_));
      for (std::uint64_t p = 0; p < records_; ++p)
        index_.emplace_back(*uuid_key(record_at(p).file), p);
      std::sort(index_.begin(), index_.end());
    });
    auto it = std::lower_bound(index_.begin(), index_.end(), std::pair(*key, std::uint64_t{0}));
    for (; it != index_.end() && it->first == *key; ++it) {
      Record r = record_at(it->second);
      if (r.file == file) return r;
    }
    return std::nullopt;
  }

 private:
  // The hash of the uuid folder of "filer_public/xx/yy/<uuid>/<name>", or nullopt for another shape.
  static std::optional<std::uint64_t> uuid_key(std::string_view file) {
    constexpr std::string_view kPrefix = "filer_public/";
    if (!file.starts_with(kPrefix) || file.size() < kPrefix.size() + 6 + 37) return std::nullopt;
    return std::hash<std::string_view>{}(file.substr(kPrefix.size() + 6, 36));
  }
  mutable std::once_flag index_once_;
  mutable std::vector<std::pair<std::uint64_t, std::uint64_t>> index_;

  __extension__ using Wide = unsigned __int128;  // a product of two residues needs 76 bits
  static std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
    // Below 2^32 each (any collection under 17 billion records) the product fits 64 bits: WebAssembly
    // has no 128-bit division, and its library call (__udivmodti4) cost a record more than its text.
    if (((a | b) >> 32) == 0) return a * b % m;
    return static_cast<std::uint64_t>((static_cast<Wide>(a) * b) % m);
  }
  // Residues stay below 2^40 (at most 10^12 records), so the signed 64-bit Euclid cannot overflow.
  static std::uint64_t modular_inverse(std::uint64_t a, std::uint64_t m) {
    if (m == 1) return 0;
    std::int64_t t = 0, new_t = 1, r = static_cast<std::int64_t>(m), new_r = static_cast<std::int64_t>(a);
    while (new_r != 0) {
      const std::int64_t q = r / new_r;
      t = std::exchange(new_t, t - q * new_t);
      r = std::exchange(new_r, r - q * new_r);
    }
    return static_cast<std::uint64_t>(t < 0 ? t + static_cast<std::int64_t>(m) : t);
  }

  std::int64_t entity_of(std::uint64_t position) const {
    const std::uint64_t residue = position % entities_;
    return kFirstEntityId +
           static_cast<std::int64_t>((mul_mod(multiplier_, residue, entities_) + shift_) % entities_);
  }

  std::optional<std::uint64_t> residue_of(std::int64_t entity) const {
    if (entity < kFirstEntityId) return std::nullopt;
    const auto permuted = static_cast<std::uint64_t>(entity - kFirstEntityId);
    if (permuted >= entities_) return std::nullopt;
    return mul_mod(inverse_, (permuted + entities_ - shift_) % entities_, entities_);
  }

  // The record at a position, its text written into `text`: what every read of the collection comes to.
  RecordView view_at(std::uint64_t position, RecordText& text) const {
    text.clear();
    Pcg32 rng(mix64(seed_ ^ mix64(position)), position);
    RecordView r;
    r.id = static_cast<std::int64_t>(3 * position + 1 + rng.below(3));
    r.entity = entity_of(position);
    const Names names = make_names(rng, r.id, text);
    const std::array<char, 36> uuid = uuid4(rng);
    const std::string_view uuid_text(uuid.data(), uuid.size());
    const std::size_t file = text.mark();
    text.add("filer_public/").add(uuid_text.substr(0, 2)).add("/").add(uuid_text.substr(2, 2)).add("/");
    r.file = text.add(uuid_text).add("/").add(names.stored).since(file);
    if (!rng.chance(1)) r.original_filename = names.original;  // filer's column is nullable
    r.file_size = rng.between(8'000, 6'000'000);
    r.name = names.title;
    if (rng.chance(12)) r.author = pick(rng, kAuthors);
    if (rng.chance(10)) r.default_caption = pick(rng, kCaptions);
    if (rng.chance(10)) r.alt = r.default_caption.empty() ? pick(rng, kCaptions) : r.default_caption;
    if (rng.chance(5)) r.description = pick(rng, kDescriptions);
    // Every text is made of the tables' words, numbers and slugs: none needs escaping, but for a
    // description that quotes; the file path is a slug under hex folders (dataset_test checks both).
    r.plain = r.description.find('"') == std::string_view::npos;
    if (rng.chance(8)) {
      const std::int64_t y = rng.between(0, 3000);  // drawn before x (see make_names)
      const std::int64_t x = rng.between(0, 4000);
      const std::size_t location = text.mark();
      r.subject_location = text.add(x).add(",").add(y).since(location);
    }
    r.mime_type = names.mime_type;
    return r;
  }

  Record record_at(std::uint64_t position) const {
    RecordText text;
    return record_of(view_at(position, text));
  }

  std::uint64_t records_;
  std::uint64_t seed_;
  std::uint64_t entities_ = 1;
  std::uint64_t multiplier_ = 1;
  std::uint64_t shift_ = 0;
  std::uint64_t inverse_ = 1;
};

}  // namespace

std::unique_ptr<Dataset> make_generated_dataset(std::uint64_t records, std::uint64_t seed) {
  return std::make_unique<GeneratedDataset>(records, seed);
}

}  // namespace entimg::mock

// The default collection: every record is a pure function of (seed, position), so memory does not
// grow with the size and any page is computed in constant time.
//
// Layout: position p has id 3p + 1 + j (j in 0..2 from the record's own stream): ascending, with
// gaps. Entities: p belongs to the entity of residue p mod E (E ≈ records/4, so about four images
// each, spread over the collection); residues map to entity ids through an affine permutation, so
// entity ids are not sorted by image id and a filter by entity is an arithmetic progression.
#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "entimg/common/prng.hpp"
#include "entimg/mock/dataset.hpp"
#include "filer_names.hpp"

namespace entimg::mock {
namespace {

using common::mix64;
using common::Pcg32;

constexpr std::int64_t kFirstEntityId = 101;

constexpr std::array<const char*, 7> kCyrillicWords = {"Фото",   "Снимок экрана", "Изображение", "Портрет",
                                                       "Пейзаж", "Обложка",       "Товар"};
constexpr std::array<const char*, 6> kLatinWords = {"photo", "banner",     "product",
                                                    "cover", "screenshot", "interior"};
constexpr std::array<const char*, 5> kSections = {"catalog", "news", "gallery", "projects", "about"};
constexpr std::array<const char*, 6> kAuthors = {"Иван Петров",  "Anna Smith",      "Мария Иванова",
                                                 "Studio North", "Алексей Смирнов", "J. O'Neil"};
constexpr std::array<const char*, 5> kCaptions = {"Вид спереди", "Front view", "Общий план", "Detail",
                                                  "Фото товара"};
constexpr std::array<const char*, 4> kDescriptions = {
    "Фотография товара, вид спереди.", "Product photo on a white background.",
    "Снимок сделан в студии; цвета откалиброваны.", "Archive scan, \"as is\"."};

std::string format(const char* fmt, auto... args) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  return std::string(buf, n < 0 ? 0 : static_cast<std::size_t>(std::min(n, 255)));
}

template <typename Array>
const char* pick(Pcg32& rng, const Array& items) {
  return items[rng.below(static_cast<std::uint32_t>(items.size()))];
}

std::string uuid4(Pcg32& rng) {
  std::uint64_t hi = rng.next_u64(), lo = rng.next_u64();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  std::size_t at = 0;
  for (int nibble = 0; nibble < 32; ++nibble) {
    if (at == 8 || at == 13 || at == 18 || at == 23) ++at;
    const std::uint64_t word = nibble < 16 ? hi : lo;
    out[at++] = kHex[(word >> (60 - 4 * (nibble % 16))) & 15];
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
  std::string original;  // as uploaded
  std::string stored;    // the name filer stores it under: filer_stored_name(basename(original))
  std::string title;     // the path-like `name`, when the importer set one
};

// Builds the stored name alongside the original rather than slugifying per record (this runs on
// every request); dataset_test checks stored == filer_stored_name(basename(original)) throughout.
Names make_names(Pcg32& rng, std::int64_t id) {
  const std::uint32_t kind = rng.below(100);
  const auto n = static_cast<long long>(rng.between(1, 9999));
  const char* ext = rng.chance(50) ? "png" : rng.chance(75) ? "jpg" : "jpeg";
  Names names;
  if (kind < 30) {
    const bool img = rng.chance(50);
    names.original = format(img ? "IMG_%04lld.JPG" : "DSC_%04lld.jpg", n);
    names.stored = format(img ? "img_%04lld.jpg" : "dsc_%04lld.jpg", n);
  } else if (kind < 50) {
    names.original = format("%s-%lld.%s", pick(rng, kLatinWords), n, ext);
    names.stored = names.original;
  } else if (kind < 72) {
    const std::uint32_t word = rng.below(static_cast<std::uint32_t>(kCyrillicWords.size()));
    names.original = format("%s %lld.%s", kCyrillicWords[word], n, ext);
    names.stored = format("%s_%lld.%s", cyrillic_slugs()[word].c_str(), n, ext);
  } else if (kind < 95) {
    // Draws in named steps: a call's arguments are evaluated in no fixed order (GCC, which made the
    // collection, draws the last first; clang, em++'s compiler, the first first).
    const char* word = pick(rng, kLatinWords);
    const char* section = pick(rng, kSections);
    const std::string dir = format("%s/%s-%lld", section, word, id);
    const std::string leaf = rng.chance(50) ? std::string("main") : format("detail-%lld", n % 10);
    names.original = format("%s/%s.%s", dir.c_str(), leaf.c_str(), ext);
    names.stored = format("%s.%s", leaf.c_str(), ext);
    if (rng.chance(70)) names.title = dir + "/" + leaf;
  } else {
    names.original = format("My Photo (%lld).JPEG", n);
    names.stored = format("my_photo_%lld.jpeg", n);
  }
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

  Record record_at(std::uint64_t position) const {
    Pcg32 rng(mix64(seed_ ^ mix64(position)), position);
    Record r;
    r.id = static_cast<std::int64_t>(3 * position + 1 + rng.below(3));
    r.entity = entity_of(position);
    Names names = make_names(rng, r.id);
    const std::string uuid = uuid4(rng);
    r.file.reserve(52 + names.stored.size());
    r.file.append("filer_public/").append(uuid, 0, 2).append("/").append(uuid, 2, 2).append("/");
    r.file.append(uuid).append("/").append(names.stored);
    if (!rng.chance(1)) r.original_filename = std::move(names.original);  // filer's column is nullable
    r.file_size = rng.between(8'000, 6'000'000);
    r.name = std::move(names.title);
    if (rng.chance(12)) r.author = pick(rng, kAuthors);
    if (rng.chance(10)) r.default_caption = pick(rng, kCaptions);
    if (rng.chance(10)) r.alt = r.default_caption.empty() ? pick(rng, kCaptions) : r.default_caption;
    if (rng.chance(5)) r.description = pick(rng, kDescriptions);
    if (rng.chance(8)) {
      const auto y = static_cast<long long>(rng.between(0, 3000));  // drawn first, as GCC always drew it
      const auto x = static_cast<long long>(rng.between(0, 4000));
      r.subject_location = format("%lld,%lld", x, y);
    }
    r.mime_type = detail::guess_mime_type(names.stored);
    return r;
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

#pragma once
// Seeded random documents for the schema agreement test: image records and pages of the endpoint, valid
// ones built from random parts, then broken (or not) by a few mutations each: types, missing and extra
// keys, pattern and format breakers, nulls, number tokens at and past every bound, odd Unicode, lengths at
// the maxLength edges. Each document comes from (seed, index) alone, so one can be made again by itself.
#include <cstdint>
#include <string>

namespace entimg::agreement {

struct Mutated {
  bool page = false;  ///< a page body (page.schema.json) rather than a record (image-record.schema.json)
  std::string text;   ///< the JSON text, as every validator gets it
  std::string what;   ///< the mutations applied, "; " between them ("" for none)
};

/// Document `index` of the run seeded `seed`.
Mutated mutated_document(std::uint64_t seed, std::uint64_t index);

}  // namespace entimg::agreement

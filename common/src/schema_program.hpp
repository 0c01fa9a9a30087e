#pragma once
// A JSON Schema compiled once into a flat table of checks, the way ajv compiles a schema into code: each
// schema object becomes one node (its type mask, bounds, pattern, property table, required mask), and
// `$ref`s become node indices. It answers is_valid on nlohmann::json and on simdjson's DOM without
// valijson's per-call allocations. It compiles only the keywords whose meaning it shares exactly with
// valijson as schema.cpp sets it up (PCRE2 patterns, code-point lengths, ajv-formats' "uri"); any other
// keyword leaves the schema to valijson. Agreement with valijson and with ajv is shown by a seeded random
// test (common/tests/schema_agreement.cpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <nlohmann/json.hpp>

namespace entimg::common::detail {

/// What "integer" means. `token`: an integer is written without fraction or exponent and fits 64 bits
/// (valijson's strong types, the suite's reading: 1.0 is a number, not an integer). `value`: any number
/// whose value is whole (JSON Schema draft-06 and later, ajv on JavaScript's numbers: 1.0 and 1e20 are
/// integers). Only the agreement test asks for `value`, to compare with ajv on every text.
enum class IntegerModel { token, value };

class SchemaProgram {
 public:
  /// The document a "$ref" to another file names, or nullptr when unknown.
  using Lookup = std::function<const nlohmann::json*(const std::string& uri)>;

  /// Compiles the schema document `root`, or returns nothing and says in *why_not which keyword or
  /// construct it leaves to valijson. Call it on a schema valijson has already accepted.
  static std::optional<SchemaProgram> compile(const nlohmann::json& root, const Lookup& lookup,
                                              std::string* why_not);

  /// The verdict valijson gives doc under this schema (with IntegerModel::value, the verdict ajv gives).
  bool accepts(const nlohmann::json& doc, IntegerModel model = IntegerModel::token) const;
  /// The same on simdjson's DOM. An object with a repeated key has every member checked.
  bool accepts(simdjson::dom::element doc, IntegerModel model = IntegerModel::token) const;

  /// The slot `name` has among the root's properties and required names, or -1 when the root names no such
  /// member: for a caller that finds an object's members itself (accepts_members).
  std::int32_t root_slot(std::string_view name) const;
  /// accepts(object), for an object whose members the caller has found: exactly one member by_key[k] for
  /// each bit k of `present`, each under its own name, whose root slot is slots[k] (>= 0). The program then
  /// checks the members by slot, without a walk over the object's keys and their look-ups.
  bool accepts_members(simdjson::dom::element object, std::span<const simdjson::dom::element> by_key,
                       std::uint32_t present, std::span<const std::int8_t> slots) const;

 private:
  struct Nodes;
  explicit SchemaProgram(std::shared_ptr<const Nodes> nodes);
  std::shared_ptr<const Nodes> nodes_;
};

/// Characters of UTF-8 text as JSON Schema's minLength and maxLength count them: code points, the whole
/// string (valijson's own count stops at an escaped NUL).
std::uint64_t code_points(std::string_view text);

}  // namespace entimg::common::detail

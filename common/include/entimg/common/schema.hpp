#pragma once
// JSON Schema (draft-07) validation of nlohmann::json documents and of simdjson DOM elements: the schema
// compiled once into a flat program of checks for is_valid, valijson for the general case and to explain a
// rejection. The schemas themselves (schema/*.schema.json) are data; see docs/schema.md.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace simdjson::dom {
class element;
}  // namespace simdjson::dom

namespace entimg::common {

namespace detail {
class SchemaProgram;
}  // namespace detail

/// One schema violation: where in the document (RFC 6901 pointer, "" for the root) and what is wrong.
struct SchemaError {
  std::string pointer;  ///< e.g. "/results/3/file"
  std::string message;  ///< what the schema expected, and the offending value when it is a scalar
};

/// A compiled schema. Cheap to copy (copies share the compiled form); safe for concurrent const use.
class SchemaValidator {
 public:
  /// What gives is_valid its verdict. `fastest`: the schema compiled into a flat program of checks when it
  /// uses only keywords that program runs (ours do), else valijson. `valijson`: always valijson, the
  /// reference the agreement test compares the program with.
  enum class Engine { fastest, valijson };

  /// Parses a draft-07 schema file once; a "$ref" to another document is resolved by its file name
  /// among the siblings of schema_file. Throws std::runtime_error naming the file and the problem.
  static SchemaValidator from_file(const std::filesystem::path& schema_file, Engine engine = Engine::fastest);

  /// True when doc conforms; stops at the first violation and collects nothing (the fast path).
  bool is_valid(const nlohmann::json& doc) const;

  /// The verdict is_valid gives the nlohmann::json of the same text, read from simdjson's DOM without a
  /// copy. Texts simdjson reads otherwise need nlohmann::json::parse and the overload above: integers
  /// beyond 64 bits (simdjson refuses them) and repeated keys (the DOM keeps every member, nlohmann the
  /// last). To explain a rejection, validate the nlohmann::json.
  bool is_valid(const simdjson::dom::element& doc) const;

  /// For is_valid on objects whose members the caller finds itself, by names of its own numbering (at most
  /// 32): where each name sits in the compiled schema. Made once (per validator), used for every object.
  struct MemberSlots {
    std::array<std::int8_t, 32> slots{};  ///< by the caller's number; -1: a name the compiled root lacks
    std::uint32_t usable = 0;             ///< the numbers whose slot is >= 0
  };
  MemberSlots member_slots(std::span<const std::string_view> names) const;

  /// is_valid(object), for an object whose members are exactly by_key[k] for each bit k of `present`, each
  /// under names[k] of member_slots (so each name once). When the schema compiled and every name present
  /// has a slot, the members are checked by slot, with no walk over the object's keys; else as is_valid.
  bool is_valid(const simdjson::dom::element& object, const MemberSlots& slots,
                std::span<const simdjson::dom::element> by_key, std::uint32_t present) const;

  /// Every violation found (valijson's "failed to validate item/property" wrappers left out); empty when
  /// doc conforms. Slower than is_valid: use it to explain a document is_valid rejected.
  std::vector<SchemaError> validate(const nlohmann::json& doc) const;

  /// The file this validator was loaded from, for messages.
  const std::filesystem::path& source() const;

  /// The compiled checks is_valid runs, or nullptr when valijson runs (then not_compiled_because() says
  /// which keyword or construct kept the schema from compiling, or that Engine::valijson was asked for).
  const detail::SchemaProgram* compiled_program() const;
  const std::string& not_compiled_because() const;

 private:
  struct Impl;
  explicit SchemaValidator(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

/// Directory of the project's schema files: $ENTIMG_SCHEMA_DIR when set and non-empty, else
/// ../share/entities-images/schema beside the running program when it is installed there, else the
/// source tree's schema/ folder compiled in as ENTIMG_SCHEMA_DIR.
std::filesystem::path schema_dir();

}  // namespace entimg::common

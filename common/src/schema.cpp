// GCC 12 with -O2 and -fsanitize reports a false -Wmaybe-uninitialized deep inside libstdc++'s <regex>
// (std::function moves in _NFA::_M_insert_*); it must be off before the first standard header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "entimg/common/schema.hpp"
#include "entimg/common/json_pointer.hpp"
#include "entimg/common/url.hpp"

#include "ecma_regex.hpp"
#include "schema_program.hpp"
#include "uri_format.hpp"

// Without this valijson reports schema problems by printing and calling abort(). Only this file includes
// valijson (simdjson_adapter.hpp checks that it is set), so the setting cannot differ between translation
// units.
#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "simdjson_adapter.hpp"

namespace entimg::common {

namespace {

// The schema's JSON: valijson's compiled form cannot be read back, so the text is kept to say what the
// schema expected at an error's place.
struct SchemaTexts {
  nlohmann::json root;
  std::map<std::string, nlohmann::json, std::less<>> referenced;  // by file name
};

}  // namespace

struct SchemaValidator::Impl {
  std::filesystem::path source;
  valijson::Schema schema;
  SchemaTexts texts;
  std::optional<detail::SchemaProgram> program;  // is_valid's engine when set
  std::string not_compiled_because;
};

namespace {

nlohmann::json read_schema_document(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("schema file " + file.string() + ": cannot be opened");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("schema file " + file.string() + ": not valid JSON: " + e.what());
  }
}

// std::regex (libstdc++) matches recursively, a few hundred bytes of stack per character, so a pattern
// is only safe on bounded input. valijson checks maxLength before pattern and stops at the first failure
// in is_valid, so requiring a maxLength next to every pattern keeps the regex off over-long strings.
constexpr std::int64_t kLongestPatternInput = 4096;

// Calls fn(schema_object, pointer) on every schema object of the document `root` reachable through the
// keywords that hold subschemas, or through a "$ref" into the same document; never on data ("enum",
// "const", "default") nor on a property map itself, so a property called "pattern" is not a keyword.
template <typename Json, typename Fn>
void for_each_schema(Json& root, Fn&& fn) {
  std::set<const void*> seen;
  const auto walk = [&](const auto& self, Json& node, const std::string& where, int depth) -> void {
    if (depth > 512) return;
    if (node.is_array()) {  // "items" as a list, "allOf" and the like
      std::size_t index = 0;
      for (auto& member : node)
        self(self, member, where + "/" + std::to_string(index++), depth + 1);
      return;
    }
    if (!node.is_object() || !seen.insert(&node).second) return;
    fn(node, where);
    for (const char* keyword : {"properties", "patternProperties", "definitions", "$defs", "dependencies"}) {
      if (const auto map = node.find(keyword); map != node.end() && map->is_object()) {
        for (auto& [name, subschema] : map->items())
          self(self, subschema, where + "/" + keyword + "/" + json_pointer_token(name), depth + 1);
      }
    }
    for (const char* keyword : {"items", "additionalItems", "additionalProperties", "contains",
                                "propertyNames", "not", "if", "then", "else", "allOf", "anyOf", "oneOf"}) {
      if (const auto subschema = node.find(keyword); subschema != node.end())
        self(self, *subschema, where + "/" + keyword, depth + 1);
    }
    if (const auto ref = node.find("$ref"); ref != node.end() && ref->is_string()) {
      const std::string uri = ref->template get<std::string>();
      if (uri.starts_with('#')) {
        try {
          const nlohmann::json::json_pointer pointer(uri.substr(1));
          if (root.contains(pointer)) self(self, root.at(pointer), uri.substr(1), depth + 1);
        } catch (const nlohmann::json::exception&) {
          // not a JSON pointer: valijson reports it when it parses the schema
        }
      }
    }
  };
  walk(walk, root, "", 0);
}

// Compiles every "pattern" now (valijson would compile it lazily, mid-run) and enforces the bound above.
void check_patterns(const nlohmann::json& root, const std::filesystem::path& file) {
  for_each_schema(root, [&file](const nlohmann::json& node, const std::string& where) {
    const auto pattern = node.find("pattern");
    if (pattern == node.end() || !pattern->is_string()) return;
    const std::string at = "schema file " + file.string() + ": " + where + "/pattern";
    try {
      std::regex compiled(pattern->get<std::string>());
    } catch (const std::regex_error& e) {
      throw std::runtime_error(at + " is not a regex std::regex (ECMAScript) accepts: " + e.what());
    }
    const auto bound = node.find("maxLength");
    if (bound == node.end() || !bound->is_number_integer() ||
        bound->get<std::int64_t>() > kLongestPatternInput) {
      throw std::runtime_error(at + " needs a sibling \"maxLength\" of at most " +
                               std::to_string(kLongestPatternInput) +
                               ": std::regex would exhaust the stack on longer strings");
    }
  });
}

// ---- keywords valijson gets from us ------------------------------------------------------------------
// valijson hard-wires std::regex for "pattern", counts maxLength/minLength only up to an escaped NUL, and
// ignores "format": "uri", which ajv (with ajv-formats) checks. Its parser does take builders for extra
// keywords, so the copy of a schema handed to valijson has those keywords renamed to private ones
// (kPrivatePrefix...) whose constraints below do what JSON Schema and ajv do: valijson still decides
// where and when each applies (under properties, allOf, anyOf, not, ...). The schema text kept for error
// messages keeps the standard keywords.
constexpr std::string_view kPrivatePrefix = "$entimg:";
constexpr const char* kPcrePattern = "$entimg:pattern";
constexpr const char* kMaxLength = "$entimg:maxLength";
constexpr const char* kMinLength = "$entimg:minLength";
constexpr const char* kUriFormat = "$entimg:format";

// A constraint on strings only (as valijson's own under strong types): `check` says what is wrong with
// one, or "" when nothing is.
template <typename Check>
class StringConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit StringConstraint(Check check) : check_(std::move(check)) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;
    const std::string problem = check_(target.asString());
    if (problem.empty()) return true;
    if (results != nullptr) results->pushError(context, problem);
    return false;
  }

 private:
  valijson::constraints::Constraint* cloneInto(void* memory) const override {
    return new (memory) StringConstraint(*this);
  }
  std::size_t sizeOf() const override { return sizeof(StringConstraint); }

  Check check_;
};

template <typename Check>
valijson::constraints::Constraint* string_constraint(Check check) {
  return new StringConstraint<Check>(std::move(check));
}

class PcrePatternBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    std::string error;
    auto regex = detail::EcmaRegex::compile(value.asString(), &error);
    if (!regex) throw std::runtime_error("pattern \"" + value.asString() + "\": " + error);
    return string_constraint([regex = std::move(*regex)](const std::string& text) -> std::string {
      std::string why;
      switch (regex.search(text, &why)) {
        case detail::EcmaRegex::Outcome::match:
          return "";
        case detail::EcmaRegex::Outcome::no_match:
          return "Failed to match regex specified by 'pattern' constraint.";
        case detail::EcmaRegex::Outcome::error:
          break;
      }
      return "The 'pattern' constraint could not be evaluated: " + why + ".";
    });
  }
};

// maxLength (most) or minLength, counting every code point; the messages are valijson's.
class LengthBuilder : public valijson::ConstraintBuilder {
 public:
  explicit LengthBuilder(bool most) : most_(most) {}
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    const std::uint64_t bound = value.asInteger() < 0 ? 0 : static_cast<std::uint64_t>(value.asInteger());
    if (most_) {
      return string_constraint([bound](const std::string& text) -> std::string {
        if (text.size() <= bound || detail::code_points(text) <= bound) return "";
        return "String should be no more than " + std::to_string(bound) + " characters in length.";
      });
    }
    return string_constraint([bound](const std::string& text) -> std::string {
      if (detail::code_points(text) >= bound) return "";
      return "String should be no fewer than " + std::to_string(bound) + " characters in length.";
    });
  }

 private:
  bool most_;
};

class UriFormatBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter&) const override {
    return string_constraint([](const std::string& text) -> std::string {
      return detail::is_uri(text) ? "" : "String should be a valid URI (RFC 3986).";
    });
  }
};

// Renames, in valijson's copy of the schema, each keyword a builder above takes over: every maxLength and
// minLength, "format": "uri", and each "pattern" PCRE2 gives ECMAScript's meaning (any other pattern stays
// with valijson's std::regex).
void route_keywords_to_builders(nlohmann::json& root, const std::filesystem::path& file) {
  for_each_schema(root, [&file](nlohmann::json& node, const std::string&) {
    for (const auto& [keyword, value] : node.items()) {
      if (std::string_view(keyword).starts_with(kPrivatePrefix))
        throw std::runtime_error("schema file " + file.string() + ": \"" + keyword + "\" is reserved");
    }
    const auto rename = [&node](const char* from, const char* to) {
      nlohmann::json value = std::move(node[from]);
      node.erase(from);
      node[to] = std::move(value);
    };
    if (node.contains("maxLength") && node["maxLength"].is_number_unsigned()) rename("maxLength", kMaxLength);
    if (node.contains("minLength") && node["minLength"].is_number_unsigned()) rename("minLength", kMinLength);
    if (node.contains("format") && node["format"] == "uri") rename("format", kUriFormat);
    const auto pattern = node.find("pattern");
    if (pattern == node.end() || !pattern->is_string()) return;
    const std::string text = pattern->get<std::string>();
    if (detail::EcmaRegex::same_in_pcre2(text) && detail::EcmaRegex::compile(text, nullptr))
      rename("pattern", kPcrePattern);
  });
}

// The file a "$ref" document URI names: its last path segment, looked up next to the root schema. The
// "$id" values are naming URIs that are never fetched, so relative and absolute references both land here.
std::string referenced_name(const std::string& uri) {
  std::string name = uri.substr(0, uri.find('#'));
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name;
}

std::filesystem::path referenced_file(const std::filesystem::path& dir, const std::string& uri) {
  const std::string name = referenced_name(uri);
  if (name.empty()) throw std::runtime_error("$ref \"" + uri + "\" names no file");
  return dir / name;
}

// valijson 1.0 recurses without end when the root itself is {"$ref": "<other file>"}, so such roots are
// followed here; a fragment would need the other document's own root for its inner refs, so it is refused.
nlohmann::json follow_root_refs(nlohmann::json root, const std::filesystem::path& dir,
                                const std::filesystem::path& file) {
  for (int hops = 0; root.is_object() && root.contains("$ref") && root["$ref"].is_string(); ++hops) {
    const std::string uri = root["$ref"].get<std::string>();
    const auto hash = uri.find('#');
    if (hash == 0) break;  // a pointer into the same document: valijson handles it
    if (hash != std::string::npos && hash + 1 < uri.size()) {
      throw std::runtime_error("schema file " + file.string() +
                               ": a root \"$ref\" into part of another file (" + uri +
                               ") is not supported; reference the whole file");
    }
    if (hops == 16)
      throw std::runtime_error("schema file " + file.string() + ": root \"$ref\" chain too long");
    root = read_schema_document(referenced_file(dir, uri));
  }
  return root;
}

// valijson's Validator caches compiled regexes in a mutable member keyed by pattern text, so one per thread
// keeps the cache warm across calls (and schemas) without sharing mutable state between threads.
valijson::Validator& thread_validator() {
  thread_local valijson::Validator validator(valijson::Validator::kStrongTypes);
  return validator;
}

// The fast path of both is_valid overloads. valijson's `format` check casts the value to a string before
// looking at its type, and throws on an array or object there; such a document breaks `type` anyway, so it
// is not valid.
template <typename Adapter>
bool conforms(const valijson::Schema& schema, const Adapter& target) {
  try {
    return thread_validator().validate(schema, target, nullptr);
  } catch (const std::exception&) {
    return false;
  }
}

// valijson reads integers as int64_t and its nlohmann adapter casts an unsigned one, so above INT64_MAX it
// would see a negative number (18446744073709551615 as -1); our simdjson adapter gives such an integer its
// value. So valijson reads a nlohmann::json as simdjson's DOM of its text, and fn gets that adapter (or
// nlohmann's, for a document simdjson cannot hold: nesting deeper than 1024 levels).
template <typename Fn>
auto through_simdjson(const nlohmann::json& doc, Fn&& fn) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(text).get(element) == simdjson::SUCCESS) return fn(detail::SimdjsonAdapter(element));
  return fn(valijson::adapters::NlohmannJsonAdapter(doc));
}

// A schema object and the document its local "#/..." references point into.
struct SchemaNode {
  const nlohmann::json* node;
  const nlohmann::json* document;
};

// Appends the schema objects that apply at one place: the node, or what its "$ref" names, and the members
// of its "allOf". Unresolvable references add nothing (the explanation is best effort).
void add_applicable(const SchemaTexts& texts, SchemaNode at, std::vector<SchemaNode>& out, int depth = 0) {
  if (depth > 16 || !at.node->is_object()) return;
  if (const auto ref = at.node->find("$ref"); ref != at.node->end() && ref->is_string()) {
    const std::string uri = ref->get<std::string>();
    const nlohmann::json* document = at.document;
    if (const std::string name = referenced_name(uri); !name.empty()) {
      const auto found = texts.referenced.find(name);
      if (found == texts.referenced.end()) return;
      document = &found->second;
    }
    const auto hash = uri.find('#');
    try {
      const nlohmann::json::json_pointer pointer(hash == std::string::npos ? "" : uri.substr(hash + 1));
      if (document->contains(pointer))
        add_applicable(texts, {&document->at(pointer), document}, out, depth + 1);
    } catch (const nlohmann::json::exception&) {
      // not a plain JSON pointer: no explanation
    }
    return;  // draft-07 ignores the siblings of "$ref"
  }
  out.push_back(at);
  if (const auto all = at.node->find("allOf"); all != at.node->end() && all->is_array()) {
    for (const auto& member : *all)
      add_applicable(texts, {&member, at.document}, out, depth + 1);
  }
}

// The schema objects that apply one step down: into property `key`, or into an item when key is null.
std::vector<SchemaNode> step_down(const SchemaTexts& texts, const std::vector<SchemaNode>& here,
                                  const std::string* key) {
  std::vector<SchemaNode> next;
  for (const auto& at : here) {
    const nlohmann::json& schema = *at.node;
    const nlohmann::json* child = nullptr;
    if (key == nullptr) {
      if (const auto items = schema.find("items"); items != schema.end() && items->is_object())
        child = &*items;
    } else if (const auto props = schema.find("properties"); props != schema.end() && props->contains(*key)) {
      child = &props->at(*key);
    } else if (const auto extra = schema.find("additionalProperties");
               extra != schema.end() && extra->is_object()) {
      child = &*extra;
    }
    if (child != nullptr) add_applicable(texts, {child, at.document}, next);
  }
  return next;
}

// "type \"integer\", minimum -32768, maximum 32767": the value constraints of the schemas that apply.
std::string expectation(const std::vector<SchemaNode>& schemas) {
  std::string out;
  for (const auto& at : schemas) {
    for (const char* keyword : {"type", "enum", "const", "format", "pattern", "minimum", "maximum",
                                "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"}) {
      const auto found = at.node->find(keyword);
      if (found == at.node->end()) continue;
      if (!out.empty()) out += ", ";
      out += std::string(keyword) + " " + found->dump();
    }
  }
  return out;
}

std::string escape_pointer_token(std::string_view token) {
  return common::json_pointer_token(token);
}

// What came, for the message: scalars in full (cut at ~120 bytes), containers by kind only.
std::string describe_value(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " items";
  return utf8_cut(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 120, "...");
}

// valijson adds, above each real violation, one "failed to validate item/property/child schema" line per
// enclosing level; they repeat what the pointer already says.
bool is_wrapper_message(std::string_view message) {
  constexpr std::array<std::string_view, 5> kWrappers = {
      "Failed to validate item #",
      "Failed to validate against schema associated with property name",
      "Failed to validate against schema associated with pattern",
      "Failed to validate against additional properties schema",
      "Failed to validate against child schema #",
  };
  for (const auto prefix : kWrappers) {
    if (message.starts_with(prefix)) return true;
  }
  return false;
}

// Turns valijson's context {"<root>", "[key]", "[3]", ...} into a JSON pointer, walking the document (keys
// and indices look alike there) and the schema side by side, and says what was expected and what came.
SchemaError explain(const SchemaTexts& texts, const valijson::ValidationResults::Error& error,
                    const nlohmann::json& doc) {
  SchemaError out{"", error.description};
  const nlohmann::json* node = &doc;
  std::vector<SchemaNode> schemas;
  add_applicable(texts, {&texts.root, &texts.root}, schemas);
  for (std::size_t i = 1; i < error.context.size(); ++i) {
    std::string token = error.context[i];
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']')
      token = token.substr(1, token.size() - 2);
    out.pointer += '/';
    out.pointer += escape_pointer_token(token);
    if (node != nullptr && node->is_object()) {
      const auto found = node->find(token);
      node = found == node->end() ? nullptr : &*found;
      schemas = step_down(texts, schemas, &token);
    } else if (node != nullptr && node->is_array()) {
      std::size_t index = 0;
      for (const char c : token)
        index = index * 10 + static_cast<std::size_t>(c - '0');
      node = index < node->size() ? &(*node)[index] : nullptr;
      schemas = step_down(texts, schemas, nullptr);
    } else {
      node = nullptr;
      schemas.clear();
    }
  }
  // A missing or extra key is named in valijson's message; the object itself would add nothing.
  if (node == nullptr || node->is_object() || is_wrapper_message(out.message)) return out;
  if (!out.message.empty() && out.message.back() != '.') out.message += '.';
  const std::string expected = expectation(schemas);
  if (!expected.empty()) out.message += " Schema: " + expected + ";";
  out.message += " got " + describe_value(*node) + ".";
  return out;
}

// Strings over the maxLength of a place that also has a pattern: reported here, then blanked in a copy of
// the document before valijson collects errors, because collecting (unlike is_valid) runs every constraint,
// the pattern included, on the over-long string.
void find_unmatchable(const SchemaTexts& texts, const nlohmann::json& node,
                      const std::vector<SchemaNode>& schemas, const std::string& pointer,
                      std::vector<SchemaError>& out) {
  if (schemas.empty()) return;
  if (node.is_string()) {
    std::optional<std::int64_t> bound;
    bool patterned = false;
    for (const auto& at : schemas) {
      patterned = patterned || at.node->contains("pattern");
      if (const auto max = at.node->find("maxLength"); max != at.node->end() && max->is_number_integer()) {
        bound = std::min(bound.value_or(max->get<std::int64_t>()), max->get<std::int64_t>());
      }
    }
    const std::uint64_t length = detail::code_points(node.get_ref<const std::string&>());
    if (patterned && bound && length > static_cast<std::size_t>(*bound)) {
      out.push_back({pointer, "String of " + std::to_string(length) +
                                  " characters is longer than maxLength " + std::to_string(*bound) +
                                  " (not matched against the pattern)."});
    }
  } else if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      find_unmatchable(texts, value, step_down(texts, schemas, &key),
                       pointer + "/" + escape_pointer_token(key), out);
    }
  } else if (node.is_array()) {
    const auto item_schemas = step_down(texts, schemas, nullptr);
    std::size_t index = 0;
    for (const auto& value : node)
      find_unmatchable(texts, value, item_schemas, pointer + "/" + std::to_string(index++), out);
  }
}

}  // namespace

SchemaValidator::SchemaValidator(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

SchemaValidator SchemaValidator::from_file(const std::filesystem::path& schema_file, Engine engine) {
  const std::filesystem::path dir = schema_file.parent_path();
  auto impl = std::make_shared<Impl>();
  impl->source = schema_file;
  impl->texts.root = follow_root_refs(read_schema_document(schema_file), dir, schema_file);
  check_patterns(impl->texts.root, schema_file);

  nlohmann::json engine_root = impl->texts.root;
  route_keywords_to_builders(engine_root, schema_file);

  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  // The parser deletes the builders; lengths come before patterns, so is_valid stops at an over-long
  // string before a regex runs on it.
  parser.addConstraintBuilder(kMaxLength, new LengthBuilder(true));
  parser.addConstraintBuilder(kMinLength, new LengthBuilder(false));
  parser.addConstraintBuilder(kPcrePattern, new PcrePatternBuilder());
  parser.addConstraintBuilder(kUriFormat, new UriFormatBuilder());
  const auto fetch = [&dir,
                      &referenced = impl->texts.referenced](const std::string& uri) -> const nlohmann::json* {
    const std::filesystem::path file = referenced_file(dir, uri);
    auto doc = std::make_unique<nlohmann::json>(read_schema_document(file));
    check_patterns(*doc, file);
    referenced.emplace(file.filename().string(), *doc);
    route_keywords_to_builders(*doc, file);
    return doc.release();  // valijson owns it until free_doc
  };
  const auto free_doc = [](const nlohmann::json* doc) { delete doc; };
  try {
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(engine_root), impl->schema, fetch,
                          free_doc);
  } catch (const std::exception& e) {
    throw std::runtime_error("schema file " + schema_file.string() + ": " + e.what());
  }
  if (engine == Engine::valijson) {
    impl->not_compiled_because = "valijson was asked for";
  } else {
    const auto lookup = [&referenced =
                             impl->texts.referenced](const std::string& uri) -> const nlohmann::json* {
      const auto found = referenced.find(referenced_name(uri));
      return found == referenced.end() ? nullptr : &found->second;
    };
    impl->program = detail::SchemaProgram::compile(impl->texts.root, lookup, &impl->not_compiled_because);
  }
  return SchemaValidator(std::move(impl));
}

bool SchemaValidator::is_valid(const nlohmann::json& doc) const {
  if (impl_->program) return impl_->program->accepts(doc);
  return through_simdjson(doc, [this](const auto& adapter) { return conforms(impl_->schema, adapter); });
}

bool SchemaValidator::is_valid(const simdjson::dom::element& doc) const {
  if (impl_->program) return impl_->program->accepts(doc);
  return conforms(impl_->schema, detail::SimdjsonAdapter(doc));
}

SchemaValidator::MemberSlots SchemaValidator::member_slots(std::span<const std::string_view> names) const {
  if (names.size() > 32) throw std::invalid_argument("member_slots: more than 32 names");
  MemberSlots out;
  out.slots.fill(-1);
  if (!impl_->program) return out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::int32_t slot = impl_->program->root_slot(names[k]);
    if (slot < 0) continue;
    out.slots[k] = static_cast<std::int8_t>(slot);
    out.usable |= std::uint32_t{1} << k;
  }
  return out;
}

bool SchemaValidator::is_valid(const simdjson::dom::element& object, const MemberSlots& slots,
                               std::span<const simdjson::dom::element> by_key, std::uint32_t present) const {
  if (!impl_->program || (present & ~slots.usable) != 0) return is_valid(object);
  return impl_->program->accepts_members(object, by_key, present, slots.slots);
}

std::vector<SchemaError> SchemaValidator::validate(const nlohmann::json& doc) const {
  if (is_valid(doc)) return {};
  const SchemaTexts& texts = impl_->texts;
  std::vector<SchemaNode> root_schemas;
  add_applicable(texts, {&texts.root, &texts.root}, root_schemas);
  std::vector<SchemaError> errors;
  find_unmatchable(texts, doc, root_schemas, "", errors);
  const std::size_t blanked = errors.size();
  nlohmann::json sanitized;
  if (blanked > 0) {
    sanitized = doc;
    for (const auto& e : errors)
      sanitized[nlohmann::json::json_pointer(e.pointer)] = "";
  }
  const nlohmann::json& target = blanked > 0 ? sanitized : doc;

  valijson::ValidationResults results;
  try {
    through_simdjson(target, [this, &results](const auto& adapter) {
      return thread_validator().validate(impl_->schema, adapter, &results);
    });
  } catch (const std::exception& e) {
    // See is_valid: a non-string where a `format` applies. What the pre-pass found still stands.
    if (errors.empty()) errors.push_back({"", std::string("the document cannot be validated: ") + e.what()});
    return errors;
  }
  std::vector<SchemaError> wrappers;
  for (const auto& error : results) {
    SchemaError explained = explain(texts, error, target);
    const auto first_blanked = errors.begin();
    const auto last_blanked = errors.begin() + static_cast<std::ptrdiff_t>(blanked);
    if (std::any_of(first_blanked, last_blanked,
                    [&](const SchemaError& e) { return e.pointer == explained.pointer; })) {
      continue;  // about the blank that replaced an over-long string, already reported
    }
    (is_wrapper_message(error.description) ? wrappers : errors).push_back(std::move(explained));
  }
  // Should valijson ever report only wrappers, they are still better than claiming nothing is wrong.
  return errors.empty() ? wrappers : errors;
}

const std::filesystem::path& SchemaValidator::source() const {
  return impl_->source;
}

const detail::SchemaProgram* SchemaValidator::compiled_program() const {
  return impl_->program ? &*impl_->program : nullptr;
}

const std::string& SchemaValidator::not_compiled_because() const {
  return impl_->not_compiled_because;
}

std::filesystem::path schema_dir() {
  if (const char* from_env = std::getenv("ENTIMG_SCHEMA_DIR"); from_env != nullptr && *from_env != '\0') {
    return from_env;
  }
  // An installed tool (the .deb: /usr/bin and /usr/share/entities-images/schema) finds them beside itself.
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / "share/entities-images/schema";
    if (std::filesystem::is_regular_file(installed / "image-record.schema.json", error)) return installed;
  }
  return ENTIMG_SCHEMA_DIR;
}

}  // namespace entimg::common

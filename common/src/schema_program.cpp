#include "schema_program.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "ecma_regex.hpp"
#include "entimg/common/json_dom.hpp"
#include "entimg/common/json_pointer.hpp"
#include "known_patterns.hpp"
#include "uri_format.hpp"

namespace entimg::common::detail {
namespace {

using Json = nlohmann::json;

// The kinds of JSON value, one bit each, so a "type" keyword is a mask. A number is an integer or a
// fraction, as the IntegerModel reads it.
enum Kind : std::uint8_t {
  kNull = 1,
  kBoolean = 2,
  kInteger = 4,
  kFraction = 8,
  kString = 16,
  kArray = 32,
  kObject = 64,
};
constexpr std::uint8_t kAnyKind = 127;
constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
// A property's slot is a bit of the required mask.
constexpr std::size_t kMostProperties = 64;

// Names to slots by open addressing; a hit is confirmed by comparing the whole name.
class PropertyTable {
 public:
  void build(std::vector<std::string> names) {
    names_ = std::move(names);
    std::size_t size = 4;
    while (size < names_.size() * 4)
      size *= 2;
    slots_.assign(size, -1);
    mask_ = size - 1;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      std::size_t at = hash(names_[i]) & mask_;
      while (slots_[at] >= 0)
        at = (at + 1) & mask_;
      slots_[at] = static_cast<std::int32_t>(i);
    }
  }
  std::int32_t find(std::string_view key) const {
    if (names_.empty()) return -1;
    for (std::size_t at = hash(key) & mask_;; at = (at + 1) & mask_) {
      const std::int32_t slot = slots_[at];
      if (slot < 0 || same(names_[static_cast<std::size_t>(slot)], key)) return slot;
    }
  }
  std::size_t size() const { return names_.size(); }
  const std::string& name(std::size_t slot) const { return names_[slot]; }
  // Whether `key` is the name of `slot` (any slot below size()).
  bool is(std::size_t slot, std::string_view key) const { return same(names_[slot], key); }

 private:
  // a == b without a call to memcmp: keys are short, so they are compared a word (or half a word) at a
  // time, the last word overlapping the one before it.
  static bool same(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n >= 8) {
      for (std::size_t at = 0; at + 8 < n; at += 8)
        if (word<std::uint64_t>(a, at) != word<std::uint64_t>(b, at)) return false;
      return word<std::uint64_t>(a, n - 8) == word<std::uint64_t>(b, n - 8);
    }
    if (n >= 4)
      return word<std::uint32_t>(a, 0) == word<std::uint32_t>(b, 0) &&
             word<std::uint32_t>(a, n - 4) == word<std::uint32_t>(b, n - 4);
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  template <typename Word>
  static Word word(std::string_view text, std::size_t at) {
    Word w;
    std::memcpy(&w, text.data() + at, sizeof w);
    return w;
  }
  // Length and three characters tell a record's 15 keys apart; collisions only cost a probe.
  static std::size_t hash(std::string_view key) {
    if (key.empty()) return 0;
    const auto at = [&key](std::size_t i) {
      return static_cast<std::size_t>(static_cast<unsigned char>(key[i]));
    };
    return key.size() * 0x9E3779B1U ^ at(0) * 31U ^ at(key.size() - 1) * 131U ^ at(key.size() / 2) * 7U;
  }
  std::vector<std::string> names_;
  std::vector<std::int32_t> slots_;
  std::size_t mask_ = 0;
};

struct Node {
  bool reject_all = false;  // the schema `false`
  bool type_only = false;   // nothing to check but the type (most of a record's members)
  std::uint8_t types = kAnyKind;
  // Which sections apply, so a value skips the others.
  bool number_checks = false, string_checks = false, array_checks = false, object_checks = false;

  std::optional<double> minimum, maximum, exclusive_minimum, exclusive_maximum;

  std::uint64_t min_length = 0, max_length = kUnbounded;
  std::optional<EcmaRegex> pattern;
  PatternMatcher known_pattern = nullptr;  // a hand-written matcher for it, when it is one of the schema's
  PatternMatcher uri_proof = nullptr;      // when true of a text the pattern matched, that text is a URI
  bool uri = false;

  std::int32_t items = -1;
  std::uint64_t min_items = 0, max_items = kUnbounded;

  PropertyTable properties;
  std::vector<std::int32_t> property_nodes;  // by slot; -1 for a name that is only required
  std::uint64_t required = 0;                // slots that must be present
  enum class Extra { allowed, forbidden, schema } extra = Extra::allowed;
  std::int32_t extra_node = -1;
  std::uint64_t min_properties = 0, max_properties = kUnbounded;

  std::vector<std::int32_t> all_of;
};

// Keywords that do not constrain a value.
bool is_annotation(std::string_view keyword) {
  static constexpr std::array<std::string_view, 13> kAnnotations = {
      "$schema",    "$id",      "id",       "title",     "description",      "default",
      "examples",   "$comment", "readOnly", "writeOnly", "contentMediaType", "contentEncoding",
      "definitions"};
  for (const auto name : kAnnotations)
    if (keyword == name) return true;
  return false;
}

std::uint8_t kind_of_type_name(std::string_view name) {
  if (name == "null") return kNull;
  if (name == "boolean") return kBoolean;
  if (name == "integer") return kInteger;
  if (name == "number") return kInteger | kFraction;
  if (name == "string") return kString;
  if (name == "array") return kArray;
  if (name == "object") return kObject;
  return 0;
}

class Compiler {
 public:
  explicit Compiler(const SchemaProgram::Lookup& lookup) : lookup_(lookup) {}

  // The node of `schema` (of `document`), at `where` for messages; -1 once something is refused.
  std::int32_t node_for(const Json& schema, const Json& document, const std::string& where) {
    const auto [target, target_document] = resolve(schema, document, where);
    if (target == nullptr) return -1;
    if (const auto done = done_.find(target); done != done_.end()) return done->second;
    const auto index = static_cast<std::int32_t>(nodes.size());
    nodes.emplace_back();
    done_.emplace(target, index);
    Node node;
    if (!fill(node, *target, *target_document, where)) return -1;
    nodes[static_cast<std::size_t>(index)] = std::move(node);
    return index;
  }

  // Refuses the schema when allOf leads from a node back to itself: that recursion would never end.
  bool all_of_acyclic() {
    std::vector<int> state(nodes.size(), 0);  // 0 new, 1 on the path, 2 done
    const auto visit = [&](const auto& self, std::size_t at) -> bool {
      if (state[at] == 1) return false;
      if (state[at] == 2) return true;
      state[at] = 1;
      for (const std::int32_t next : nodes[at].all_of)
        if (!self(self, static_cast<std::size_t>(next))) return false;
      state[at] = 2;
      return true;
    };
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!visit(visit, i)) return refuse("allOf leads back to the schema that holds it");
    return true;
  }

  std::vector<Node> nodes;
  std::string why_not;

 private:
  bool refuse(const std::string& why) {
    if (why_not.empty()) why_not = why;
    return false;
  }

  // Follows "$ref" (siblings ignored, as draft-07 says and valijson does) to the schema it names.
  std::pair<const Json*, const Json*> resolve(const Json& schema, const Json& document,
                                              const std::string& where) {
    const Json* at = &schema;
    const Json* in = &document;
    for (int hops = 0; at->is_object() && at->contains("$ref"); ++hops) {
      const Json& ref = at->at("$ref");
      if (!ref.is_string() || hops == 32) {
        refuse(where + ": a \"$ref\" that is not a string, or a chain of them too long");
        return {nullptr, nullptr};
      }
      const std::string uri = ref.get<std::string>();
      const std::size_t hash = uri.find('#');
      if (hash != 0) {
        in = lookup_(uri);
        if (in == nullptr) {
          refuse(where + ": \"$ref\" " + uri + " names no document the loader read");
          return {nullptr, nullptr};
        }
      }
      try {
        const Json::json_pointer pointer(hash == std::string::npos ? "" : uri.substr(hash + 1));
        if (!in->contains(pointer)) {
          refuse(where + ": \"$ref\" " + uri + " points at nothing");
          return {nullptr, nullptr};
        }
        at = &in->at(pointer);
      } catch (const Json::exception&) {
        refuse(where + ": \"$ref\" " + uri + " is not a JSON pointer");
        return {nullptr, nullptr};
      }
    }
    return {at, in};
  }

  static std::optional<std::uint64_t> count(const Json& value) {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(value.get<std::int64_t>());
    return std::nullopt;
  }

  bool fill(Node& node, const Json& schema, const Json& document, const std::string& where) {
    if (schema.is_boolean()) {
      node.reject_all = !schema.get<bool>();
      return true;
    }
    if (!schema.is_object()) return refuse(where + ": a schema that is neither an object nor a boolean");
    for (const auto& [keyword, value] : schema.items()) {
      if (is_annotation(keyword) || keyword == "required" || keyword == "properties" ||
          keyword == "additionalProperties")
        continue;  // the last three are read together below
      if (!fill_keyword(node, keyword, value, document, where + "/" + json_pointer_token(keyword)))
        return false;
    }
    if (!fill_object(node, schema, document, where)) return false;
    node.number_checks = node.minimum || node.maximum || node.exclusive_minimum || node.exclusive_maximum;
    node.string_checks = node.min_length > 0 || node.max_length != kUnbounded || node.pattern || node.uri;
    node.array_checks = node.items >= 0 || node.min_items > 0 || node.max_items != kUnbounded;
    node.object_checks = node.properties.size() > 0 || node.extra != Node::Extra::allowed ||
                         node.min_properties > 0 || node.max_properties != kUnbounded;
    return true;
  }

  bool fill_keyword(Node& node, const std::string& keyword, const Json& value, const Json& document,
                    const std::string& where) {
    if (keyword == "type") return fill_type(node, value, where);
    if (keyword == "minimum" || keyword == "maximum" || keyword == "exclusiveMinimum" ||
        keyword == "exclusiveMaximum") {
      if (!value.is_number()) return refuse(where + ": not a number (a draft-04 boolean?)");
      const double bound = value.get<double>();
      (keyword == "minimum"            ? node.minimum
       : keyword == "maximum"          ? node.maximum
       : keyword == "exclusiveMinimum" ? node.exclusive_minimum
                                       : node.exclusive_maximum) = bound;
      return true;
    }
    if (keyword == "minLength" || keyword == "maxLength" || keyword == "minItems" || keyword == "maxItems" ||
        keyword == "minProperties" || keyword == "maxProperties") {
      const auto n = count(value);
      if (!n) return refuse(where + ": not a non-negative integer");
      (keyword == "minLength"       ? node.min_length
       : keyword == "maxLength"     ? node.max_length
       : keyword == "minItems"      ? node.min_items
       : keyword == "maxItems"      ? node.max_items
       : keyword == "minProperties" ? node.min_properties
                                    : node.max_properties) = *n;
      return true;
    }
    if (keyword == "pattern") {
      if (!value.is_string() || !EcmaRegex::same_in_pcre2(value.get<std::string>()))
        return refuse(where + ": a pattern valijson runs on std::regex");
      node.pattern = EcmaRegex::compile(value.get<std::string>(), nullptr);
      node.known_pattern = known_pattern(value.get<std::string>());
      node.uri_proof = known_pattern_uri_proof(value.get<std::string>());
      return node.pattern.has_value() || refuse(where + ": a pattern PCRE2 refuses");
    }
    if (keyword == "format") {
      if (value != "uri") return refuse(where + ": a format other than \"uri\"");
      node.uri = true;
      return true;
    }
    if (keyword == "items") {
      if (value.is_array()) return refuse(where + ": items as a list");
      node.items = node_for(value, document, where);
      return node.items >= 0;
    }
    if (keyword == "allOf") {
      if (!value.is_array() || value.empty()) return refuse(where + ": not a non-empty array");
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::int32_t member = node_for(value[i], document, where + "/" + std::to_string(i));
        if (member < 0) return false;
        node.all_of.push_back(member);
      }
      return true;
    }
    return refuse(where + ": a keyword this program does not run");
  }

  bool fill_type(Node& node, const Json& value, const std::string& where) {
    node.types = 0;
    const auto add = [&](const Json& name) {
      const std::uint8_t kind = name.is_string() ? kind_of_type_name(name.get<std::string>()) : 0;
      node.types |= kind;
      return kind != 0;
    };
    if (value.is_array()) {
      for (const Json& name : value)
        if (!add(name)) return refuse(where + ": a type that is not a simple type name");
      return true;
    }
    return add(value) || refuse(where + ": a type that is not a simple type name");
  }

  // properties, additionalProperties and required, which share the slots of one property table.
  bool fill_object(Node& node, const Json& schema, const Json& document, const std::string& where) {
    std::vector<std::string> names;
    if (const auto properties = schema.find("properties"); properties != schema.end()) {
      if (!properties->is_object()) return refuse(where + "/properties: not an object");
      for (const auto& [name, subschema] : properties->items()) {
        const std::int32_t target =
            node_for(subschema, document, where + "/properties/" + json_pointer_token(name));
        if (target < 0) return false;
        names.push_back(name);
        node.property_nodes.push_back(target);
      }
    }
    std::vector<std::size_t> required_slots;
    if (const auto required = schema.find("required"); required != schema.end()) {
      if (!required->is_array()) return refuse(where + "/required: not an array");
      for (const Json& name : *required) {
        if (!name.is_string()) return refuse(where + "/required: a name that is not a string");
        const auto known = std::find(names.begin(), names.end(), name.get<std::string>());
        required_slots.push_back(static_cast<std::size_t>(known - names.begin()));
        if (known == names.end()) {
          names.push_back(name.get<std::string>());
          node.property_nodes.push_back(-1);
        }
      }
    }
    if (names.size() > kMostProperties) return refuse(where + ": more than 64 properties and required names");
    for (const std::size_t slot : required_slots)
      node.required |= std::uint64_t{1} << slot;
    node.properties.build(std::move(names));
    if (const auto extra = schema.find("additionalProperties"); extra != schema.end()) {
      if (extra->is_boolean()) {
        node.extra = extra->get<bool>() ? Node::Extra::allowed : Node::Extra::forbidden;
      } else {
        node.extra = Node::Extra::schema;
        node.extra_node = node_for(*extra, document, where + "/additionalProperties");
        if (node.extra_node < 0) return false;
      }
    }
    return true;
  }

  const SchemaProgram::Lookup& lookup_;
  std::map<const Json*, std::int32_t> done_;
};

// ---- running it ----------------------------------------------------------------------------------------
// The same checks over two DOMs; each one's accessors say what a value is.

bool whole(double d) {
  return std::isfinite(d) && std::trunc(d) == d;
}

struct NlohmannDom {
  using Value = const Json&;
  // Members are looked up by name rather than iterated: a std::map's nodes are scattered, and the look-ups,
  // independent of each other, wait for memory side by side where an in-order walk waits node by node.
  static constexpr bool kFindByName = true;
  static const Json* member(Value v, std::string_view name) {
    const auto& object = v.get_ref<const Json::object_t&>();
    const auto found = object.find(name);
    return found == object.end() ? nullptr : &found->second;
  }
  static Kind kind(Value v, IntegerModel model) {
    switch (v.type()) {
      case Json::value_t::null:
        return kNull;
      case Json::value_t::boolean:
        return kBoolean;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
        return kInteger;
      case Json::value_t::number_float:
        return model == IntegerModel::value && whole(v.get<double>()) ? kInteger : kFraction;
      case Json::value_t::string:
        return kString;
      case Json::value_t::array:
        return kArray;
      case Json::value_t::object:
        return kObject;
      default:
        return Kind{0};
    }
  }
  static double number(Value v) { return v.get<double>(); }
  static std::string_view string(Value v) { return v.get_ref<const std::string&>(); }
  // nlohmann's parser validates UTF-8, but a document built in code need not be valid.
  static bool valid_utf8(std::string_view text) { return simdjson::validate_utf8(text.data(), text.size()); }
  static const Json::array_t& items(Value v) { return v.get_ref<const Json::array_t&>(); }
  static std::uint64_t size(Value v) { return v.size(); }  // an array's items or an object's members
  template <typename Fn>
  static bool all_members(Value v, Fn&& fn) {
    for (const auto& [key, member] : v.get_ref<const Json::object_t&>())
      if (!fn(std::string_view(key), member)) return false;
    return true;
  }
};

struct SimdjsonDom {
  using Value = simdjson::dom::element;
  static constexpr bool kFindByName = false;
  static const simdjson::dom::element* member(const Value&, std::string_view) { return nullptr; }
  static Kind kind(const Value& v, IntegerModel model) {
    switch (v.type()) {
      case simdjson::dom::element_type::NULL_VALUE:
        return kNull;
      case simdjson::dom::element_type::BOOL:
        return kBoolean;
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
        return kInteger;
      case simdjson::dom::element_type::DOUBLE:
        return model == IntegerModel::value && whole(v.get_double().value_unsafe()) ? kInteger : kFraction;
      case simdjson::dom::element_type::STRING:
        return kString;
      case simdjson::dom::element_type::ARRAY:
        return kArray;
      case simdjson::dom::element_type::OBJECT:
        return kObject;
    }
    return Kind{0};
  }
  static double number(const Value& v) {
    switch (v.type()) {
      case simdjson::dom::element_type::INT64:
        return static_cast<double>(v.get_int64().value_unsafe());
      case simdjson::dom::element_type::UINT64:
        return static_cast<double>(v.get_uint64().value_unsafe());
      default:
        return v.get_double().value_unsafe();
    }
  }
  static std::string_view string(const Value& v) { return v.get_string().value_unsafe(); }
  static bool valid_utf8(std::string_view) { return true; }  // simdjson validated the whole text
  static simdjson::dom::array items(const Value& v) { return v.get_array().value_unsafe(); }
  static std::uint64_t size(const Value& v) {
    return v.type() == simdjson::dom::element_type::ARRAY ? count_of(v.get_array().value_unsafe())
                                                          : count_of(v.get_object().value_unsafe());
  }
  template <typename Fn>
  static bool all_members(const Value& v, Fn&& fn) {
    const simdjson::dom::object object = v.get_object().value_unsafe();
    // By the iterator: the pair a range-for makes was copied through the stack in a way that stalled.
    for (auto field = object.begin(), end = object.end(); field != end; ++field)
      if (!fn(field.key(), field.value())) return false;
    return true;
  }
};

// The slots of the keys of the last object checked on this thread, in their order, and its node. Records come
// with their keys in one order, so the key at a place is most often the one the last record had there: one
// comparison confirms it, instead of a hash and a probe (those were a quarter of a record's check).
// Known by its program and node: a node of a program destroyed since may have had the same address.
struct KeyOrder {
  std::uint64_t program = 0;
  const Node* node = nullptr;
  std::uint64_t size = 0;
  std::array<std::int8_t, kMostProperties> slots{};  // -1: not a property
};
thread_local KeyOrder last_order;

template <typename Dom>
class Run {
 public:
  Run(const std::vector<Node>& nodes, std::uint64_t program, IntegerModel model)
      : nodes_(nodes), program_(program), model_(model) {}

  bool accepts(std::int32_t index, const typename Dom::Value& v) const {
    const Node& n = nodes_[static_cast<std::size_t>(index)];
    if (n.reject_all) return false;
    const Kind kind = Dom::kind(v, model_);
    if ((n.types & kind) == 0) return false;
    switch (kind) {
      case kInteger:
      case kFraction:
        if (n.number_checks && !number_ok(n, Dom::number(v))) return false;
        break;
      case kString:
        if (n.string_checks && !string_ok(n, Dom::string(v))) return false;
        break;
      case kArray:
        if (n.array_checks && !array_ok(n, v)) return false;
        break;
      case kObject:
        if (n.object_checks && !object_ok(n, v)) return false;
        break;
      default:
        break;
    }
    for (const std::int32_t member : n.all_of)
      if (!accepts(member, v)) return false;
    return true;
  }

 private:
  // As valijson compares: the value as a double against each bound.
  static bool number_ok(const Node& n, double value) {
    return (!n.minimum || value >= *n.minimum) && (!n.maximum || value <= *n.maximum) &&
           (!n.exclusive_minimum || value > *n.exclusive_minimum) &&
           (!n.exclusive_maximum || value < *n.exclusive_maximum);
  }

  static bool string_ok(const Node& n, std::string_view text) {
    // Code points never outnumber bytes, so most strings are judged by their size alone.
    if (text.size() > n.max_length || text.size() < n.min_length * 4) {
      const std::uint64_t length = code_points(text);
      if (length > n.max_length || length < n.min_length) return false;
    }
    if (n.pattern && !pattern_ok(n, text)) return false;
    // The image URL's format follows from its pattern, but for a bracketed host: is_uri was a sixth of the
    // record's check.
    if (n.uri_proof != nullptr && n.uri_proof(text)) return true;
    return !n.uri || is_uri(text);
  }

  static bool pattern_ok(const Node& n, std::string_view text) {
    if (!Dom::valid_utf8(text)) return n.pattern->search(text) == EcmaRegex::Outcome::match;
    if (n.known_pattern != nullptr) return n.known_pattern(text);
    return n.pattern->search_valid_utf8(text) == EcmaRegex::Outcome::match;
  }

  bool array_ok(const Node& n, const typename Dom::Value& v) const {
    const std::uint64_t size = Dom::size(v);
    if (size < n.min_items || size > n.max_items) return false;
    if (n.items < 0) return true;
    for (const auto& item : Dom::items(v))
      if (!accepts(n.items, item)) return false;
    return true;
  }

  // accepts, with the type of a member that has nothing else to check tested here, without the call.
  bool member_ok(std::int32_t index, const typename Dom::Value& v) const {
    const Node& n = nodes_[static_cast<std::size_t>(index)];
    return n.type_only ? (n.types & Dom::kind(v, model_)) != 0 : accepts(index, v);
  }

  bool object_ok(const Node& n, const typename Dom::Value& v) const {
    if constexpr (Dom::kFindByName) {
      if (n.extra != Node::Extra::schema) return object_by_name(n, v);
    }
    std::uint64_t seen = 0, members = 0;
    // The last object's slots when it was one of this node (copied: a member that is an object may take
    // last_order over), and this object's, for the next one.
    std::array<std::int8_t, kMostProperties> was, slots{};
    std::uint64_t was_size = 0;
    if (const KeyOrder& order = last_order; order.program == program_ && order.node == &n) {
      was = order.slots;
      was_size = order.size;
    }
    const bool each = Dom::all_members(v, [&](std::string_view key, const typename Dom::Value& member) {
      const std::uint64_t at = members++;
      // The slot the key at this place had, when it is this key's.
      std::int32_t slot = -1;
      if (at < was_size && was[at] >= 0 && n.properties.is(static_cast<std::size_t>(was[at]), key))
        slot = was[at];
      else
        slot = n.properties.find(key);
      if (at < kMostProperties) slots[at] = static_cast<std::int8_t>(slot);
      if (slot >= 0) {
        seen |= std::uint64_t{1} << slot;
        const std::int32_t target = n.property_nodes[static_cast<std::size_t>(slot)];
        if (target >= 0) return member_ok(target, member);
      }
      switch (n.extra) {
        case Node::Extra::allowed:
          return true;
        case Node::Extra::forbidden:
          return false;
        case Node::Extra::schema:
          return accepts(n.extra_node, member);
      }
      return false;
    });
    if (members <= kMostProperties) last_order = {program_, &n, members, slots};
    return each && (seen & n.required) == n.required && members >= n.min_properties &&
           members <= n.max_properties;
  }

 public:
  // object_ok's verdict on the root object (a node with object_checks and no allOf) whose members the caller
  // found: by_key[k] for each bit k of `present`, under the name of root slot slots[k], each name once.
  bool root_members_ok(std::span<const typename Dom::Value> by_key, std::uint32_t present,
                       std::span<const std::int8_t> slots) const {
    const Node& n = nodes_[0];
    std::uint64_t seen = 0;
    for (std::uint32_t rest = present; rest != 0; rest &= rest - 1) {
      const auto key = static_cast<std::size_t>(std::countr_zero(rest));
      const auto slot = static_cast<std::size_t>(slots[key]);
      seen |= std::uint64_t{1} << slot;
      const std::int32_t target = n.property_nodes[slot];
      if (target >= 0) {
        if (!member_ok(target, by_key[key])) return false;
      } else if (n.extra == Node::Extra::forbidden ||
                 (n.extra == Node::Extra::schema && !accepts(n.extra_node, by_key[key]))) {
        return false;  // a name only required is an additional property
      }
    }
    const auto members = static_cast<std::uint64_t>(std::popcount(present));
    return (seen & n.required) == n.required && members >= n.min_properties && members <= n.max_properties;
  }

 private:
  // The same verdict from the declared names (names are unique in such an object): every member found is
  // checked, and any member beyond them is an additional one. All are looked up before any is checked, so
  // the look-ups wait for memory together.
  bool object_by_name(const Node& n, const typename Dom::Value& v) const {
    std::array<const Json*, kMostProperties> members{};
    for (std::size_t slot = 0; slot < n.properties.size(); ++slot)
      members[slot] = Dom::member(v, n.properties.name(slot));
    std::uint64_t found = 0;
    for (std::size_t slot = 0; slot < n.properties.size(); ++slot) {
      const Json* member = members[slot];
      if (member == nullptr) {
        if ((n.required >> slot) & 1U) return false;
        continue;
      }
      ++found;
      const std::int32_t target = n.property_nodes[slot];
      if (target >= 0 ? !member_ok(target, *member) : n.extra == Node::Extra::forbidden) return false;
    }
    const std::uint64_t size = Dom::size(v);
    if (size > found && n.extra == Node::Extra::forbidden) return false;
    return size >= n.min_properties && size <= n.max_properties;
  }

  const std::vector<Node>& nodes_;
  std::uint64_t program_;  // SchemaProgram::Nodes::id
  IntegerModel model_;
};

}  // namespace

struct SchemaProgram::Nodes {
  std::vector<Node> nodes;  // the root is nodes[0]
  std::uint64_t id = 0;     // unique among the programs of the process, from 1
};

SchemaProgram::SchemaProgram(std::shared_ptr<const Nodes> nodes) : nodes_(std::move(nodes)) {}

std::optional<SchemaProgram> SchemaProgram::compile(const nlohmann::json& root, const Lookup& lookup,
                                                    std::string* why_not) {
  Compiler compiler(lookup);
  // The root is the first node made, so nodes[0].
  if (compiler.node_for(root, root, "") != 0 || !compiler.all_of_acyclic()) {
    if (why_not != nullptr) *why_not = compiler.why_not;
    return std::nullopt;
  }
  for (Node& n : compiler.nodes)
    n.type_only = !n.reject_all && !n.number_checks && !n.string_checks && !n.array_checks &&
                  !n.object_checks && n.all_of.empty();
  auto nodes = std::make_shared<Nodes>();
  nodes->nodes = std::move(compiler.nodes);
  static std::atomic<std::uint64_t> programs{0};
  nodes->id = ++programs;
  return SchemaProgram(std::move(nodes));
}

bool SchemaProgram::accepts(const nlohmann::json& doc, IntegerModel model) const {
  return Run<NlohmannDom>(nodes_->nodes, nodes_->id, model).accepts(0, doc);
}

bool SchemaProgram::accepts(simdjson::dom::element doc, IntegerModel model) const {
  return Run<SimdjsonDom>(nodes_->nodes, nodes_->id, model).accepts(0, doc);
}

std::int32_t SchemaProgram::root_slot(std::string_view name) const {
  return nodes_->nodes[0].properties.find(name);
}

bool SchemaProgram::accepts_members(simdjson::dom::element object,
                                    std::span<const simdjson::dom::element> by_key, std::uint32_t present,
                                    std::span<const std::int8_t> slots) const {
  const Node& root = nodes_->nodes[0];
  // The short way is for a plain object node; anything else (a root that rejects all, allOf) the long way.
  if (root.reject_all || (root.types & kObject) == 0 || !root.all_of.empty() ||
      object.type() != simdjson::dom::element_type::OBJECT)
    return accepts(object);
  return !root.object_checks || Run<SimdjsonDom>(nodes_->nodes, nodes_->id, IntegerModel::token)
                                    .root_members_ok(by_key, present, slots);
}

std::uint64_t code_points(std::string_view text) {
  std::uint64_t count = 0;
  for (const char c : text)
    count += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1U : 0U;
  return count;
}

}  // namespace entimg::common::detail

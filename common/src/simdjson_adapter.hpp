#pragma once
// A read-only valijson adapter over simdjson's DOM, so pages parsed by simdjson are validated without a
// copy into nlohmann::json. valijson sees through it what it sees through its own nlohmann adapter for the
// same text: int64 and uint64 are integers and doubles are doubles (strong types), strings are read by
// length; but an integer above INT64_MAX, which valijson's int64_t would wrap negative, is also a double
// of its value, the reading valijson's bounds take first (schema.cpp has valijson read nlohmann::json
// through this adapter too). One difference: simdjson's DOM keeps every member of an object with a repeated
// key, and so does this view (find gives the first), where nlohmann's parser keeps only the last; such texts
// must reach valijson through nlohmann (contract/page/json_parse.hpp takes them that way). Deduplicating here
// cost a quarter of the validation time. The element's document must outlive the adapter. Include this header
// after schema.cpp has set VALIJSON_USE_EXCEPTIONS.
#ifndef VALIJSON_USE_EXCEPTIONS
#error "define VALIJSON_USE_EXCEPTIONS as schema.cpp does before including simdjson_adapter.hpp"
#endif

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include <simdjson.h>
#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/internal/adapter.hpp>
#include <valijson/internal/basic_adapter.hpp>
#include <valijson/internal/frozen_value.hpp>

#include "entimg/common/json_dom.hpp"

namespace entimg::common::detail {

class SimdjsonAdapter;
class SimdjsonArrayIterator;
class SimdjsonObjectMemberIterator;

// valijson's visitor builds messages and looks up sets with the key, so it must be a std::string.
using SimdjsonObjectMember = std::pair<std::string, SimdjsonAdapter>;

// The empty array and object valijson's interface wants from a default-constructed value or container.
inline simdjson::dom::element empty_container(std::size_t index) {
  static constexpr std::string_view kText = "[[],{}]";
  static simdjson::dom::parser parser;
  static const simdjson::dom::array both = parser.parse(kText.data(), kText.size()).get_array().value();
  return both.at(index).value();
}

/// A simdjson array as valijson iterates it.
class SimdjsonArray {
 public:
  using const_iterator = SimdjsonArrayIterator;
  using iterator = SimdjsonArrayIterator;

  SimdjsonArray() : array_(empty_container(0).get_array().value_unsafe()) {}
  explicit SimdjsonArray(simdjson::dom::array array) : array_(array) {}

  SimdjsonArrayIterator begin() const;
  SimdjsonArrayIterator end() const;
  std::size_t size() const;

 private:
  simdjson::dom::array array_;
};

/// A simdjson object as valijson iterates and searches it.
class SimdjsonObject {
 public:
  using const_iterator = SimdjsonObjectMemberIterator;
  using iterator = SimdjsonObjectMemberIterator;

  SimdjsonObject() : object_(empty_container(1).get_object().value_unsafe()) {}
  explicit SimdjsonObject(simdjson::dom::object object) : object_(object) {}

  SimdjsonObjectMemberIterator begin() const;
  SimdjsonObjectMemberIterator end() const;
  /// The first member named key, or end(). A linear scan: records have 15 keys.
  SimdjsonObjectMemberIterator find(std::string_view key) const;
  std::size_t size() const;

 private:
  simdjson::dom::object object_;
};

/// How valijson's BasicAdapter reads one simdjson value.
class SimdjsonValue {
 public:
  SimdjsonValue() : element_(empty_container(1)) {}
  explicit SimdjsonValue(simdjson::dom::element element) : element_(element) {}

  valijson::adapters::FrozenValue* freeze() const {
    return new valijson::adapters::NlohmannJsonFrozenValue(common::to_nlohmann(element_));
  }

  opt::optional<SimdjsonArray> getArrayOptional() const {
    if (!isArray()) return {};
    return SimdjsonArray(element_.get_array().value_unsafe());
  }

  bool getArraySize(std::size_t& result) const {
    if (!isArray()) return false;
    result = SimdjsonArray(element_.get_array().value_unsafe()).size();
    return true;
  }

  bool getBool(bool& result) const {
    if (!isBool()) return false;
    result = element_.get_bool().value_unsafe();
    return true;
  }

  bool getDouble(double& result) const {
    if (element_.type() == simdjson::dom::element_type::DOUBLE) {
      result = element_.get_double().value_unsafe();
      return true;
    }
    if (!above_int64()) return false;
    result = static_cast<double>(element_.get_uint64().value_unsafe());
    return true;
  }

  bool getInteger(std::int64_t& result) const {
    switch (element_.type()) {
      case simdjson::dom::element_type::INT64:
        result = element_.get_int64().value_unsafe();
        return true;
      case simdjson::dom::element_type::UINT64:
        // Wraps above INT64_MAX, as nlohmann's get<int64_t>() does; valijson's bounds read such a value
        // through getDouble instead (isDouble is true for it).
        result = static_cast<std::int64_t>(element_.get_uint64().value_unsafe());
        return true;
      default:
        return false;
    }
  }

  opt::optional<SimdjsonObject> getObjectOptional() const {
    if (!isObject()) return {};
    return SimdjsonObject(element_.get_object().value_unsafe());
  }

  bool getObjectSize(std::size_t& result) const {
    if (!isObject()) return false;
    result = SimdjsonObject(element_.get_object().value_unsafe()).size();
    return true;
  }

  bool getString(std::string& result) const {
    if (!isString()) return false;
    result.assign(element_.get_string().value_unsafe());  // by length: an escaped NUL stays in
    return true;
  }

  static bool hasStrictTypes() { return true; }

  bool isArray() const { return element_.type() == simdjson::dom::element_type::ARRAY; }
  bool isBool() const { return element_.type() == simdjson::dom::element_type::BOOL; }
  bool isDouble() const { return element_.type() == simdjson::dom::element_type::DOUBLE || above_int64(); }
  bool isInteger() const {
    const auto type = element_.type();
    return type == simdjson::dom::element_type::INT64 || type == simdjson::dom::element_type::UINT64;
  }
  bool isNull() const { return element_.type() == simdjson::dom::element_type::NULL_VALUE; }
  bool isNumber() const { return isInteger() || isDouble(); }
  bool isObject() const { return element_.type() == simdjson::dom::element_type::OBJECT; }
  bool isString() const { return element_.type() == simdjson::dom::element_type::STRING; }

 private:
  bool above_int64() const {
    return element_.type() == simdjson::dom::element_type::UINT64 &&
           element_.get_uint64().value_unsafe() > static_cast<std::uint64_t>(INT64_MAX);
  }
  simdjson::dom::element element_;
};

/// The adapter handed to valijson's Validator::validate.
class SimdjsonAdapter
    : public valijson::adapters::BasicAdapter<SimdjsonAdapter, SimdjsonArray, SimdjsonObjectMember,
                                              SimdjsonObject, SimdjsonValue> {
 public:
  SimdjsonAdapter() = default;
  explicit SimdjsonAdapter(simdjson::dom::element element) : BasicAdapter(SimdjsonValue(element)) {}
};

/// Bidirectional, as valijson's uniqueItems steps back from end(); stepping back walks from the start.
class SimdjsonArrayIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = SimdjsonAdapter;
  using difference_type = std::ptrdiff_t;
  using pointer = SimdjsonAdapter*;
  using reference = SimdjsonAdapter&;

  SimdjsonArrayIterator(simdjson::dom::array array, simdjson::dom::array::iterator at)
      : array_(array), at_(at) {}

  SimdjsonAdapter operator*() const { return SimdjsonAdapter(*at_); }
  valijson::adapters::DerefProxy<SimdjsonAdapter> operator->() const {
    return valijson::adapters::DerefProxy<SimdjsonAdapter>(**this);
  }

  bool operator==(const SimdjsonArrayIterator& other) const { return at_ == other.at_; }
  bool operator!=(const SimdjsonArrayIterator& other) const { return !(*this == other); }

  SimdjsonArrayIterator& operator++() {
    ++at_;
    return *this;
  }
  SimdjsonArrayIterator operator++(int) {
    SimdjsonArrayIterator before = *this;
    ++at_;
    return before;
  }
  SimdjsonArrayIterator& operator--() {
    auto previous = array_.begin();
    for (auto at = previous; at != at_; ++at)
      previous = at;
    at_ = previous;
    return *this;
  }
  void advance(std::ptrdiff_t n) {
    for (; n > 0; --n)
      ++at_;
    for (; n < 0; ++n)
      --*this;
  }

 private:
  simdjson::dom::array array_;
  simdjson::dom::array::iterator at_;
};

/// Bidirectional, as nlohmann's is; stepping back walks from the start.
class SimdjsonObjectMemberIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = SimdjsonObjectMember;
  using difference_type = std::ptrdiff_t;
  using pointer = SimdjsonObjectMember*;
  using reference = SimdjsonObjectMember&;

  SimdjsonObjectMemberIterator(simdjson::dom::object object, simdjson::dom::object::iterator at)
      : object_(object), at_(at) {}

  SimdjsonObjectMember operator*() const { return {std::string(at_.key()), SimdjsonAdapter(at_.value())}; }
  valijson::adapters::DerefProxy<SimdjsonObjectMember> operator->() const {
    return valijson::adapters::DerefProxy<SimdjsonObjectMember>(**this);
  }

  bool operator==(const SimdjsonObjectMemberIterator& other) const { return at_ == other.at_; }
  bool operator!=(const SimdjsonObjectMemberIterator& other) const { return !(*this == other); }

  SimdjsonObjectMemberIterator& operator++() {
    ++at_;
    return *this;
  }
  SimdjsonObjectMemberIterator operator++(int) {
    SimdjsonObjectMemberIterator before = *this;
    ++at_;
    return before;
  }
  SimdjsonObjectMemberIterator& operator--() {
    auto previous = object_.begin();
    for (auto at = previous; at != at_; ++at)
      previous = at;
    at_ = previous;
    return *this;
  }

 private:
  simdjson::dom::object object_;
  simdjson::dom::object::iterator at_;
};

inline SimdjsonArrayIterator SimdjsonArray::begin() const {
  return {array_, array_.begin()};
}

inline SimdjsonArrayIterator SimdjsonArray::end() const {
  return {array_, array_.end()};
}

inline std::size_t SimdjsonArray::size() const {
  return count_of(array_);
}

inline SimdjsonObjectMemberIterator SimdjsonObject::begin() const {
  return {object_, object_.begin()};
}

inline SimdjsonObjectMemberIterator SimdjsonObject::end() const {
  return {object_, object_.end()};
}

inline SimdjsonObjectMemberIterator SimdjsonObject::find(std::string_view key) const {
  const auto end = object_.end();
  auto at = object_.begin();
  while (at != end && at.key() != key)
    ++at;
  return {object_, at};
}

inline std::size_t SimdjsonObject::size() const {
  return count_of(object_);
}

}  // namespace entimg::common::detail

namespace valijson::adapters {

template <>
struct AdapterTraits<entimg::common::detail::SimdjsonAdapter> {
  using DocumentType = simdjson::dom::element;
  static std::string adapterName() { return "SimdjsonAdapter"; }
};

}  // namespace valijson::adapters

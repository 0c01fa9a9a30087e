#include "entimg/common/json_dom.hpp"

#include <cstdint>
#include <string>

namespace entimg::common {

using Json = nlohmann::json;
using simdjson::dom::element;
using simdjson::dom::element_type;

// The containers are copied out of their simdjson_result first: value_unsafe() of a temporary refers
// into it, so a range-for over it would dangle.
Json to_nlohmann(element value) {
  switch (value.type()) {
    case element_type::OBJECT: {
      Json out = Json::object();
      auto& members = out.get_ref<Json::object_t&>();
      const simdjson::dom::object object = value.get_object().value_unsafe();
      for (const auto field : object)
        members.insert_or_assign(std::string(field.key), to_nlohmann(field.value));
      return out;
    }
    case element_type::ARRAY:
      return to_nlohmann(value.get_array().value_unsafe());
    case element_type::STRING:
      return Json(std::string(value.get_string().value_unsafe()));
    case element_type::INT64: {
      const std::int64_t n = value.get_int64().value_unsafe();
      return n >= 0 ? Json(static_cast<std::uint64_t>(n)) : Json(n);
    }
    case element_type::UINT64:
      return Json(value.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return Json(value.get_double().value_unsafe());
    case element_type::BOOL:
      return Json(value.get_bool().value_unsafe());
    case element_type::NULL_VALUE:
      break;
  }
  return Json(nullptr);
}

namespace {

constexpr std::size_t kSaturatedCount = 0xFFFFFF;

template <typename Container>
std::size_t counted(Container container) {
  std::size_t count = container.size();
  if (count < kSaturatedCount) return count;
  count = 0;
  for (auto at = container.begin(); at != container.end(); ++at)
    ++count;
  return count;
}

}  // namespace

std::size_t count_of(simdjson::dom::array values) {
  return counted(values);
}

std::size_t count_of(simdjson::dom::object members) {
  return counted(members);
}

Json to_nlohmann(simdjson::dom::array values) {
  Json out = Json::array();
  auto& items = out.get_ref<Json::array_t&>();
  items.reserve(count_of(values));
  for (const element item : values)
    items.push_back(to_nlohmann(item));
  return out;
}

}  // namespace entimg::common

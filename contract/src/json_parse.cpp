#include "json_parse.hpp"

#include <cstdint>

#include <simdjson.h>

namespace entimg::contract::detail {
namespace {

using Json = nlohmann::json;

Json convert(simdjson::dom::element element) {
  switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
      Json out = Json::object();
      auto& members = out.get_ref<Json::object_t&>();
      const simdjson::dom::object object = element.get_object().value_unsafe();
      // insert_or_assign: of duplicate keys the last one wins, as in nlohmann's parser.
      for (const auto field : object)
        members.insert_or_assign(std::string(field.key), convert(field.value));
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      Json out = Json::array();
      auto& items = out.get_ref<Json::array_t&>();
      const simdjson::dom::array array = element.get_array().value_unsafe();
      items.reserve(array.size());
      for (const auto item : array)
        items.push_back(convert(item));
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return Json(std::string(element.get_string().value_unsafe()));
    case simdjson::dom::element_type::INT64: {
      // nlohmann keeps integers written without a sign as unsigned.
      const std::int64_t value = element.get_int64().value_unsafe();
      return value >= 0 ? Json(static_cast<std::uint64_t>(value)) : Json(value);
    }
    case simdjson::dom::element_type::UINT64:
      return Json(element.get_uint64().value_unsafe());
    case simdjson::dom::element_type::DOUBLE:
      return Json(element.get_double().value_unsafe());
    case simdjson::dom::element_type::BOOL:
      return Json(element.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return Json(nullptr);
}

}  // namespace

Json parse_json(const std::string& text) {
  // A parser keeps its buffers between documents; one per thread, as the walk parses on several.
  thread_local simdjson::dom::parser parser;
  const auto parsed = parser.parse(text);
  if (parsed.error() != simdjson::SUCCESS) return Json::parse(text);
  return convert(parsed.value_unsafe());
}

}  // namespace entimg::contract::detail

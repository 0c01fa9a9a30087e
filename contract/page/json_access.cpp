#include "json_access.hpp"

#include "entimg/common/json_pointer.hpp"
#include "json_parse.hpp"

namespace entimg::contract::detail {

using simdjson::dom::element_type;

std::optional<Json> body_object(const Page& page) {
  if (page.exchange.status != 200 || !page.json || !page.json->is_object()) return std::nullopt;
  return *page.json;
}

std::optional<JsonArray> results_array(const Page& page) {
  const auto body = body_object(page);
  if (!body) return std::nullopt;
  const auto results = member(*body, "results");
  if (!results || results->type() != element_type::ARRAY) return std::nullopt;
  return results->get_array().value_unsafe();
}

std::optional<RecordRange> result_records(const Page& page) {
  const auto results = results_array(page);
  if (!results) return std::nullopt;
  return RecordRange(page.json_records, *results, count_of(*results));
}

std::optional<std::uint64_t> as_count(std::optional<Json> value) {
  if (!value) return std::nullopt;
  if (value->type() == element_type::UINT64) return value->get_uint64().value_unsafe();
  if (value->type() == element_type::INT64 && value->get_int64().value_unsafe() >= 0)
    return static_cast<std::uint64_t>(value->get_int64().value_unsafe());
  return std::nullopt;
}

Json last_item(JsonArray array) {
  Json last;
  for (const Json item : array)
    last = item;
  return last;
}

Json last_result(const Page& page, JsonArray results) {
  const std::size_t size = count_of(results);
  return size > 0 && page.json_records.size() == size ? page.json_records.back().record : last_item(results);
}

bool is_integer(Json value) {
  return value.type() == element_type::INT64 || value.type() == element_type::UINT64;
}

std::string pointer_token(std::string_view key) {
  return common::json_pointer_token(key);
}

std::string record_pointer(std::size_t index, std::string_view key) {
  std::string out = "/results/" + std::to_string(index);
  if (!key.empty()) out += "/" + pointer_token(key);
  return out;
}

std::string integer_text(std::optional<Json> value) {
  if (!value || !is_integer(*value)) return "";
  if (value->type() == simdjson::dom::element_type::INT64)
    return std::to_string(value->get_int64().value_unsafe());
  return std::to_string(value->get_uint64().value_unsafe());
}

}  // namespace entimg::contract::detail

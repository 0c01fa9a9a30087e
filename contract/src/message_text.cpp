#include "message_text.hpp"

#include "entimg/common/ascii.hpp"
#include "json_parse.hpp"

namespace entimg::contract::detail {

namespace {

std::string cut_utf8(std::string text, std::size_t max) {
  return common::utf8_cut(std::move(text), max, "…");
}

}  // namespace

std::string describe(const nlohmann::json& value) {
  using Kind = nlohmann::json::value_t;
  switch (value.type()) {
    case Kind::object:
      return "an object of " + std::to_string(value.size()) + " keys";
    case Kind::array:
      return "an array of " + std::to_string(value.size()) + " items";
    case Kind::string:
      return cut_utf8(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 80);
    case Kind::discarded:
      return "nothing";
    default:
      return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

std::string describe(Json value) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT:
      return "an object of " + std::to_string(count_of(value.get_object().value_unsafe())) + " keys";
    case simdjson::dom::element_type::ARRAY:
      return "an array of " + std::to_string(count_of(value.get_array().value_unsafe())) + " items";
    default:
      return describe(to_nlohmann(value));
  }
}

std::string quote(std::string_view text) {
  return "\"" + cut_utf8(common::utf8_replace_invalid(text), 120) + "\"";
}

}  // namespace entimg::contract::detail

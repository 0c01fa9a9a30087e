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

std::string ids_text(const std::vector<std::int64_t>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 6; ++i)
    out += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 6) out += ", …";
  return out.empty() ? "none" : out;
}

// Iterative, a few levels deep: pages nest three levels, and servers may send deeper values.
std::string first_difference(const nlohmann::json& x_in, const nlohmann::json& y_in, std::string& pointer) {
  using NJson = nlohmann::json;
  const NJson* x = &x_in;
  const NJson* y = &y_in;
  for (int depth = 0; depth < 8; ++depth) {
    if (x->is_array() && y->is_array()) {
      std::size_t i = 0;
      while (i < x->size() && i < y->size() && (*x)[i] == (*y)[i])
        ++i;
      if (i >= x->size() || i >= y->size()) break;  // one is a prefix of the other: lengths differ
      pointer += "/" + std::to_string(i);
      x = &(*x)[i];
      y = &(*y)[i];
    } else if (x->is_object() && y->is_object()) {
      const NJson* next_x = nullptr;
      const NJson* next_y = nullptr;
      for (auto it = x->begin(); it != x->end() && next_x == nullptr; ++it) {
        const auto other = y->find(it.key());
        if (other != y->end() && *other != *it) {
          pointer += "/" + pointer_token(it.key());
          next_x = &*it;
          next_y = &*other;
        }
      }
      if (next_x == nullptr) break;  // the key sets differ
      x = next_x;
      y = next_y;
    } else {
      break;
    }
  }
  return describe(*x) + " vs " + describe(*y);
}

}  // namespace entimg::contract::detail

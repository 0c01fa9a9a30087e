#pragma once
// simdjson's DOM, which the suite reads pages into, as nlohmann::json for the places that build, edit or
// compare whole values (messages, snapshots, valijson's frozen values).
#include <simdjson.h>
#include <cstddef>

#include <nlohmann/json.hpp>

namespace entimg::common {

/// The value as nlohmann::json::parse would have made it: integers written without a sign are
/// unsigned, other integers signed, the rest doubles; of repeated keys the last one wins.
nlohmann::json to_nlohmann(simdjson::dom::element value);
nlohmann::json to_nlohmann(simdjson::dom::array values);

/// The items of an array, the members of an object. simdjson's own size() stops at 0xFFFFFF (a body of
/// 34 MB can hold more); past that they are counted.
std::size_t count_of(simdjson::dom::array values);
std::size_t count_of(simdjson::dom::object members);

}  // namespace entimg::common

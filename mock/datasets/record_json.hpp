#pragma once
// Records as JSON objects, the way dataset files hold them (spec §2.1's fields; `image` is not stored).
#include <nlohmann/json.hpp>
#include <string>

#include "entimg/mock/record.hpp"

namespace entimg::mock::detail {

/// "" when `obj` is a record a dataset file may hold, else the problem ("field \"id\" must be ...").
std::string check_record_json(const nlohmann::json& obj);
/// The record of an object check_record_json accepted.
Record record_from_json(const nlohmann::json& obj);
/// The stored fields of a record, without `image`.
nlohmann::json record_to_json(const Record& record);

}  // namespace entimg::mock::detail

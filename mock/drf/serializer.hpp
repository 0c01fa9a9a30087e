#pragma once
// edw's EntityImageSerializer as DRF runs it (reference §2.1, §3.4, §3.6): a record's fields in the
// serializer's order, the fields as OPTIONS describes them, and the validation of an upload's request.data.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include "entimg/mock/live_dataset.hpp"
#include "entimg/mock/record.hpp"
#include "json_writer.hpp"
#include "multipart.hpp"

namespace entimg::mock::detail {

/// What each record's `image` takes from the request: its origin and MEDIA_URL ("http://host/media/"),
/// made once a page, as it is and as it stands inside a JSON string.
class MediaPrefix {
 public:
  explicit MediaPrefix(std::string_view origin);
  const std::string& text() const { return text_; }
  const std::string& json() const { return json_; }

 private:
  std::string text_, json_;
};

/// to_representation: the 15 fields, `image` the absolute URL under `media` (null for no file). Compact
/// output is written in one piece, without a per-field call into the writer.
void write_record(JsonWriter& w, const RecordView& r, const MediaPrefix& media);
inline void write_record(JsonWriter& w, const Record& r, const MediaPrefix& media) {
  write_record(w, view_of(r), media);
}

/// SimpleMetadata's "actions": {"POST": {…}} (or "PUT" on the detail route): one entry a serializer
/// field, as DRF 3.14 describes them; the same serializer describes both.
void write_actions(JsonWriter& w, std::string_view method = "POST");

// One value of request.data as a serializer field meets it: from a form (text or an uploaded file) or
// from a JSON body (any JSON value).
struct DataValue {
  enum class Kind { Absent, Null, Text, File, Integer, Float, Bool, List, Dict } kind = Kind::Absent;
  std::string text;                     ///< Text; Python's str() of a number or bool
  const MultipartPart* file = nullptr;  ///< File
  std::int64_t integer = 0;             ///< Integer (Float: truncated, as int() does)
  bool from_form = false;               ///< an HTML form value: a blank one means "not given"
  bool beyond = false;                  ///< Float: outside the 64-bit range (`integer` unset)
};

// request.data as DRF builds it: a QueryDict of form fields then files (a name's last value wins), or
// the parsed JSON body.
class RequestData {
 public:
  std::vector<std::pair<std::string, DataValue>> form;
  std::optional<nlohmann::json> json;

  DataValue get(std::string_view name) const;

 private:
  static DataValue from_json(const nlohmann::json& v);
};

/// What is_valid() makes of request.data: the errors DRF lists, or the validated fields.
struct ValidatedUpload {
  bool fails = false;  ///< `image` is neither a file nor missing nor null: Django's 500 page (reference §3.5)
  std::vector<std::pair<std::string, std::string>> errors;  ///< (field, message), in the serializer's order
  const MultipartPart* image = nullptr;
  std::optional<std::int64_t> order, key;
  std::int64_t entity = 0;
};

/// Validates the fields in the serializer's order (image, order, key, entity); `entity` must be one
/// `dataset` has.
ValidatedUpload validate_upload(const RequestData& data, const LiveDataset& dataset);

}  // namespace entimg::mock::detail

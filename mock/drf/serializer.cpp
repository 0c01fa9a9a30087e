#include "serializer.hpp"

#include <charconv>
#include <cstring>

#include "filer_names.hpp"
#include "python_number.hpp"

namespace entimg::mock::detail {
namespace {

// The bounds of the integer columns a user may set, as Django derives them from a deployment's database
// (SmallIntegerField `order`, IntegerField `key`): DRF validates them and OPTIONS lists them.
constexpr std::int64_t kOrderMin = -32768, kOrderMax = 32767;
constexpr std::int64_t kKeyMin = -2147483648LL, kKeyMax = 2147483647LL;

using Errors = std::vector<std::pair<std::string, std::string>>;

// DRF's IntegerField.to_internal_value: int() of str(value) after dropping a ".0" tail; then the model
// column's bounds as Django derives them from a deployment's database (reference §1.6: order is a
// SmallIntegerField, key an IntegerField).
struct IntegerOutcome {
  std::optional<std::int64_t> value;
  std::optional<std::string> error;
};

IntegerOutcome integer_field(const DataValue& v, std::int64_t min, std::int64_t max) {
  using K = DataValue::Kind;
  const auto bounded = [&](bool negative, bool beyond, std::int64_t n) -> IntegerOutcome {
    if (!negative && (beyond || n > max))
      return {{}, "Ensure this value is less than or equal to " + std::to_string(max) + "."};
    if (negative && (beyond || n < min))
      return {{}, "Ensure this value is greater than or equal to " + std::to_string(min) + "."};
    return {n, {}};
  };
  if (v.kind == K::Integer) return bounded(v.integer < 0, false, v.integer);
  if (v.kind == K::List || v.kind == K::Dict || v.kind == K::Bool)
    return {{}, "A valid integer is required."};
  std::string text = v.text;
  if (text.size() > 1000) return {{}, "String value too large."};
  if (const auto dot = text.rfind('.'); dot != std::string::npos) {  // re_decimal: \.0*\s*$
    std::size_t k = dot + 1;
    while (k < text.size() && text[k] == '0')
      ++k;
    if (text.find_first_not_of(" \t\n\r\f\v", k) == std::string::npos) text.erase(dot);
  }
  const auto parsed = parse_python_int(text);
  if (!parsed) return {{}, "A valid integer is required."};
  const std::optional<std::int64_t> n = as_int64(*parsed);
  return bounded(parsed->negative && (!n || *n != 0), !n, n.value_or(0));
}

// An optional IntegerField (`order`, `key`): absent or blank in a form leaves the default (or None).
void optional_integer(const RequestData& data, std::string_view name, bool nullable, std::int64_t min,
                      std::int64_t max, Errors& errors, std::optional<std::int64_t>& out) {
  using K = DataValue::Kind;
  const DataValue v = data.get(name);
  if (v.kind == K::Absent || (v.from_form && v.text.empty())) return;  // the default (or None)
  if (v.kind == K::Null) {
    if (!nullable) errors.emplace_back(std::string(name), "This field may not be null.");
    return;
  }
  const IntegerOutcome outcome = integer_field(v, min, max);
  if (outcome.error) errors.emplace_back(std::string(name), *outcome.error);
  out = outcome.value;
}

// PrimaryKeyRelatedField(queryset=Entity.objects.all()): '' is None; bools and containers are the wrong
// type; otherwise Python's int() of the value must name an entity that exists.
void entity_field(const DataValue& e, const LiveDataset& dataset, Errors& errors, std::int64_t& entity) {
  using K = DataValue::Kind;
  if (e.kind == K::Absent) {
    errors.emplace_back("entity", "This field is required.");
  } else if (e.kind == K::Null || (e.kind == K::Text && e.text.empty())) {
    errors.emplace_back("entity", "This field may not be null.");
  } else if (e.kind == K::Bool || e.kind == K::List || e.kind == K::Dict) {
    errors.emplace_back("entity", std::string("Incorrect type. Expected pk value, received ") +
                                      (e.kind == K::Bool   ? "bool"
                                       : e.kind == K::List ? "list"
                                                           : "dict") +
                                      ".");
  } else {
    std::optional<std::int64_t> pk;
    bool wrong_type = false;
    if (e.kind == K::Integer || (e.kind == K::Float && !e.beyond)) {
      pk = e.integer;
    } else if (e.kind == K::Float) {
      pk = std::nullopt;  // int() of it names no entity
    } else if (const auto parsed = parse_python_int(e.text); !parsed) {
      wrong_type = true;
    } else {
      pk = as_int64(*parsed);
    }
    if (wrong_type)
      errors.emplace_back("entity", "Incorrect type. Expected pk value, received str.");
    else if (!pk || !dataset.has_entity(*pk))
      errors.emplace_back("entity", "Invalid pk \"" + e.text + "\" - object does not exist.");
    else
      entity = *pk;
  }
}

// Python's type(data).__name__ for a JSON body that is not an object.
std::string json_type_name(const nlohmann::json& v) {
  return v.is_array()          ? "list"
         : v.is_string()       ? "str"
         : v.is_boolean()      ? "bool"
         : v.is_number_float() ? "float"
         : v.is_null()         ? "NoneType"
                               : "int";
}

}  // namespace

namespace {

// to_representation's fields in the serializer's order, for each way of writing a record: one list.
template <typename Fields>
void each_field(const RecordView& r, Fields& f) {
  f.integer("id", r.id);
  f.image("image", r.file);
  f.string("file", r.file);
  f.nullable_string("original_filename", r.original_filename);
  f.integer("file_size", r.file_size);
  f.string("author", r.author);
  f.string("name", r.name);
  f.string("default_caption", r.default_caption);
  f.string("alt", r.alt);
  f.string("description", r.description);
  f.string("subject_location", r.subject_location);
  f.string("mime_type", r.mime_type);
  f.integer("order", r.order);
  f.nullable_integer("key", r.key);
  f.integer("entity", r.entity);
}

// Through the writer, in any layout.
struct WriterFields {
  JsonWriter& w;
  const MediaPrefix& media;
  std::string scratch;

  void integer(std::string_view key, std::int64_t v) {
    w.key(key);
    w.integer(v);
  }
  void nullable_integer(std::string_view key, const std::optional<std::int64_t>& v) {
    w.key(key);
    w.nullable_integer(v);
  }
  void string(std::string_view key, std::string_view v) {
    w.key(key);
    w.string(v);
  }
  void nullable_string(std::string_view key, const std::optional<std::string_view>& v) {
    w.key(key);
    v ? w.string(*v) : w.null();
  }
  void image(std::string_view key, std::string_view file) {
    w.key(key);
    if (file.empty()) return w.null();  // DRF's FileField renders an empty file as null
    scratch.assign(media.text());
    append_filepath_uri(scratch, file);
    w.string(scratch);
  }
};

constexpr std::size_t kIntegerBound = 20;  // "-9223372036854775808"

// The most bytes the compact record takes: what CursorFields may write (the very bytes, for plain text).
struct SizeFields {
  const MediaPrefix& media;
  bool plain;
  std::size_t bytes = 1;  // the closing brace

  std::size_t text(std::size_t n) const { return plain ? n + 2 : json_string_bound(n); }

  template <std::size_t N>
  void member(const char (&)[N], std::size_t value) {
    bytes += N + 3 + value;  // ,"key": then the value
  }
  template <std::size_t N>
  void integer(const char (&key)[N], std::int64_t) {
    member(key, kIntegerBound);
  }
  template <std::size_t N>
  void nullable_integer(const char (&key)[N], const std::optional<std::int64_t>&) {
    member(key, kIntegerBound);
  }
  template <std::size_t N>
  void string(const char (&key)[N], std::string_view v) {
    member(key, text(v.size()));
  }
  template <std::size_t N>
  void nullable_string(const char (&key)[N], const std::optional<std::string_view>& v) {
    member(key, v ? text(v->size()) : 4);
  }
  template <std::size_t N>
  void image(const char (&key)[N], std::string_view file) {
    member(key, 2 + media.json().size() + (plain ? file.size() : filepath_uri_bound(file.size())));
  }
};

// Straight into memory SizeFields measured: keys are constants, text is copied whole where it needs no
// escaping (all of it, where the dataset promises so), the media prefix was escaped once for the page.
struct CursorFields {
  char* at;
  const MediaPrefix& media;
  bool plain;
  char separator = '{';

  template <std::size_t N>
  void key(const char (&name)[N]) {
    *at++ = separator;
    separator = ',';
    *at++ = '"';
    std::memcpy(at, name, N - 1);
    at += N - 1;
    *at++ = '"';
    *at++ = ':';
  }
  void number(std::int64_t v) { at = std::to_chars(at, at + kIntegerBound, v).ptr; }
  void null() {
    std::memcpy(at, "null", 4);
    at += 4;
  }
  void text(std::string_view v) {
    if (!plain) {
      at = write_json_string(at, v);
      return;
    }
    *at++ = '"';
    if (!v.empty()) std::memcpy(at, v.data(), v.size());  // an empty view's data may be null
    at += v.size();
    *at++ = '"';
  }
  template <std::size_t N>
  void integer(const char (&name)[N], std::int64_t v) {
    key(name);
    number(v);
  }
  template <std::size_t N>
  void nullable_integer(const char (&name)[N], const std::optional<std::int64_t>& v) {
    key(name);
    v ? number(*v) : null();
  }
  template <std::size_t N>
  void string(const char (&name)[N], std::string_view v) {
    key(name);
    text(v);
  }
  template <std::size_t N>
  void nullable_string(const char (&name)[N], const std::optional<std::string_view>& v) {
    key(name);
    if (v)
      text(*v);
    else
      null();
  }
  template <std::size_t N>
  void image(const char (&name)[N], std::string_view file) {
    key(name);
    if (file.empty()) return null();
    *at++ = '"';
    std::memcpy(at, media.json().data(), media.json().size());
    at += media.json().size();
    if (plain) {
      std::memcpy(at, file.data(), file.size());
      at += file.size();
    } else {
      at = write_filepath_uri(at, file);  // letters, digits and "%-._~/!*()'" only: nothing to escape
    }
    *at++ = '"';
  }
};

}  // namespace

MediaPrefix::MediaPrefix(std::string_view origin) : text_(std::string(origin) + "/media/") {
  json_.resize(json_string_bound(text_.size()));
  json_.resize(static_cast<std::size_t>(write_json_string_content(json_.data(), text_) - json_.data()));
}

void write_record(JsonWriter& w, const RecordView& r, const MediaPrefix& media) {
  if (!w.compact()) {
    w.begin_object();
    WriterFields fields{w, media, {}};
    each_field(r, fields);
    w.end_object();
    return;
  }
  SizeFields size{media, r.plain};
  each_field(r, size);
  std::string& out = w.raw_value();
  const std::size_t start = out.size();
  out.resize(start + size.bytes);
  CursorFields fields{out.data() + start, media, r.plain};
  each_field(r, fields);
  *fields.at++ = '}';
  out.resize(static_cast<std::size_t>(fields.at - out.data()));
}

// SimpleMetadata (reference §3.4): "actions" only for a user allowed to POST, one entry a serializer
// field in order, as DRF 3.14 describes them.
void write_actions(JsonWriter& w, std::string_view method) {
  struct Field {
    const char* name;
    const char* type;
    bool required, read_only;
    const char* label;
    std::optional<std::int64_t> min_value = std::nullopt, max_value = std::nullopt;
  };
  static constexpr Field kFields[] = {
      {"id", "integer", false, true, "ID"},
      {"image", "file upload", true, false, "Image"},
      {"file", "field", false, true, "File"},
      {"original_filename", "field", false, true, "Original filename"},
      {"file_size", "field", false, true, "File size"},
      {"author", "field", false, true, "Author"},
      {"name", "field", false, true, "Name"},
      {"default_caption", "field", false, true, "Default caption"},
      {"alt", "field", false, true, "Alt"},
      {"description", "field", false, true, "Description"},
      {"subject_location", "field", false, true, "Subject location"},
      {"mime_type", "field", false, true, "Mime type"},
      {"order", "integer", false, false, "Order", kOrderMin, kOrderMax},
      {"key", "integer", false, false, "Key", kKeyMin, kKeyMax},
      {"entity", "field", true, false, "Entity"},
  };
  w.key("actions");
  w.begin_object();
  w.key(method);
  w.begin_object();
  for (const Field& f : kFields) {
    w.key(f.name);
    w.begin_object();
    w.key("type");
    w.string(f.type);
    w.key("required");
    w.boolean(f.required);
    w.key("read_only");
    w.boolean(f.read_only);
    w.key("label");
    w.string(f.label);
    if (f.min_value) {
      w.key("min_value");
      w.integer(*f.min_value);
    }
    if (f.max_value) {
      w.key("max_value");
      w.integer(*f.max_value);
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

DataValue RequestData::get(std::string_view name) const {
  DataValue found;
  if (json) {
    if (!json->is_object() || !json->contains(name)) return found;
    return from_json((*json)[std::string(name)]);
  }
  for (const auto& [key, value] : form)
    if (key == name) found = value;
  return found;
}

DataValue RequestData::from_json(const nlohmann::json& v) {
  DataValue d;
  using K = DataValue::Kind;
  if (v.is_null()) {
    d.kind = K::Null;
  } else if (v.is_boolean()) {
    d.kind = K::Bool;
    d.text = v.get<bool>() ? "True" : "False";
  } else if (v.is_number_integer()) {
    const bool fits = !v.is_number_unsigned() || v.get<std::uint64_t>() <= INT64_MAX;
    d.kind = fits ? K::Integer : K::Text;
    d.text = v.dump();
    if (fits) d.integer = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double x = v.get<double>();
    d.kind = K::Float;
    d.text = v.dump();
    // int() truncates; beyond 64 bits no entity or bounded field can match, and the cast would be
    // undefined.
    d.beyond = !(x > -9.2e18 && x < 9.2e18);
    if (!d.beyond) d.integer = static_cast<std::int64_t>(x);
    // Python's str(float) for the integral values an integer field can take ("2.0"); others never parse.
    if (!d.beyond && x == static_cast<double>(d.integer) && x > -1e16 && x < 1e16)
      d.text = std::to_string(d.integer) + ".0";
  } else if (v.is_string()) {
    d.kind = K::Text;
    d.text = v.get<std::string>();
  } else {
    d.kind = v.is_array() ? K::List : K::Dict;
  }
  return d;
}

ValidatedUpload validate_upload(const RequestData& data, const LiveDataset& dataset) {
  using K = DataValue::Kind;
  ValidatedUpload out;
  if (data.json && !data.json->is_object()) {
    out.errors.emplace_back("non_field_errors", "Invalid data. Expected a dictionary, but got " +
                                                    json_type_name(*data.json) + ".");
    return out;
  }
  const DataValue image = data.get("image");
  if (image.kind == K::Absent) {
    out.errors.emplace_back("image", "No file was submitted.");
  } else if (image.kind == K::Null) {
    out.errors.emplace_back("image", "This field may not be null.");
  } else if (image.kind != K::File) {
    out.fails = true;
    return out;
  }
  out.image = image.file;
  optional_integer(data, "order", false, kOrderMin, kOrderMax, out.errors, out.order);
  optional_integer(data, "key", true, kKeyMin, kKeyMax, out.errors, out.key);
  entity_field(data.get("entity"), dataset, out.errors, out.entity);
  return out;
}

}  // namespace entimg::mock::detail

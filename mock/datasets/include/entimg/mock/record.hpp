#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock {

/// One image record (spec §2.1), its text held as `Text`: stored (Record) or viewed (RecordView). `image`
/// is not stored: it is built per request from the request's origin + MEDIA_URL + `file`, as Django's
/// storage and DRF's FileField do.
template <typename Text>
struct BasicRecord {
  using TextType = Text;
  std::int64_t id = 0;
  Text file;
  std::optional<Text> original_filename;  ///< filer's column is nullable (reference §1.6)
  std::int64_t file_size = 0;
  Text author;
  Text name;
  Text default_caption;
  Text alt;
  Text description;
  Text subject_location;
  Text mime_type;
  std::int64_t order = 0;
  std::optional<std::int64_t> key;
  std::int64_t entity = 0;
};

/// A record as a dataset stores it.
using Record = BasicRecord<std::string>;

/// A record's fields as views into text someone else holds, for writing a page without copying them:
/// what Dataset::each_record hands out, valid during the call that hands it out.
struct RecordView : BasicRecord<std::string_view> {
  /// The dataset's promise that no text field needs escaping in a JSON string (no control character,
  /// '"', '\\' or U+2028/2029) and that `file` is kept whole by Django's filepath_to_uri (ASCII letters,
  /// digits and "_.-~/!*()'" only): the serializer then copies them as they are. Unset, it checks.
  bool plain = false;
};

/// The same record with its text held as To holds it.
template <typename To, typename From>
To convert_record(const From& r) {
  using T = typename To::TextType;
  To out;
  out.id = r.id;
  out.file = T(r.file);
  if (r.original_filename) out.original_filename = T(*r.original_filename);
  out.file_size = r.file_size;
  out.author = T(r.author);
  out.name = T(r.name);
  out.default_caption = T(r.default_caption);
  out.alt = T(r.alt);
  out.description = T(r.description);
  out.subject_location = T(r.subject_location);
  out.mime_type = T(r.mime_type);
  out.order = r.order;
  out.key = r.key;
  out.entity = r.entity;
  return out;
}

/// The view of a stored record (valid while `r` is).
inline RecordView view_of(const Record& r) {
  return convert_record<RecordView>(r);
}
/// A record holding copies of the view's text.
inline Record record_of(const RecordView& v) {
  return convert_record<Record>(v);
}

}  // namespace entimg::mock

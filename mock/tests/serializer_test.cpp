#include "serializer.hpp"

#include "filer_names.hpp"

#include <catch2/catch.hpp>
#include <limits>

using namespace entimg::mock;
using namespace entimg::mock::detail;

namespace {
// The record as the JsonWriter's own calls write it, field by field: what write_record's one-piece compact
// writing must equal byte for byte.
std::string field_by_field(const Record& r, std::string_view origin, int indent) {
  std::string out, image;
  JsonWriter w(out, indent);
  w.begin_array();  // inside an array, as in a page: the separator before it is the writer's
  w.null();
  w.begin_object();
  w.key("id");
  w.integer(r.id);
  w.key("image");
  if (r.file.empty()) {
    w.null();
  } else {
    image = std::string(origin) + "/media/";
    append_filepath_uri(image, r.file);
    w.string(image);
  }
  w.key("file");
  w.string(r.file);
  w.key("original_filename");
  w.nullable_string(r.original_filename);
  w.key("file_size");
  w.integer(r.file_size);
  for (const auto& [key, value] : {std::pair<std::string_view, const std::string&>{"author", r.author},
                                   {"name", r.name},
                                   {"default_caption", r.default_caption},
                                   {"alt", r.alt},
                                   {"description", r.description},
                                   {"subject_location", r.subject_location},
                                   {"mime_type", r.mime_type}}) {
    w.key(key);
    w.string(value);
  }
  w.key("order");
  w.integer(r.order);
  w.key("key");
  w.nullable_integer(r.key);
  w.key("entity");
  w.integer(r.entity);
  w.end_object();
  w.end_array();
  return out;
}

std::string written(const Record& r, std::string_view origin, int indent) {
  std::string out;
  JsonWriter w(out, indent);
  w.begin_array();
  w.null();
  write_record(w, r, MediaPrefix(origin));
  w.end_array();
  return out;
}
}  // namespace

TEST_CASE("write_record writes what the writer's field-by-field calls write, compact and indented",
          "[serializer]") {
  Record plain;
  plain.id = 4;
  plain.file = "filer_public/16/9f/169fc257-08cf-4196-b7d0-0b0b0b0b0b0b/img_0042.jpg";
  plain.original_filename = "IMG_0042.JPG";
  plain.file_size = 123456;
  plain.mime_type = "image/jpeg";
  plain.entity = 60986;

  Record odd;  // every field that can need escaping or encoding does, and the numbers at their limits
  odd.id = std::numeric_limits<std::int64_t>::max();
  odd.file = "dir\\Фото \"1\"\x01/a\xE2\x80\xA8.png";
  odd.file_size = std::numeric_limits<std::int64_t>::min();
  odd.author = "J. \"O'Neil\" \\ \t";
  odd.name = "line\nbreak\xE2\x80\xA9";
  odd.default_caption = std::string("nul\0byte", 8);
  odd.alt = "Вид спереди";
  odd.description = std::string(100, 'x') + "\x1f" + std::string(7, 'y');
  odd.subject_location = "12,34";
  odd.mime_type = "";
  odd.order = -32768;
  odd.key = -1;
  odd.entity = 0;

  Record empty;  // no file: image is null, as DRF's FileField renders it
  empty.id = 1;

  for (const Record* r : {&plain, &odd, &empty})
    for (const std::string_view origin : {"http://testserver", "https://[::1]:8443", "http://a\"b\\c"})
      for (const int indent : {0, 1, 4}) {
        INFO("record " << r->id << ", origin " << origin << ", indent " << indent);
        CHECK(written(*r, origin, indent) == field_by_field(*r, origin, indent));
      }
}

TEST_CASE("a view that promises plain text is written as the same bytes, copied as it is", "[serializer]") {
  Record r;
  r.id = 7;
  r.file = "filer_public/ab/cd/abcd1234-1111-4111-8111-111111111111/foto_12.jpg";
  r.original_filename = "Фото 12.jpg";
  r.author = "J. O'Neil";
  r.mime_type = "image/jpeg";
  RecordView plain = view_of(r);
  plain.plain = true;
  for (const int indent : {0, 2}) {
    std::string promised, checked;
    JsonWriter a(promised, indent), b(checked, indent);
    write_record(a, plain, MediaPrefix("http://testserver"));
    write_record(b, view_of(r), MediaPrefix("http://testserver"));
    CHECK(promised == checked);
  }
}

TEST_CASE("MediaPrefix is the origin and MEDIA_URL, as it is and inside a JSON string", "[serializer]") {
  const MediaPrefix media("http://a\"b");
  CHECK(media.text() == "http://a\"b/media/");
  CHECK(media.json() == "http://a\\\"b/media/");
}

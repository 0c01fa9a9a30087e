#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace entimg::mock {

/// One image record (spec §2.1) as stored; `image` is not stored: it is built per request from the
/// request's origin + MEDIA_URL + `file`, as Django's storage and DRF's FileField do.
struct Record {
  std::int64_t id = 0;
  std::string file;
  std::optional<std::string> original_filename;  ///< filer's column is nullable (reference §1.6)
  std::int64_t file_size = 0;
  std::string author;
  std::string name;
  std::string default_caption;
  std::string alt;
  std::string description;
  std::string subject_location;
  std::string mime_type;
  std::int64_t order = 0;
  std::optional<std::int64_t> key;
  std::int64_t entity = 0;
};

}  // namespace entimg::mock

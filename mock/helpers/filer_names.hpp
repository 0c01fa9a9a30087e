#pragma once
// How django-filer names stored files and how the serializer guesses mime_type (reference §4, §1.6).
#include <cstddef>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// filer 2.x get_valid_filename: Django's get_valid_filename, then the stem and the extension
/// slugified apart (after transliterating with unidecode): "Фото 3.JPG" -> "foto_3.jpg".
std::string filer_stored_name(std::string_view original);

/// mimetypes.guess_type(name)[0] or "" for the image types Python knows.
std::string_view guess_mime_type(std::string_view name);

/// Django's filepath_to_uri: percent-encodes all but unreserved characters and "/~!*()'" ('\\' is '/').
void append_filepath_uri(std::string& out, std::string_view path);
/// The most bytes filepath_to_uri makes of `n` bytes (each one %XX).
constexpr std::size_t filepath_uri_bound(std::size_t n) {
  return 3 * n;
}
/// Writes what append_filepath_uri appends at `at`, which has room for filepath_uri_bound bytes; returns
/// the end of what it wrote. Only ASCII letters, digits and "%-._~/!*()'" come out.
char* write_filepath_uri(char* at, std::string_view path);

}  // namespace entimg::mock::detail

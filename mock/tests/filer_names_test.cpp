#include "filer_names.hpp"

#include <catch2/catch.hpp>

using namespace entimg::mock::detail;

TEST_CASE("filer_stored_name slugifies like django-filer 2.x", "[filer_names]") {
  // Reference §4's examples.
  CHECK(filer_stored_name("Фото 3.JPG") == "foto_3.jpg");
  CHECK(filer_stored_name("My Photo (1).JPEG") == "my_photo_1.jpeg");
  CHECK(filer_stored_name("archive.tar.gz") == "archivetar.gz");
  CHECK(filer_stored_name("Снимок экрана 5.png") == "snimok_ekrana_5.png");
  CHECK(filer_stored_name("IMG_0001.JPG") == "img_0001.jpg");
  CHECK(filer_stored_name("--a--.png") == "a.png");
  CHECK(filer_stored_name("noext") == "noext");
  CHECK(filer_stored_name(".hidden") == "hidden");
}

TEST_CASE("guess_mime_type follows the extension, case-insensitively", "[filer_names]") {
  CHECK(guess_mime_type("filer_public/ab/cd/x/a.png") == "image/png");
  CHECK(guess_mime_type("a.JPG") == "image/jpeg");
  CHECK(guess_mime_type("a.jpeg") == "image/jpeg");
  CHECK(guess_mime_type("a.png.gz") == "image/png");
  CHECK(guess_mime_type("a.txt") == "");
  CHECK(guess_mime_type("noext") == "");
}

TEST_CASE("append_filepath_uri percent-encodes as Django's filepath_to_uri", "[filer_names]") {
  std::string out;
  append_filepath_uri(out, "filer_public/ab/Фото 3.JPG");
  CHECK(out == "filer_public/ab/%D0%A4%D0%BE%D1%82%D0%BE%203.JPG");
  out.clear();
  append_filepath_uri(out, "a~!*()'#?%.png");
  CHECK(out == "a~!*()'%23%3F%25.png");
  out = "x";
  append_filepath_uri(out, "dir\\sub/b c.png");  // a backslash is a slash, as on Windows
  CHECK(out == "xdir/sub/b%20c.png");
  out.clear();
  append_filepath_uri(out, "filer_public/16/9f/169fc257-08cf-4196-b7d0-0b0b0b0b0b0b/img_0042.jpg");
  CHECK(out == "filer_public/16/9f/169fc257-08cf-4196-b7d0-0b0b0b0b0b0b/img_0042.jpg");
}

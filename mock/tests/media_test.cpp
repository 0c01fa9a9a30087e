// The pictures at every record's `image` URL: a valid picture of the record's type (PNG, JPEG, GIF, BMP, SVG,
// ICO, TIFF, WebP), deterministic, and nothing but records' files reachable under /media/.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include <zlib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "entimg/mock/service.hpp"
#include "picture_bytes.hpp"

using namespace entimg::mock;
using nlohmann::json;

namespace {

HttpResponse request(const Service& service, const std::string& target, const std::string& method = "GET") {
  return service.handle(HttpRequest{method, target, {{"Host", "testserver"}}, "127.0.0.1:8000", {}});
}

// Reads a PNG as a decoder would: signature, chunk CRCs, IHDR, and the inflated IDAT's size.
void check_png(const std::string& png) {
  REQUIRE(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  std::size_t at = 8;
  std::string idat;
  std::uint32_t width = 0, height = 0;
  bool ended = false;
  while (at + 12 <= png.size()) {
    const std::uint32_t length = entimg::mock::testing::be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    const std::string data = png.substr(at + 8, length);
    const auto crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    CHECK(crc == entimg::mock::testing::be32(png, at + 8 + length));
    if (type == "IHDR")
      width = entimg::mock::testing::be32(data, 0), height = entimg::mock::testing::be32(data, 4);
    if (type == "IDAT") idat += data;
    if (type == "IEND") ended = true;
    at += 12 + length;
  }
  CHECK(ended);
  CHECK(at == png.size());
  uLongf raw_size = height * (1 + width * 3);
  std::string raw(raw_size, '\0');
  REQUIRE(uncompress(reinterpret_cast<Bytef*>(raw.data()), &raw_size,
                     reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) == Z_OK);
  CHECK(raw_size == height * (1 + width * 3));
  CHECK(width > 0);
  CHECK(height > 0);
}

// Decodes a JPEG with libjpeg-turbo's djpeg (Debian's libjpeg-turbo-progs): a real decoder must read it.
std::string djpeg(const std::string& jpeg) {
  const auto file =
      std::filesystem::temp_directory_path() / ("entimg-media-" + std::to_string(::getpid()) + ".jpg");
  std::ofstream(file, std::ios::binary) << jpeg;
  std::string out;
  if (FILE* pipe = popen(("djpeg -pnm " + file.string() + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, n);
    pclose(pipe);
  }
  std::filesystem::remove(file);
  return out;
}

// The path of a record's image URL, as a browser would request it.
std::string image_path(const json& record) {
  return entimg::common::split_url(record["image"].get<std::string>()).path;
}

}  // namespace

TEST_CASE("every record's image URL serves a picture of its type", "[media]") {
  const Service service(make_generated_dataset(1000, 1));
  const json page = json::parse(request(service, "/edw/api/entities-images/?limit=200&offset=400").body);
  std::set<std::string> types, bodies;
  for (const auto& record : page["results"]) {
    INFO(record["file"]);
    const HttpResponse r = request(service, image_path(record));
    REQUIRE(r.status == 200);
    const std::string type = record["mime_type"].get<std::string>();
    CHECK(r.content_type == (type == "image/jpeg" ? "image/jpeg" : "image/png"));
    types.insert(r.content_type);
    bodies.insert(r.body);
    CHECK(request(service, image_path(record)).body == r.body);  // deterministic
    if (r.content_type == "image/png") {
      check_png(r.body);
    } else {
      CHECK(r.body.substr(0, 2) == "\xFF\xD8");
    }
    CHECK(request(service, image_path(record), "HEAD").status == 200);
  }
  CHECK(types.size() == 2);                        // both kinds were served
  CHECK(bodies.size() == page["results"].size());  // one picture a record
}

TEST_CASE("the JPEG placeholders decode with libjpeg", "[media]") {
  const Service service(make_generated_dataset(300, 1));
  const json page = json::parse(request(service, "/edw/api/entities-images/?limit=300").body);
  int decoded = 0;
  for (const auto& record : page["results"]) {
    if (record["mime_type"] != "image/jpeg" || decoded == 5) continue;
    const std::string pgm = djpeg(request(service, image_path(record)).body);
    INFO(pgm.substr(0, 200));
    REQUIRE(pgm.starts_with("P5\n192 128\n255\n"));
    const std::string pixels = pgm.substr(15);
    REQUIRE(pixels.size() == 192 * 128);
    CHECK(pixels.find('\xFF') != std::string::npos);  // the digits, white
    ++decoded;
  }
  CHECK(decoded == 5);
}

TEST_CASE("nothing but records' files is reachable under /media/", "[media]") {
  const Service service(make_generated_dataset(300, 1));
  const json record = json::parse(request(service, "/edw/api/entities-images/").body)["results"][0];
  const std::string path = image_path(record);
  for (const std::string& target :
       {std::string("/media/"), std::string("/media/../edw/api/entities-images/"),
        std::string("/media/..%2fetc%2fpasswd"), std::string("/media/%2e%2e/%2e%2e/etc/passwd"), path + "x",
        path.substr(0, path.rfind('/') + 1) + "other.jpg",
        std::string("/media/filer_public/00/00/0000aaaa-0000-4000-8000-000000000000/x.jpg"), path + "/..",
        std::string("/media/") + std::string(5000, 'a')}) {
    INFO(target);
    CHECK(request(service, target).status == 404);
  }
  const HttpResponse post = request(service, path, "POST");
  CHECK(post.status == 405);
}

TEST_CASE("a file dataset's records have pictures too", "[media]") {
  const Service service(
      load_dataset_file(std::filesystem::path(ENTIMG_FIXTURES_DIR) / "datasets" / "differential.jsonl"));
  const json page = json::parse(request(service, "/edw/api/entities-images/?limit=100").body);
  for (const auto& record : page["results"]) {
    INFO(record["image"]);
    CHECK(request(service, image_path(record)).status == 200);
  }
}

// A record of each type a placeholder is made for, and one without (AVIF), as a team's dataset holds them.
TEST_CASE("records of GIF, BMP, SVG, ICO, TIFF and WebP types get pictures of their type, others a PNG",
          "[media]") {
  std::string lines;
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"gif", "image/gif"},     {"bmp", "image/bmp"},
      {"svg", "image/svg+xml"}, {"ico", "image/vnd.microsoft.icon"},
      {"tif", "image/tiff"},    {"webp", "image/webp"},
      {"avif", "image/avif"}};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08zx-1111-4111-8111-%012zx", i + 101, i + 101);
    json record = {{"id", i + 101},
                   {"image", ""},
                   {"mime_type", kinds[i].second},
                   {"alt", ""},
                   {"key", nullptr},
                   {"name", ""},
                   {"order", 0},
                   {"author", ""},
                   {"entity", 5},
                   {"file_size", 10},
                   {"description", ""},
                   {"default_caption", ""},
                   {"subject_location", ""},
                   {"original_filename", "pic." + kinds[i].first}};
    const std::string u = uuid;
    record["file"] =
        "filer_public/" + u.substr(0, 2) + "/" + u.substr(2, 2) + "/" + u + "/pic." + kinds[i].first;
    lines += record.dump() + "\n";
  }
  const Service service(load_dataset_text(lines, "types.jsonl"));
  const json page = json::parse(request(service, "/edw/api/entities-images/").body);
  REQUIRE(page["results"].size() == kinds.size());
  std::map<std::string, HttpResponse> by_type;
  for (const auto& record : page["results"])
    by_type[record["mime_type"].get<std::string>()] = request(service, image_path(record));
  const auto& gif = by_type["image/gif"];
  CHECK(gif.content_type == "image/gif");
  CHECK(gif.body.starts_with("GIF89a\xC0\x00\x80\x00"));  // 192 x 128
  CHECK(gif.body.ends_with(std::string("\x00;", 2)));
  const auto& bmp = by_type["image/bmp"];
  CHECK(bmp.content_type == "image/bmp");
  CHECK(bmp.body.starts_with("BM"));
  CHECK(bmp.body.size() == 54 + 192 * 3 * 128);  // rows of 576 bytes need no padding
  const auto byte = [&](std::size_t at) { return std::size_t{static_cast<unsigned char>(bmp.body[at])}; };
  CHECK(byte(2) + 256 * byte(3) + 65536 * byte(4) == bmp.body.size());  // the file size the header says
  const auto& svg = by_type["image/svg+xml"];
  CHECK(svg.content_type == "image/svg+xml");
  CHECK(svg.body.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(svg.body.find(">103</text>") != std::string::npos);  // the record's id
  const auto& ico = by_type["image/vnd.microsoft.icon"];
  CHECK(ico.content_type == "image/vnd.microsoft.icon");
  CHECK(ico.body.starts_with(std::string("\0\0\1\0\1\0", 6)));
  check_png(ico.body.substr(22));
  const auto& tiff = by_type["image/tiff"];
  CHECK(tiff.content_type == "image/tiff");
  CHECK(tiff.body.starts_with(std::string("II*\0", 4)));
  CHECK(tiff.body.size() == 8 + 192 * 3 * 128 + 6 + 8 + 2 + 12 * 12 + 4);  // pixels, values, IFD
  const auto& webp = by_type["image/webp"];
  CHECK(webp.content_type == "image/webp");
  CHECK(webp.body.starts_with("RIFF"));
  CHECK(webp.body.substr(8, 8) == "WEBPVP8L");
  CHECK(webp.body.size() % 2 == 0);  // RIFF pads chunks to an even size
  const auto& avif = by_type["image/avif"];
  CHECK(avif.content_type == "image/png");  // no AVIF placeholder: a PNG, labelled as what it is
  check_png(avif.body);
}

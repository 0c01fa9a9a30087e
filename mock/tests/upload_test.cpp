#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "entimg/mock/live_dataset.hpp"
#include "entimg/mock/service.hpp"
#include "multipart.hpp"

using namespace entimg::mock;
using nlohmann::json;

namespace {
NewUpload upload(std::int64_t order, std::int64_t entity, std::string bytes = "\xFF\xD8pic") {
  NewUpload u;
  u.stored_name = "a.jpg";
  u.original_filename = "A.jpg";
  u.mime_type = "image/jpeg";
  u.order = order;
  u.entity = entity;
  u.bytes = std::move(bytes);
  return u;
}

std::vector<std::int64_t> ids(const Dataset& d, Selection s = {}, std::uint64_t offset = 0,
                              std::uint64_t limit = 1000) {
  std::vector<Record> out;
  d.page(s, offset, limit, out);
  std::vector<std::int64_t> result;
  for (const Record& r : out)
    result.push_back(r.id);
  return result;
}

std::string multipart_body(const std::string& boundary, const std::vector<std::string>& parts) {
  std::string body;
  for (const auto& p : parts)
    body += "--" + boundary + "\r\n" + p + "\r\n";
  return body + "--" + boundary + "--\r\n";
}
}  // namespace

TEST_CASE("multipart: fields, files by base name, skipped parts and Django's boundary errors", "[upload]") {
  const auto body = multipart_body(
      "XyZ", {"Content-Disposition: form-data; name=\"entity\"\r\n\r\n7",
              "Content-Disposition: form-data; name=\"image\"; filename=\"C:\\\\dir\\\\My Photo.JPG\"\r\n"
              "Content-Type: image/jpeg\r\n\r\n\xFF\xD8\r\n--not-a-boundary",
              "Content-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n\r\nignored",
              "Content-Disposition: form-data\r\n\r\nno name", "no headers at all"});
  const auto parsed = detail::parse_multipart("multipart/form-data; boundary=XyZ", body);
  REQUIRE(parsed.error.empty());
  REQUIRE(parsed.parts.size() == 3);
  CHECK(parsed.parts[0].name == "entity");
  CHECK(parsed.parts[0].data == "7");
  CHECK(!parsed.parts[0].filename);
  CHECK(parsed.parts[1].filename == "My Photo.JPG");
  CHECK(parsed.parts[1].data == "\xFF\xD8\r\n--not-a-boundary");
  CHECK(parsed.parts[2].name == "empty");  // filename="" makes a text field, as Django reads it
  CHECK(!parsed.parts[2].filename);
  const auto cut =
      detail::parse_multipart("multipart/form-data; boundary=XyZ", body.substr(0, body.find("ignored")));
  CHECK(cut.parts.size() == 2);  // the part cut short is dropped
  CHECK(detail::parse_multipart("multipart/form-data", body).error == "Invalid boundary in multipart: None");
  CHECK(detail::parse_multipart("multipart/form-data; boundary=\"a b \"", body).error ==
        "Invalid boundary in multipart: a b ");
  CHECK(detail::parse_multipart("multipart/form-data; boundary=XyZ", "").parts.empty());
}

TEST_CASE("uploads are listed in the service's order: by order, then after the dataset's ids", "[upload]") {
  LiveDataset live(make_generated_dataset(20, 1), std::nullopt);
  const auto base = ids(live);
  const Record first = live.add(upload(0, base.empty() ? 1 : live.find_by_id(base[0])->entity));
  CHECK(first.id == live.max_id());
  CHECK(first.id > base.back());
  CHECK(first.file.starts_with("filer_public/"));
  const Record early = live.add(upload(-5, first.entity));
  const auto all = ids(live);
  REQUIRE(all.size() == 22);
  CHECK(all.front() == early.id);  // order -5 comes before every order-0 record
  CHECK(all.back() == first.id);
  CHECK(ids(live, {}, 20, 12) == std::vector<std::int64_t>{all[20], all[21]});
  CHECK(ids(live, {}, 1, 3) == std::vector<std::int64_t>{all[1], all[2], all[3]});
  Selection mine;
  mine.entity = first.entity;
  CHECK(live.count(mine) == ids(live, mine).size());
  CHECK(live.uploaded_bytes(first.file) == "\xFF\xD8pic");
  CHECK(!live.uploaded_bytes("filer_public/none.jpg"));
  CHECK(live.find_by_file(early.file)->id == early.id);
}

TEST_CASE("a state directory: records survive a reopen; a cut line and a foreign dataset are handled",
          "[upload]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("entimg-state-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::shared_ptr<const Dataset> base = make_generated_dataset(8, 2);
  Record made;
  {
    LiveDataset live(base, dir);
    made = live.add(upload(0, 1, std::string(5000, 'x')));
  }
  {
    std::ofstream(dir / "records.jsonl", std::ios::app) << R"({"record":{"id":1)";
    LiveDataset again(base, dir);
    CHECK(again.dropped_entries() == 1);
    CHECK(again.created_count() == 1);
    CHECK(again.find_by_id(made.id)->file == made.file);
    CHECK(again.uploaded_bytes(made.file) == std::string(5000, 'x'));
    CHECK(again.add(upload(0, 1)).id == made.id + 1);  // after the repair, a clean line
  }
  CHECK(LiveDataset(base, dir).created_count() == 2);
  CHECK_THROWS_WITH(LiveDataset(make_generated_dataset(9, 2), dir),
                    Catch::Contains("holds records created over another dataset"));
  std::filesystem::remove_all(dir);
}

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "entimg/common/snapshot.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "entimg/mock/service.hpp"
#include "multipart.hpp"
#include "python_json.hpp"

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
  CHECK(cut.parts.size() == 3);  // a text field cut short keeps what came
  CHECK(cut.parts[2].data.empty());
  const auto cut_file =
      detail::parse_multipart("multipart/form-data; boundary=XyZ", body.substr(0, body.find("not-a")));
  CHECK(cut_file.parts.size() == 1);  // a file cut short is dropped
  // Django's parse_header: the last of a repeated parameter, RFC 2231 names, quotes unescaped in order.
  CHECK(detail::header_parameter("form-data; name=\"a\"; name=\"b\"", "name") == "b");
  CHECK(detail::header_parameter("form-data; filename*=UTF-8''%D0%A4%D0%BE%D1%82%D0%BE.jpg", "filename") ==
        "\xD0\xA4\xD0\xBE\xD1\x82\xD0\xBE.jpg");
  CHECK(detail::header_parameter("form-data; filename=\"a\\\\\\\"b\"", "filename") == "a\\\"b");
  // Headers over 1024 bytes make the part raw data, skipped.
  const auto long_headers =
      detail::parse_multipart("multipart/form-data; boundary=XyZ",
                              multipart_body("XyZ", {"Content-Disposition: form-data; name=\"entity\"; x=\"" +
                                                     std::string(1100, 'x') + "\"\r\n\r\n7"}));
  CHECK(long_headers.parts.empty());
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

// Issue 36: in the npm package uploads filled WebAssembly's 2 GiB, then every request failed with a bare 500.
TEST_CASE("uploads in memory stop at --upload-bytes, say so, and are taken again after a reset", "[upload]") {
  const std::string kib(1024, 'x');
  const std::uint64_t each = LiveDataset::upload_cost(upload(0, 1, kib));
  CHECK(each == 1024 + 5 + 5 + 1024);  // the file, its names ("A.jpg", "a.jpg") and 1 KiB for its record
  LiveDataset live(make_generated_dataset(5, 1), std::nullopt, kMaxFileBytes, 3 * each);
  const std::int64_t entity = live.find_by_id(ids(live)[0])->entity;
  for (int i = 0; i < 3; ++i)
    live.add(upload(0, entity, kib));
  CHECK_THROWS_WITH(
      live.add(upload(0, entity, kib)),
      Catch::Contains("at most " + std::to_string(3 * each) +
                      " bytes of uploads in memory (--upload-bytes; uploadBytes in the npm package)"));
  CHECK(live.created_count() == 3);
  CHECK(live.reset() == 3);
  live.add(upload(0, entity, kib));
  CHECK(live.created_count() == 1);
}

TEST_CASE("a state directory: records survive a reopen, and a cut line and a foreign dataset are handled",
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

// Before: a hand-edited line naming "/etc/passwd" (with its size and sha256) was served at
// /media//etc/passwd, and any bad line was reported as a crash's leftover.
TEST_CASE("a state directory: a line naming a file outside it is refused, each dropped line says why",
          "[upload]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("entimg-state-escape-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::shared_ptr<const Dataset> base = make_generated_dataset(8, 2);
  Record made;
  {
    LiveDataset live(base, dir);
    made = live.add(upload(0, 1, std::string(10, 'x')));
  }
  const std::filesystem::path outside = dir.string() + "-outside.txt";
  std::ofstream(outside) << "secret";
  const std::string sha = entimg::common::sha256_hex("secret");
  auto line_for = [&](const std::string& file, std::int64_t id) {
    auto entry = nlohmann::json::parse(R"({"record":{"id":0,"file":"","original_filename":"a","file_size":6,
      "author":"","name":"","default_caption":"","alt":"","description":"","subject_location":"",
      "mime_type":"image/jpeg","order":0,"key":null,"entity":1}})");
    entry["record"]["id"] = id;
    entry["record"]["file"] = file;
    entry["sha256"] = sha;
    return entry.dump() + "\n";
  };
  {
    std::ofstream log(dir / "records.jsonl", std::ios::app);
    log << line_for(outside.string(), made.id + 1) << "garbage\n"
        << line_for("filer_public/../../../" + outside.filename().string(), made.id + 2);
  }
  LiveDataset again(base, dir);
  REQUIRE(again.dropped_entries() == 3);
  CHECK_THAT(again.dropped_reasons()[0], Catch::Contains("records.jsonl:2: file \"" + outside.string()) &&
                                             Catch::Contains("is not an upload's path"));
  CHECK_THAT(again.dropped_reasons()[1],
             Catch::Contains("records.jsonl:3: not a record line (not JSON): edited or damaged"));
  CHECK_THAT(again.dropped_reasons()[2], Catch::Contains("records.jsonl:4: file \"filer_public/../"));
  CHECK(again.created_count() == 1);
  CHECK_FALSE(again.find_by_id(made.id + 1));
  CHECK_FALSE(again.uploaded_bytes(outside.string()));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(outside);
}

// Issue 43: a records.jsonl link planted in a --state directory made the mock truncate the link's target
// (as root, any file on the machine). Every file below the state directory is now opened with no link
// followed; each case is tried on canary files in a directory of its own, never on a system file.
TEST_CASE("a state directory: a planted symbolic link is followed neither to write nor to read", "[upload]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("entimg-state-links-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "outside");
  const fs::path dir = root / "state", canary = root / "outside" / "canary";
  const auto read = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::shared_ptr<const Dataset> base = make_generated_dataset(8, 2);
  std::ofstream(canary) << "canary: not a record line\n";
  SECTION("records.jsonl a link to a file outside: refused, the file untouched") {
    fs::create_directories(dir);
    fs::create_symlink(canary, dir / "records.jsonl");
    CHECK_THROWS_WITH(LiveDataset(base, dir),
                      Catch::Contains("records.jsonl: cannot be opened (a symbolic link, not followed)"));
    CHECK(read(canary) == "canary: not a record line\n");
  }
  SECTION("dataset.txt a dangling link: nothing is created where it points") {
    fs::create_directories(dir);
    fs::create_symlink(root / "outside" / "created", dir / "dataset.txt");
    CHECK_THROWS_WITH(LiveDataset(base, dir),
                      Catch::Contains("dataset.txt") && Catch::Contains("symbolic link"));
    CHECK_FALSE(fs::exists(root / "outside" / "created"));
  }
  SECTION("media a link to a directory outside: refused before any upload is written there") {
    fs::create_directories(dir);
    fs::create_directory_symlink(root / "outside", dir / "media");
    CHECK_THROWS_WITH(LiveDataset(base, dir), Catch::Contains("media") && Catch::Contains("symbolic link"));
    CHECK(std::distance(fs::directory_iterator(root / "outside"), fs::directory_iterator()) == 1);
  }
  SECTION(
      "an upload's folder replaced by a link: its record is dropped, not served, and reset deletes nothing "
      "outside") {
    Record made;
    {
      LiveDataset live(base, dir);
      made = live.add(upload(0, 1, "canary: not a record line\n"));
    }
    // The upload's own folder (filer_public/xx/yy/<uuid>) becomes a link to the outside folder, which holds a
    // file of the same name, size and sha256.
    const fs::path folder = dir / "media" / fs::path(made.file).parent_path();
    fs::remove_all(folder);
    fs::create_directory_symlink(root / "outside", folder);
    fs::copy_file(canary, root / "outside" / fs::path(made.file).filename());
    LiveDataset again(base, dir);
    REQUIRE(again.dropped_entries() == 1);
    CHECK_THAT(again.dropped_reasons()[0], Catch::Contains("symbolic link"));
    CHECK_FALSE(again.uploaded_bytes(made.file));
    // An upload of this run whose folder becomes a link too: reset removes its record, and no file outside.
    const Record second = again.add(upload(0, 1));
    const fs::path second_folder = dir / "media" / fs::path(second.file).parent_path();
    fs::remove_all(second_folder);
    fs::create_directory_symlink(root / "outside", second_folder);
    CHECK(again.reset() == 1);
    CHECK(again.created_count() == 0);
    CHECK(read(root / "outside" / fs::path(made.file).filename()) == "canary: not a record line\n");
  }
  fs::remove_all(root);
}

TEST_CASE("JSON bodies: Python's json messages, as /usr/bin/python3 printed them for DRF's reader",
          "[upload]") {
  using detail::python_json_check;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("{\"a\":1}\xE2\x82"), ""},  // a sequence cut by the end is held back, never decoded
      {"\"abc\xC3", "Unterminated string starting at: line 1 column 1 (char 0)"},
      {"x\xE0"
       "A",
       "'utf-8' codec can't decode byte 0xe0 in position 1: invalid continuation byte"},
      {"\xEF\xBB\xBF{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
      {"NaN", "Out of range float values are not JSON compliant: 'NaN'"},
      {"[-Infinity]", "Out of range float values are not JSON compliant: '-Infinity'"},
      {"{\"a\":\xFF}", "'utf-8' codec can't decode byte 0xff in position 5: invalid start byte"},
      {"", "Expecting value: line 1 column 1 (char 0)"},
      {" ", "Expecting value: line 1 column 2 (char 1)"},
      {"{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)"},
      {"[1,]", "Expecting value: line 1 column 4 (char 3)"},
      {"{\"a\":1,}", "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"},
      {"\"\\x\"", "Invalid \\escape: line 1 column 2 (char 1)"},
      {"\"a\nb\"", "Invalid control character at: line 1 column 3 (char 2)"},
      {"01", "Extra data: line 1 column 2 (char 1)"},
      {"{\"a\":[1,2", "Expecting ',' delimiter: line 1 column 10 (char 9)"},
      {"\xED\xA0\x80", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
      {"{\"entity\": 7, \"image\": null}", ""},
  };
  for (const auto& [body, message] : cases) {
    INFO(body);
    CHECK(python_json_check(body).error.value_or("") == message);
  }
  // Nesting past Python's recursion limit is a RecursionError (DRF answers 500), never a crash here.
  CHECK(python_json_check(std::string(200000, '[')).too_deep);
  CHECK(!python_json_check(std::string(500, '[') + std::string(500, ']')).too_deep);
}

TEST_CASE("uploads as DRF and Django read them: parser choice, nested quirks, names Django refuses",
          "[upload]") {
  const Service service(make_generated_dataset(40, 5), User{"alice", "s3cret"});
  HttpRequest probe{"GET", "/edw/api/entities-images/?limit=1", {{"Host", "t"}}, "127.0.0.1:8000", {}};
  const std::string entity = nlohmann::json::parse(service.handle(probe).body)["results"][0]["entity"].dump();
  const auto post = [&](std::string target, std::string type, std::string body) {
    std::vector<std::pair<std::string, std::string>> headers = {
        {"Host", "t"},
        {"Authorization", "Basic YWxpY2U6czNjcmV0"},
        {"Content-Length", std::to_string(body.size())}};
    if (!type.empty()) headers.emplace_back("Content-Type", type);
    return service.handle(
        HttpRequest{"POST", std::move(target), std::move(headers), "127.0.0.1:8000", std::move(body)});
  };
  const auto form = [&](const std::string& filename) {
    return "--q\r\nContent-Disposition: form-data; name=\"entity\"\r\n\r\n" + entity +
           "\r\n--q\r\nContent-Disposition: form-data; name=\"image\"; filename=\"" + filename +
           "\"\r\n\r\nbytes\r\n--q--\r\n";
  };
  // DRF compares media types without case, with wildcards; Django's multipart parser then wants "multipart/".
  CHECK(post("/edw/api/entities-images/", "Multipart/Form-Data; boundary=q", form("a.png")).body ==
        R"({"detail":"Multipart form parse error - Invalid Content-Type: Multipart/Form-Data; boundary=q"})");
  CHECK(post("/edw/api/entities-images/", "*/*", "{}").body ==
        R"({"image":["No file was submitted."],"entity":["This field is required."]})");
  CHECK(post("/edw/api/entities-images/", "Application/JSON", "[1]").body ==
        R"({"non_field_errors":["Invalid data. Expected a dictionary, but got list."]})");
  CHECK(post("/edw/api/entities-images/", "multipart/form-data; boundary=q", form("a.png")).status == 201);
  // A name Django's get_valid_filename leaves nothing of: SuspiciousFileOperation, Django's 400 page.
  const auto refused = post("/edw/api/entities-images/", "multipart/form-data; boundary=q", form("!!!"));
  CHECK(refused.status == 400);
  CHECK(refused.body.find("Bad Request (400)") != std::string::npos);
  // A name filer's slugify leaves nothing of ("...", "---"): the storage's get_valid_name("") refuses it as
  // well (Django 3.2.25, seen on the DRF stand-in). Before, a 201 whose `file` ended in "/".
  for (const char* name : {"...", "---", "-.-"}) {
    const auto empty = post("/edw/api/entities-images/", "multipart/form-data; boundary=q", form(name));
    CHECK(empty.status == 400);
    CHECK(empty.body.find("Bad Request (400)") != std::string::npos);
  }
  // The nested route: no body gives {} and the entity from the URL; a form body's QueryDict cannot take it.
  const std::string nested = "/edw/api/entities/" + entity + "/images/";
  CHECK(service
            .handle(HttpRequest{"POST",
                                nested,
                                {{"Host", "t"}, {"Authorization", "Basic YWxpY2U6czNjcmV0"}},
                                "127.0.0.1:8000",
                                {}})
            .body == R"({"image":["No file was submitted."]})");
  CHECK(post(nested, "multipart/form-data; boundary=q",
             "--q\r\nContent-Disposition: form-data; name=\"order\"\r\n\r\n1\r\n--q--\r\n")
            .status == 500);
  // JSON numbers as ids: int() truncates a float; one beyond 64 bits names no entity (and is no crash).
  CHECK(
      post("/edw/api/entities-images/", "application/json", R"({"entity": 1e300})").body ==
      R"({"image":["No file was submitted."],"entity":["Invalid pk \"1e+300\" - object does not exist."]})");
}

TEST_CASE("every window of the listing with many uploads is the sorted merge, whole and per entity",
          "[upload]") {
  // The base lists all at order 0; uploads come before, among and after it, many to one entity.
  const std::shared_ptr<const Dataset> base = make_generated_dataset(60, 3);
  LiveDataset live(base, std::nullopt);
  std::vector<Record> all;
  base->page({}, 0, 1000, all);
  const std::int64_t crowded = all[7].entity;
  for (std::int64_t n = 0; n < 45; ++n)
    all.push_back(
        live.add(upload(n % 3 - 1, n % 2 == 0 ? crowded : all[static_cast<std::size_t>(n)].entity)));
  std::stable_sort(all.begin(), all.end(), [](const Record& a, const Record& b) {
    return std::pair(a.order, a.id) < std::pair(b.order, b.id);
  });
  Selection one_entity;
  one_entity.entity = crowded;
  for (const Selection& selection : {Selection{}, one_entity}) {
    std::vector<std::int64_t> expected;
    for (const Record& r : all)
      if (!selection.entity || r.entity == *selection.entity) expected.push_back(r.id);
    REQUIRE(live.count(selection) == expected.size());
    for (std::uint64_t offset = 0; offset <= expected.size() + 1; ++offset)
      for (const std::uint64_t limit : {1u, 5u, 12u, 200u}) {
        const auto from = static_cast<std::ptrdiff_t>(std::min<std::size_t>(offset, expected.size()));
        const auto to = static_cast<std::ptrdiff_t>(std::min<std::size_t>(offset + limit, expected.size()));
        INFO("entity " << (selection.entity ? *selection.entity : -1) << " offset " << offset << " limit "
                       << limit);
        CHECK(ids(live, selection, offset, limit) ==
              std::vector<std::int64_t>(expected.begin() + from, expected.begin() + to));
      }
  }
}

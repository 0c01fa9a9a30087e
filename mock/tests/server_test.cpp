#include "entimg/mock/server.hpp"
#include "running_mock.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace entimg::mock;

using entimg::mock::testing::RunningMock;

TEST_CASE("the server answers GET and HEAD with the same headers, HEAD without a body", "[server]") {
  RunningMock mock;
  REQUIRE(mock.server.port() > 0);
  httplib::Client client("127.0.0.1", mock.server.port());
  const auto get = client.Get("/edw/api/entities-images/?offset=24");
  REQUIRE(get);
  CHECK(get->status == 200);
  CHECK(get->get_header_value("Content-Type") == "application/json");
  CHECK(get->get_header_value("Allow") == "GET, POST, HEAD, OPTIONS");
  CHECK(get->get_header_value("Vary") == "Accept");
  CHECK(get->get_header_value("Content-Length") == std::to_string(get->body.size()));
  const auto page = nlohmann::json::parse(get->body);
  CHECK(page["next"] == "http://127.0.0.1:" + std::to_string(mock.server.port()) +
                            "/edw/api/entities-images/?limit=12&offset=36");
  const auto head = client.Head("/edw/api/entities-images/?offset=24");
  REQUIRE(head);
  CHECK(head->status == 200);
  CHECK(head->body.empty());
  CHECK(head->get_header_value("Content-Length") == get->get_header_value("Content-Length"));
  CHECK(head->get_header_value("Content-Type") == "application/json");
  CHECK(head->get_header_value("Accept-Ranges") == get->get_header_value("Accept-Ranges"));
}

TEST_CASE("a Range header does not cut the JSON: Django ignores it", "[server]") {
  RunningMock mock;
  httplib::Client client("127.0.0.1", mock.server.port());
  const auto whole = client.Get("/edw/api/entities-images/");
  const auto ranged = client.Get("/edw/api/entities-images/", {{"Range", "bytes=0-9"}});
  REQUIRE(whole);
  REQUIRE(ranged);
  CHECK(ranged->status == 200);
  CHECK(ranged->body == whole->body);
  CHECK_FALSE(ranged->has_header("Content-Range"));
}

TEST_CASE("one keep-alive connection serves many requests", "[server]") {
  RunningMock mock;
  httplib::Client client("127.0.0.1", mock.server.port());
  client.set_keep_alive(true);
  for (int i = 0; i < 50; ++i) {
    const auto r = client.Get("/edw/api/entities-images/?offset=" + std::to_string(i));
    REQUIRE(r);
    REQUIRE(r->status == 200);
    // cpp-httplib's default would close after 5 requests ("Connection: close").
    CHECK(r->get_header_value("Connection") != "close");
  }
}

TEST_CASE("the server stops and frees its port", "[server]") {
  int port = 0;
  {
    RunningMock mock;
    port = mock.server.port();
  }
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1);
  CHECK_FALSE(client.Get("/edw/api/entities-images/"));
}

TEST_CASE("binding a port in use is a clear error", "[server]") {
  RunningMock mock;
  MockServer second(std::make_shared<Service>(make_generated_dataset(1, 1)),
                    listen_on("127.0.0.1", mock.server.port(), 2));
  CHECK_THROWS_WITH(second.bind(), Catch::Contains("cannot listen on 127.0.0.1:"));
}

TEST_CASE("an upload through the server: 201, listed, its bytes served, and a body over --max-body is 413",
          "[server]") {
  auto options = listen_on("127.0.0.1", 0, 8);
  options.limits.max_body = 4096;
  MockServer server(std::make_shared<Service>(make_generated_dataset(30, 1), User{"alice", "s3cret"}),
                    options);
  server.bind();
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  client.set_basic_auth("alice", "s3cret");
  const auto first = nlohmann::json::parse(client.Get("/edw/api/entities-images/?limit=1")->body);
  const std::string entity = std::to_string(first["results"][0]["entity"].get<std::int64_t>());
  const std::string picture = "\x89PNG\r\n\x1a\n-bytes-\r\n--not-the-boundary";

  const auto created =
      client.Post("/edw/api/entities-images/",
                  httplib::MultipartFormDataItems{{"image", picture, "Holiday Pic.PNG", "image/png"},
                                                  {"entity", entity, "", ""}});
  REQUIRE(created);
  CHECK(created->status == 201);
  CHECK(!created->has_header("Location"));
  const auto record = nlohmann::json::parse(created->body);
  CHECK(record["file"].get<std::string>().ends_with("/holiday_pic.png"));
  CHECK(record["original_filename"] == "Holiday Pic.PNG");
  CHECK(record["mime_type"] == "image/png");
  CHECK(record["file_size"] == picture.size());
  const auto listed = nlohmann::json::parse(client.Get("/edw/api/entities-images/?offset=30")->body);
  CHECK(listed["count"] == 31);
  // The first page was asked before the upload; its kept answer (--memo-bytes) is not sent again.
  const auto again = nlohmann::json::parse(client.Get("/edw/api/entities-images/?limit=1")->body);
  CHECK(again["count"] == 31);
  CHECK(again["results"] == first["results"]);
  CHECK(listed["results"][0]["id"] == record["id"]);
  const std::string image = record["image"].get<std::string>();
  const auto bytes = client.Get(image.substr(image.find("/media/")).c_str());
  REQUIRE(bytes);
  CHECK(bytes->body == picture);
  CHECK(bytes->get_header_value("Content-Type") == "image/png");

  // Over the limit, announced or chunked: nginx's 413, and the mock goes on serving.
  const auto big =
      client.Post("/edw/api/entities-images/", std::string(5000, 'x'), "multipart/form-data; boundary=b");
  REQUIRE(big);
  CHECK(big->status == 413);
  CHECK(big->body.find("<title>413 Request Entity Too Large</title>") != std::string::npos);
  httplib::Client chunked("127.0.0.1", server.port());
  std::size_t sent = 0;
  const auto streamed = chunked.Post(
      "/edw/api/entities-images/",
      [&](std::size_t, httplib::DataSink& sink) {
        if (sent >= 20000) {
          sink.done();
          return true;
        }
        sent += 1000;
        return sink.write(std::string(1000, 'y').data(), 1000);
      },
      "application/json");
  if (streamed) CHECK(streamed->status == 413);  // or the connection closed while the client still sent
  CHECK(client.Get("/edw/api/entities-images/?limit=1")->status == 200);
  server.stop();
}

TEST_CASE("a multipart upload whose header names are lower case (as Node's fetch sends them) is read",
          "[server]") {
  MockServer server(std::make_shared<Service>(make_generated_dataset(30, 1), User{"alice", "s3cret"}),
                    listen_on("127.0.0.1", 0, 4));
  server.bind();
  server.start();
  httplib::Client reader("127.0.0.1", server.port());
  const auto first = nlohmann::json::parse(reader.Get("/edw/api/entities-images/?limit=1")->body);
  const std::string entity = std::to_string(first["results"][0]["entity"].get<std::int64_t>());
  const std::string body =
      "--b0\r\ncontent-disposition: form-data; name=\"entity\"\r\n\r\n" + entity +
      "\r\n--b0\r\ncontent-disposition: form-data; name=\"image\"; filename=\"x.png\"\r\n"
      "content-type: image/png\r\n\r\n\x89PNG\r\n--b0--\r\n";
  const std::string request =
      "POST /edw/api/entities-images/ HTTP/1.1\r\nhost: 127.0.0.1\r\n"
      "authorization: Basic YWxpY2U6czNjcmV0\r\n"
      "content-type: multipart/form-data; boundary=b0\r\ncontent-length: " +
      std::to_string(body.size()) + "\r\nconnection: close\r\n\r\n" + body;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
    answer.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  INFO(answer);
  CHECK(answer.starts_with("HTTP/1.1 201 Created\r\n"));
  CHECK(answer.find("\"original_filename\":\"x.png\"") != std::string::npos);
  server.stop();
}

namespace {
// The generated collection, counting the reads that compute a page: an answer from the memo makes none.
class CountingDataset final : public Dataset {
 public:
  explicit CountingDataset(std::shared_ptr<const Dataset> base) : base_(std::move(base)) {}
  std::uint64_t count(const Selection& s) const override { return base_->count(s); }
  void page(const Selection& s, std::uint64_t offset, std::uint64_t limit,
            std::vector<Record>& out) const override {
    ++reads;
    base_->page(s, offset, limit, out);
  }
  void each_record(const Selection& s, std::uint64_t offset, std::uint64_t limit,
                   RecordSink& sink) const override {
    ++reads;
    base_->each_record(s, offset, limit, sink);
  }
  std::string describe() const override { return base_->describe(); }
  std::optional<Record> find_by_file(std::string_view file) const override {
    return base_->find_by_file(file);
  }
  std::optional<Record> find_by_id(std::int64_t id) const override { return base_->find_by_id(id); }
  std::int64_t max_id() const override { return base_->max_id(); }
  mutable std::atomic<int> reads{0};

 private:
  std::shared_ptr<const Dataset> base_;
};
}  // namespace

TEST_CASE(
    "the memo keeps answers asked twice, none asked once, holds them once full, drops them on an upload",
    "[server][memo]") {
  const auto data = std::make_shared<CountingDataset>(make_generated_dataset(1000, 1));
  auto options = listen_on("127.0.0.1", 0, 2);
  options.memo_bytes = 64 << 10;  // about 55 answers of one record each (with their keys)
  MockServer server(std::make_shared<Service>(data, User{"alice", "s3cret"}), options);
  server.bind();
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  const auto ask = [&client](int offset) {
    const auto r = client.Get("/edw/api/entities-images/?limit=1&offset=" + std::to_string(offset));
    REQUIRE(r);
    REQUIRE(r->status == 200);
    return r->body;
  };
  // A walk asks each page once: each is computed, none kept (a memo that kept them would only copy).
  const std::string first = ask(0);
  for (int offset = 1; offset < 200; ++offset)
    ask(offset);
  CHECK(data->reads == 200);
  // Asked again, each is computed once more and kept while there is room...
  std::vector<std::string> bodies;
  for (int offset = 0; offset < 200; ++offset)
    bodies.push_back(ask(offset));
  CHECK(data->reads == 400);
  CHECK(bodies[0] == first);
  // ...so the third time the first ones come from the memo and the rest are computed: a full memo holds
  // what it has rather than starting again. Every answer is the same bytes either way. (Which ones are
  // kept depends on the port: the Host header is in each request's hash, and a request whose "asked
  // once" slot another took is not kept. So the test finds one kept, rather than naming it.)
  int held = -1;
  for (int offset = 0; offset < 200; ++offset) {
    const int before = data->reads;
    CHECK(ask(offset) == bodies[static_cast<std::size_t>(offset)]);
    if (held < 0 && data->reads == before) held = offset;
  }
  const int kept = 600 - data->reads;
  CHECK(kept >= 40);
  CHECK(kept <= 70);
  REQUIRE(held >= 0);
  const int reads = data->reads;
  CHECK(ask(held) == bodies[static_cast<std::size_t>(held)]);
  CHECK(data->reads == reads);
  // An upload changes the data: nothing kept before it is sent again.
  httplib::Client user("127.0.0.1", server.port());
  user.set_basic_auth("alice", "s3cret");
  const std::string entity =
      std::to_string(nlohmann::json::parse(first)["results"][0]["entity"].get<std::int64_t>());
  const auto created = user.Post("/edw/api/entities-images/",
                                 httplib::MultipartFormDataItems{{"image", "\x89PNG", "a.png", "image/png"},
                                                                 {"entity", entity, "", ""}});
  REQUIRE(created);
  REQUIRE(created->status == 201);
  CHECK(nlohmann::json::parse(ask(0))["count"] == 1001);
  server.stop();
}

namespace {

// The peak resident memory of this process so far (VmHWM), in bytes.
std::uint64_t peak_rss() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::sscanf(line, "VmHWM: %llu kB", &kb) == 1) break;
  std::fclose(status);
  return kb * 1024;
}

}  // namespace

TEST_CASE("a sized picture is sent in pieces: 256 MiB cost far less memory, 5 GiB answer a range",
          "[server][sized]") {
  constexpr std::uint64_t kBig = std::uint64_t{256} << 20, kHuge = (std::uint64_t{5} << 30) + 7;
  std::string lines;
  for (const auto& [id, size] : {std::pair<int, std::uint64_t>{1, kBig}, {2, kHuge}})
    lines +=
        R"({"id": )" + std::to_string(id) + R"(, "image": "", "file": "filer_public/00/00/0000000)" +
        std::to_string(id) + R"(-1111-4111-8111-000000000001/big.png", "original_filename": "big.png", )" +
        R"("file_size": )" + std::to_string(size) + R"(, "author": "", "name": "", "default_caption": "", )" +
        R"("alt": "", "description": "", "subject_location": "", "mime_type": "image/png", "order": 0, )" +
        R"("key": null, "entity": 5})" + "\n";
  MockServer server(
      std::make_shared<Service>(load_dataset_text(lines, "big.jsonl"), std::nullopt, ServiceOptions{true}),
      listen_on("127.0.0.1", 0, 2));
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  const std::string path = "/media/filer_public/00/00/00000001-1111-4111-8111-000000000001/big.png";
  const std::uint64_t before = peak_rss();
  std::uint64_t received = 0;
  std::string tail;
  const auto got = client.Get(path, [&](const char* data, std::size_t n) {
    received += n;
    tail.append(data, n);
    if (tail.size() > 64) tail.erase(0, tail.size() - 64);
    return true;
  });
  REQUIRE(got);
  CHECK(got->status == 200);
  CHECK(received == kBig);
  CHECK(tail.ends_with(std::string("\0\0\0\0IEND\xAE\x42\x60\x82", 12)));
  // Held whole, the body alone would have raised the peak by 256 MiB; in pieces it costs a few of 256 KiB.
  CHECK(peak_rss() - before < (std::uint64_t{64} << 20));
  const std::string huge = "/media/filer_public/00/00/00000002-1111-4111-8111-000000000001/big.png";
  const auto head = client.Head(huge);
  REQUIRE(head);
  CHECK(head->get_header_value("Content-Length") == std::to_string(kHuge));
  const auto end = client.Get(huge, {{"Range", "bytes=-12"}});
  REQUIRE(end);
  CHECK(end->status == 206);
  CHECK(end->get_header_value("Content-Range") == "bytes " + std::to_string(kHuge - 12) + "-" +
                                                      std::to_string(kHuge - 1) + "/" +
                                                      std::to_string(kHuge));
  CHECK(end->body == std::string("\0\0\0\0IEND\xAE\x42\x60\x82", 12));
  server.stop();
}

// The plain-HTTP client's own stream (http_bulk.cpp): a body read in large blocks, and never a byte past
// the end its head announced, so what a broken server sends on stays in the socket for the pool to see.
#include <atomic>
#include <limits>
#include <string>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/contract/http.hpp"
#include "http_bulk.hpp"
#include "http_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using entimg::contract::detail::body_bytes_expected;
using entimg::contract::detail::BulkReadClient;
using entimg::contract::detail::kBulkRead;

namespace {

// One large body per request, sent in one go with the head.
std::string big_answer(std::size_t size) {
  std::string body(size, 'x');
  for (std::size_t i = 0; i < size; i += 997)
    body[i] = static_cast<char>('a' + i % 26);
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n" + body;
}

httplib::Response head_with(std::initializer_list<std::pair<const char*, const char*>> headers) {
  httplib::Response head;
  for (const auto& [name, value] : headers)
    head.headers.emplace(name, value);
  return head;
}

// GET `path` as the suite's client sends it: the head's announced length goes to the stream before the body.
httplib::Request get(BulkReadClient& client, const std::string& path) {
  httplib::Request req;
  req.method = std::string("GET");
  req.path = path;
  req.response_handler = [&client](const httplib::Response& head) {
    client.expect_body(body_bytes_expected(head, std::numeric_limits<std::uint64_t>::max()));
    return true;
  };
  return req;
}

}  // namespace

TEST_CASE("a body of announced length is read in large blocks, exactly as sent", "[http]") {
  constexpr std::size_t kSize = 1 << 20;
  const std::string answer = big_answer(kSize);
  RawServer server([&answer](int fd, const std::atomic<bool>& stopping) {
    while (!read_head(fd, stopping).empty())
      if (!send_all(fd, answer, stopping)) return;
  });
  BulkReadClient client("127.0.0.1", server.port());
  client.set_keep_alive(true);
  for (int round = 0; round < 2; ++round) {
    const std::size_t reads_before = client.socket_reads();
    httplib::Request req = get(client, "/");
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    REQUIRE(client.send(req, res, error));
    CHECK(res.body == answer.substr(answer.size() - kSize));
    // cpp-httplib's own stream makes at least 256 reads of 4 KiB for this body; a block is up to 128 KiB.
    const std::size_t reads = client.socket_reads() - reads_before;
    CAPTURE(round, reads);
    CHECK(reads < 128);
  }
  CHECK(server.connections() == 1);
}

TEST_CASE("bytes a server sends past the announced body stay in the socket", "[http]") {
  // More than a block of body, then stray bytes in the same write: read ahead, they would be taken (and lost)
  // with the body's last block, and the dirty connection reused.
  const std::string answer = big_answer(kBulkRead + 1000) + "STRAY";
  RawServer server([&answer](int fd, const std::atomic<bool>& stopping) {
    while (!read_head(fd, stopping).empty())
      if (!send_all(fd, answer, stopping)) return;
  });
  Client client(options_for(server.url()));
  const auto first = client.request("GET", "/");
  CHECK(first.status == 200);
  CHECK(first.body.size() == kBulkRead + 1000);
  CHECK(first.body == answer.substr(answer.find("\r\n\r\n") + 4, kBulkRead + 1000));
  const auto second = client.request("GET", "/");
  CHECK(second.status == 200);
  CHECK(second.body == first.body);
  CHECK(server.connections() == 2);  // the pool saw the stray bytes and opened a new connection
}

TEST_CASE("the body length read ahead follows cpp-httplib's reading of the head", "[http]") {
  constexpr std::uint64_t kCap = 1000;
  CHECK(body_bytes_expected(head_with({{"Content-Length", "123"}}), kCap) == 123);
  CHECK(body_bytes_expected(head_with({{"Content-Length", "5000"}}), kCap) == kCap);
  CHECK(body_bytes_expected(head_with({{"content-length", "7"}, {"Content-Length", "9"}}), kCap) == 7);
  CHECK(body_bytes_expected(head_with({{"Content-Length", "abc"}}), kCap) == 0);
  CHECK(body_bytes_expected(head_with({{"Content-Length", "12abc"}}), kCap) == 12);
  CHECK(body_bytes_expected(head_with({{"Content-Length", "-1"}}), kCap) == kCap);  // strtoull wraps it
  CHECK(body_bytes_expected(head_with({{"Content-Length", "0"}}), kCap) == 0);
  // A chunked body has its own framing: nothing is read ahead.
  CHECK(body_bytes_expected(head_with({{"Transfer-Encoding", "Chunked"}, {"Content-Length", "9"}}), kCap) ==
        0);
  // Another coding than chunked alone leaves the length in charge, as cpp-httplib reads it.
  CHECK(body_bytes_expected(head_with({{"Transfer-Encoding", "gzip, chunked"}, {"Content-Length", "9"}}),
                            kCap) == 9);
  // No length: the body runs to the end of the connection, which nothing follows.
  CHECK(body_bytes_expected(head_with({}), kCap) == kCap);
}

TEST_CASE("a head over the limit fails the read that passes it, and says so once", "[http]") {
  const std::string head =
      "HTTP/1.1 200 OK\r\nX-Pad: " + std::string(1000, 'p') + "\r\nContent-Length: 2\r\n\r\n";
  RawServer server([&head](int fd, const std::atomic<bool>& stopping) {
    while (!read_head(fd, stopping).empty())
      if (!send_all(fd, head + "ok", stopping)) return;
  });
  for (const std::size_t limit : {head.size(), head.size() - 1}) {
    BulkReadClient client("127.0.0.1", server.port());
    int over = 0;
    client.limit_head(limit, [&over] { ++over; });
    httplib::Request req = get(client, "/");
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const bool sent = client.send(req, res, error);
    CAPTURE(limit, head.size());
    if (limit == head.size()) {  // a head of exactly the limit is whole, and its body is read
      CHECK(sent);
      CHECK(res.body == "ok");
      CHECK(over == 0);
    } else {
      CHECK_FALSE(sent);
      CHECK(error == httplib::Error::Read);
      CHECK(over == 1);
    }
  }
}

// The plain-HTTP client's own stream (http_bulk.cpp): a body read in large blocks, and never a byte past
// the end its head announced, so what a broken server sends on stays in the socket for the pool to see.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include <httplib.h>

#include <catch2/catch.hpp>

#include "entimg/common/prng.hpp"
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

namespace {

std::string letters(entimg::common::Pcg32& rng, std::size_t size) {
  std::string out(size, 'a');
  for (auto& c : out)
    c = static_cast<char>('a' + rng.below(26));
  return out;
}

// A whole answer, then the connection closes: framed right or wrongly (lengths short, long, garbage or
// repeated, chunks good or broken, no length at all), with heads of many sizes and stray bytes after.
std::string random_answer(entimg::common::Pcg32& rng) {
  static const std::vector<std::size_t> kSizes = {0, 1, 4095, 4096, 4097, 131071, 131072, 131073, 262145};
  const std::size_t size =
      rng.chance(50) ? kSizes[rng.below(static_cast<std::uint32_t>(kSizes.size()))] : rng.below(300000);
  const std::string body = letters(rng, size);
  static const std::vector<std::string> kStatus = {"HTTP/1.1 200 OK", "HTTP/1.0 200 OK",
                                                   "HTTP/1.1 204 No Content", "HTTP/1.1 404 Not Found"};
  std::string head = (rng.chance(80) ? kStatus[0] : kStatus[rng.below(4)]) + "\r\n";
  for (std::uint32_t i = rng.below(4); i > 0; --i)
    head += "X-Pad: " + letters(rng, rng.below(6000)) + "\r\n";
  std::string framed = body;
  const std::string length = std::to_string(size);
  switch (rng.below(7)) {
    case 0:
      head += "Content-Length: " + length + "\r\n";
      break;
    case 1:
      head +=
          "Content-Length: " + std::to_string(size - std::min<std::size_t>(size, rng.below(5000))) + "\r\n";
      break;
    case 2:
      head += "Content-Length: " + std::to_string(size + 1 + rng.below(5000)) + "\r\n";
      break;
    case 3:
      break;  // to the end of the connection
    case 4:
    case 5: {
      head += "Transfer-Encoding: chunked\r\n";
      framed.clear();
      for (std::size_t at = 0; at < size;) {
        const std::size_t n = std::min<std::size_t>(size - at, 1 + rng.below(70000));
        char hex[32];
        std::snprintf(hex, sizeof hex, "%zx", n);
        framed += std::string(hex) + "\r\n" + body.substr(at, n) + "\r\n";
        at += n;
      }
      framed += "0\r\n\r\n";
      if (rng.chance(50)) framed.insert(rng.below(static_cast<std::uint32_t>(framed.size())), "zz\r\n");
      break;
    }
    default: {
      static const std::vector<std::string> kOdd = {"abc", "-1", "12abc", " 5", "+7", "99999999999999999999"};
      head += "Content-Length: " + kOdd[rng.below(static_cast<std::uint32_t>(kOdd.size()))] + "\r\n";
      if (rng.chance(50)) head += "Content-Length: " + length + "\r\n";
    }
  }
  std::string answer = head + "\r\n" + framed;
  if (rng.chance(30)) answer += "STRAY" + letters(rng, rng.below(9000));
  return answer;
}

struct Got {
  bool ok = false;
  httplib::Error error = httplib::Error::Success;
  int status = 0;
  std::string body;
};

// GET / on a fresh connection, the body gathered as the suite gathers it.
template <typename ClientType>
Got fetch_with(ClientType& client, BulkReadClient* bulk) {
  client.set_read_timeout(5, 0);
  httplib::Request req;
  req.method = std::string("GET");
  req.path = std::string("/");
  Got got;
  req.response_handler = [bulk](const httplib::Response& head) {
    if (bulk != nullptr)
      bulk->expect_body(body_bytes_expected(head, std::numeric_limits<std::uint64_t>::max()));
    return true;
  };
  req.content_receiver = [&got](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
    got.body.append(data, size);
    return true;
  };
  httplib::Response res;
  got.ok = client.send(req, res, got.error);
  got.status = res.status;
  return got;
}

}  // namespace

// The stream against cpp-httplib's own on answers nobody wrote by hand: both must end the same way, with the
// same body, whatever the framing. Each answer is served twice, once to each client.
TEST_CASE("the block-reading stream ends every seeded random answer as cpp-httplib's own stream does",
          "[http]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3);
  INFO("seed " << seed << " (contract_http_tests \"the block-reading stream ends every*\")");
  entimg::common::Pcg32 rng(seed, 91);
  std::mutex mutex;
  std::string answer;
  RawServer server([&](int fd, const std::atomic<bool>& stopping) {
    if (read_head(fd, stopping).empty()) return;
    std::string mine;
    {
      const std::lock_guard lock(mutex);
      mine = answer;
    }
    send_all(fd, mine, stopping);
  });
  int whole = 0;
  constexpr int kAnswers = 150;
  for (int i = 0; i < kAnswers; ++i) {
    {
      const std::lock_guard lock(mutex);
      answer = random_answer(rng);
    }
    INFO("answer " << i << ", " << answer.size() << " bytes, head: "
                   << answer.substr(0, std::min<std::size_t>(answer.find("\r\n\r\n"), 300)));
    httplib::ClientImpl stock("127.0.0.1", server.port());
    const Got expected = fetch_with(stock, nullptr);
    BulkReadClient bulk("127.0.0.1", server.port());
    const Got got = fetch_with(bulk, &bulk);
    CHECK(got.ok == expected.ok);
    CHECK(got.error == expected.error);
    CHECK(got.status == expected.status);
    CHECK(got.body.size() == expected.body.size());
    // Where the bodies first differ (their common size when they do not): printed, not the bodies.
    const auto differ =
        std::mismatch(got.body.begin(), got.body.end(), expected.body.begin(), expected.body.end());
    CHECK(static_cast<std::size_t>(differ.first - got.body.begin()) == expected.body.size());
    whole += expected.ok ? 1 : 0;
  }
  // Both endings are common, so a stream that failed (or passed) everything would not agree above.
  CHECK(whole > kAnswers / 5);
  CHECK(whole < kAnswers * 9 / 10);
}

#include "request_parser.hpp"

#include <catch2/catch.hpp>

#include "entimg/common/prng.hpp"

using namespace entimg::mock;
using namespace entimg::mock::detail;

namespace {

struct Outcome {
  RequestParser::State state;
  ParsedRequest request;
  ParseError error;
  std::size_t consumed = 0;
};

// Feeds `bytes` in pieces of the given sizes (the rest at the end), as a socket might deliver them.
Outcome parse(const std::string& bytes, const std::vector<std::size_t>& pieces = {},
              const ConnectionLimits& limits = {}) {
  RequestParser parser(limits);
  std::string buffer;
  std::size_t fed = 0;
  RequestParser::State state = RequestParser::State::head;
  for (std::size_t piece : pieces) {
    piece = std::min(piece, bytes.size() - fed);
    buffer.append(bytes, fed, piece);
    fed += piece;
    state = parser.advance(buffer);
    if (state == RequestParser::State::complete || state == RequestParser::State::failed) break;
  }
  if (state != RequestParser::State::complete && state != RequestParser::State::failed) {
    buffer.append(bytes, fed);
    state = parser.advance(buffer);
  }
  Outcome out{state, {}, parser.error()};
  if (state == RequestParser::State::complete) out.request = parser.take(out.consumed);
  return out;
}

}  // namespace

TEST_CASE("the request reaches the view as sent: method, a '?' in the query, empty and encoded values",
          "[parser]") {
  const Outcome o = parse(
      "PROPFIND /edw/api/entities-images/?a=a?b&c=%3F HTTP/1.1\r\nHost: exa%6dple.com\r\nAccept:\r\n"
      "X-Spaces:   kept inside  \r\n\r\n");
  REQUIRE(o.state == RequestParser::State::complete);
  CHECK(o.request.method == "PROPFIND");
  CHECK(o.request.target == "/edw/api/entities-images/?a=a?b&c=%3F");
  REQUIRE(o.request.headers.size() == 3);
  CHECK(o.request.headers[0] == std::pair<std::string, std::string>{"Host", "exa%6dple.com"});
  CHECK(o.request.headers[1] == std::pair<std::string, std::string>{"Accept", ""});
  CHECK(o.request.headers[2].second == "kept inside");
  CHECK(o.request.keep_alive);
}

TEST_CASE("lower-case methods, raw UTF-8 targets, bare LF line ends and leading empty lines are read",
          "[parser]") {
  const Outcome o = parse("\r\n\nget /caf\xc3\xa9?q=\xd0\xb6 HTTP/1.0\nConnection: Keep-Alive\n\n");
  REQUIRE(o.state == RequestParser::State::complete);
  CHECK(o.request.method == "get");
  CHECK(o.request.target == "/caf\xc3\xa9?q=\xd0\xb6");
  CHECK(o.request.minor_version == 0);
  CHECK(o.request.keep_alive);
  CHECK(parse("GET / HTTP/1.0\r\n\r\n").request.keep_alive == false);
  CHECK(parse("GET / HTTP/1.1\r\nConnection: upgrade, close\r\n\r\n").request.keep_alive == false);
}

TEST_CASE("bodies: Content-Length, chunked with extensions and trailers, pipelined bytes left over",
          "[parser]") {
  const Outcome sized = parse("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n");
  REQUIRE(sized.state == RequestParser::State::complete);
  CHECK(sized.request.body == "hello");
  CHECK(sized.consumed == std::string("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").size());
  const Outcome chunked = parse(
      "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-T: "
      "1\r\n\r\n");
  REQUIRE(chunked.state == RequestParser::State::complete);
  CHECK(chunked.request.body == "hello world");
  const Outcome get_body = parse("GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
  CHECK(get_body.request.body == "abc");
  CHECK(parse("POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc").request.body == "abc");
}

TEST_CASE("every limit and malformation gets its status", "[parser]") {
  ConnectionLimits small;
  small.max_request_line = 100;
  small.max_header_line = 100;
  small.max_headers = 3;
  small.max_head = 300;
  small.max_chunk_line = 20;
  small.max_body = 10;
  const std::string head = "POST / HTTP/1.1\r\n";
  const struct {
    std::string bytes;
    int status;
  } cases[] = {
      {"GET /" + std::string(200, 'a'), 414},
      {"GET /" + std::string(200, 'a') + " HTTP/1.1\r\n\r\n", 414},
      {head + "X: " + std::string(200, 'b'), 431},
      {head + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 431},
      {head + "A: " + std::string(90, 'x') + "\r\nB: " + std::string(90, 'x') +
           "\r\nC: " + std::string(90, 'x') + "\r\n\r\n",
       431},
      {head + "Content-Length: 11\r\n\r\n", 413},
      {head + "Content-Length: 99999999999999999999999\r\n\r\n", 413},
      {head + "Content-Length: -1\r\n\r\n", 400},
      {head + "Content-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {head + "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {head + "Transfer-Encoding: gzip\r\n\r\n", 400},
      {head + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {head + "Transfer-Encoding: chunked\r\n\r\n" + std::string(30, '1'), 400},
      {head + "Transfer-Encoding: chunked\r\n\r\nb\r\n", 413},
      {head + "Transfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n", 413},
      {head + "Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400},
      {head + "Transfer-Encoding: chunked\r\n\r\ng\r\n", 400},
      {"GET  / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1 \r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/3\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET /a\x7f HTTP/1.1\r\n\r\n", 400},
      {head + "No colon\r\n\r\n", 400},
      {head + "Bad name: x\r\n\r\n", 400},
      {head + "A: b\r\n folded\r\n\r\n", 400},
      {head + std::string("A: b\0c\r\n\r\n", 10), 400},
      {"\r\r\n", 400},
      {std::string(400, '\n'), 400},
  };
  for (const auto& c : cases) {
    INFO(c.bytes.substr(0, 120));
    const Outcome o = parse(c.bytes, {}, small);
    REQUIRE(o.state == RequestParser::State::failed);
    CHECK(o.error.status == c.status);
    CHECK_FALSE(o.error.message.empty());
  }
}

TEST_CASE("a request split anywhere parses as it does whole, and random bytes never crash it",
          "[parser][random]") {
  // Seeded: Catch2's --rng-seed (printed on failure) chooses the splits and the garbage.
  const std::uint64_t seed = Catch::rngSeed();
  INFO("seed " << seed << " (rerun: mock_tests '[parser][random]' --rng-seed " << seed << ")");
  entimg::common::Pcg32 rng(seed, 7);
  const std::string requests[] = {
      "GET /edw/api/entities-images/?limit=3 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n",
      "POST /x HTTP/1.1\r\nTransfer-Encoding: "
      "chunked\r\n\r\n3\r\nabc\r\n10;x\r\n0123456789abcdef\r\n0\r\n\r\n",
      "PUT /y HTTP/1.0\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\nbody",
  };
  for (const std::string& whole : requests) {
    const Outcome reference = parse(whole);
    REQUIRE(reference.state == RequestParser::State::complete);
    for (int round = 0; round < 200; ++round) {
      std::vector<std::size_t> pieces;
      for (std::size_t left = whole.size(); left > 0;) {
        const std::size_t piece = 1 + rng.below(static_cast<std::uint32_t>(std::min<std::size_t>(left, 16)));
        pieces.push_back(piece);
        left -= piece;
      }
      const Outcome split = parse(whole, pieces);
      REQUIRE(split.state == RequestParser::State::complete);
      CHECK(split.request.method == reference.request.method);
      CHECK(split.request.target == reference.request.target);
      CHECK(split.request.headers == reference.request.headers);
      CHECK(split.request.body == reference.request.body);
      CHECK(split.consumed == reference.consumed);
    }
    // Mutated copies: any outcome is fine but a crash, a hang, or a request that used bytes it was not given.
    for (int round = 0; round < 2000; ++round) {
      std::string mutated = whole;
      for (std::uint32_t edits = 1 + rng.below(4); edits > 0; --edits) {
        const std::size_t at = rng.below(static_cast<std::uint32_t>(mutated.size()));
        const char byte = static_cast<char>(rng.below(256));
        switch (rng.below(3)) {
          case 0:
            mutated[at] = byte;
            break;
          case 1:
            mutated.insert(mutated.begin() + static_cast<std::ptrdiff_t>(at), byte);
            break;
          default:
            mutated.erase(at, 1);
            break;
        }
      }
      const Outcome o = parse(mutated, {1 + rng.below(8), 1 + rng.below(64)});
      if (o.state == RequestParser::State::complete) CHECK(o.consumed <= mutated.size());
      if (o.state == RequestParser::State::failed) CHECK((o.error.status >= 400 && o.error.status <= 505));
    }
  }
}

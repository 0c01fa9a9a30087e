// Range requests on /media/ answered as nginx's range filter answers them (the same cases against a real
// nginx: range_vs_nginx.py). Here: the parser's verdicts, and the answers of one, several, none and odd
// ranges, for a body held and one made in pieces.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "byte_ranges.hpp"

using namespace entimg::mock;
using namespace entimg::mock::detail;

namespace {

using Verdict = RangeSet::Verdict;
using Spans = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

std::string range_header_of(const HttpResponse& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "(none)";
}

HttpRequest range_request(std::vector<std::pair<std::string, std::string>> headers) {
  return HttpRequest{"GET", "/media/x.png", std::move(headers), "127.0.0.1:8000", {}};
}

// The body as a source, so the pieces' path is taken.
class RangeTextSource final : public BodySource {
 public:
  explicit RangeTextSource(std::string text) : text_(std::move(text)) {}
  std::uint64_t size() const override { return text_.size(); }
  void write(std::uint64_t offset, char* out, std::size_t n) const override { text_.copy(out, n, offset); }

 private:
  std::string text_;
};

}  // namespace

TEST_CASE("Range values read as nginx reads them", "[ranges]") {
  struct Case {
    const char* spec;
    Verdict verdict;
    Spans spans;
  };
  const std::vector<Case> cases = {
      {"0-0", Verdict::partial, {{0, 1}}},
      {"0-99", Verdict::partial, {{0, 100}}},
      {"900-", Verdict::partial, {{900, 1000}}},
      {"-100", Verdict::partial, {{900, 1000}}},
      {"-5000", Verdict::partial, {{0, 1000}}},  // more than the file: all of it
      {"0-", Verdict::partial, {{0, 1000}}},
      {"500-99999", Verdict::partial, {{500, 1000}}},
      {" 1 - 2 , 4-5", Verdict::partial, {{1, 3}, {4, 6}}},
      {"0-9,20-29,5-14", Verdict::partial, {{0, 10}, {20, 30}, {5, 15}}},
      {"0-,0-", Verdict::whole, {}},  // more than the file in all: the whole of it
      {"1000-", Verdict::unsatisfiable, {}},
      {"1000-2000", Verdict::unsatisfiable, {}},
      {"5-2", Verdict::unsatisfiable, {}},
      {"-0", Verdict::unsatisfiable, {}},
      {"0-0,1000-", Verdict::partial, {{0, 1}}},  // an unsatisfiable range among others is left out
      {"abc", Verdict::unsatisfiable, {}},
      {"0-9;", Verdict::unsatisfiable, {}},
      {"0-9,", Verdict::unsatisfiable, {}},
      {"99999999999999999999-", Verdict::unsatisfiable, {}},
      {"-", Verdict::unsatisfiable, {}},
  };
  for (const Case& c : cases) {
    INFO("bytes=" << c.spec);
    const RangeSet set = parse_byte_ranges(c.spec, 1000);
    CHECK(set.verdict == c.verdict);
    CHECK(set.spans == c.spans);
  }
  CHECK(parse_byte_ranges("0-", 0).verdict == Verdict::whole);  // an empty file: nginx sends it whole
}

TEST_CASE("one range is a 206 with Content-Range, none satisfiable a 416, other answers whole", "[ranges]") {
  const std::string body = "0123456789abcdefghij";
  for (const bool pieces : {false, true}) {
    INFO((pieces ? "made in pieces" : "held"));
    const auto full = [&] {
      HttpResponse r{200, "image/png", {}, pieces ? "" : body, nullptr};
      if (pieces) r.source = std::make_shared<RangeTextSource>(body);
      return r;
    };
    const HttpResponse one = answer_ranges(range_request({{"Range", "bytes=2-5"}}), full());
    CHECK(one.status == 206);
    CHECK(range_header_of(one, "Content-Range") == "bytes 2-5/20");
    CHECK(range_header_of(one, "Accept-Ranges") == "(none)");
    CHECK(whole_body(one) == "2345");
    const HttpResponse none = answer_ranges(range_request({{"Range", "bytes=20-"}}), full());
    CHECK(none.status == 416);
    CHECK(range_header_of(none, "Content-Range") == "bytes */20");
    CHECK(none.body.find("416 Requested Range Not Satisfiable") != std::string::npos);
    for (const auto& headers : std::vector<std::vector<std::pair<std::string, std::string>>>{
             {},
             {{"Range", "items=0-1"}},
             {{"Range", "bytes="}},
             {{"Range", "bytes=0-1"}, {"If-Range", "\"x\""}}}) {
      const HttpResponse whole = answer_ranges(range_request(headers), full());
      CHECK(whole.status == 200);
      CHECK(range_header_of(whole, "Accept-Ranges") == "bytes");
      CHECK(whole_body(whole) == body);
    }
    // nginx keeps the first of two Range headers
    CHECK(whole_body(
              answer_ranges(range_request({{"Range", "bytes=0-0"}, {"Range", "bytes=1-1"}}), full())) == "0");
    HttpResponse missing = full();
    missing.status = 404;
    CHECK(answer_ranges(range_request({{"Range", "bytes=0-0"}}), std::move(missing)).status == 404);
  }
}

TEST_CASE("several ranges are one multipart/byteranges body, as nginx frames it", "[ranges]") {
  const std::string body = "0123456789abcdefghij";
  const HttpRequest request = range_request({{"Range", "bytes=0-1,-3"}});
  const HttpResponse held = answer_ranges(request, HttpResponse{200, "image/gif", {}, body, nullptr});
  HttpResponse made{200, "image/gif", {}, {}, std::make_shared<RangeTextSource>(body)};
  const HttpResponse pieces = answer_ranges(request, std::move(made));
  REQUIRE(held.status == 206);
  const std::string type = held.content_type;
  REQUIRE(type.starts_with("multipart/byteranges; boundary="));
  const std::string b = type.substr(type.find('=') + 1);
  CHECK(b.size() == 20);
  CHECK(held.body == "\r\n--" + b + "\r\nContent-Type: image/gif\r\nContent-Range: bytes 0-1/20\r\n\r\n01" +
                         "\r\n--" + b +
                         "\r\nContent-Type: image/gif\r\nContent-Range: bytes 17-19/20\r\n\r\nhij" +
                         "\r\n--" + b + "--\r\n");
  CHECK(pieces.content_type == type);  // the same request, the same boundary
  CHECK(whole_body(pieces) == held.body);
  CHECK(range_header_of(held, "Content-Range") == "(none)");
}

// The rules on headers: Content-Type, Allow, Vary, HEAD and OPTIONS.
#include <catch2/catch.hpp>

#include "check_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;

namespace {

// The first page with one header set to value (removed when value is empty), others untouched.
Page with_header(const std::string& name, const std::string& value) {
  Page page = drf_page(300, std::nullopt, std::nullopt);
  auto& headers = page.exchange.headers;
  headers.erase(
      std::remove_if(headers.begin(), headers.end(), [&](const auto& h) { return h.first == name; }),
      headers.end());
  if (!value.empty()) headers.emplace_back(name, value);
  return page;
}

HttpExchange head_of(const Page& get) {
  HttpExchange head = get.exchange;
  head.method = "HEAD";
  head.body.clear();
  return head;
}

}  // namespace

TEST_CASE("content_type_json: application/json, with or without parameters, passes", "[content_type_json]") {
  for (const std::string value :
       {"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
        "application/json ; charset=\"utf-8\"", "application/json; indent=4"}) {
    INFO(value);
    CHECK(failing_page_rules(with_header("Content-Type", value)) == none());
  }
}

TEST_CASE("content_type_json: another type, none, or a non-UTF-8 charset fails alone",
          "[content_type_json]") {
  for (const std::string value : {"text/html; charset=utf-8", "", "application/jsonp", "text/json",
                                  "application/json; charset=iso-8859-1"}) {
    INFO(value);
    Findings findings;
    check_page(context(), with_header("Content-Type", value), findings);
    CHECK(failing_rules(findings) == only("content_type_json"));
  }
  Page twice = drf_page(300, std::nullopt, std::nullopt);
  twice.exchange.headers.emplace_back("content-type", "application/json");
  CHECK(failing_page_rules(twice) == only("content_type_json"));
  Findings findings;
  judge("content_type_json", context(), with_header("Content-Type", "text/html; charset=utf-8"), findings);
  CHECK(message_of(findings, "content_type_json") ==
        "expected Content-Type application/json, got \"text/html; charset=utf-8\"");
}

TEST_CASE("allow_header: the four methods in any order and spacing pass", "[allow_header]") {
  for (const std::string value : {"GET, POST, HEAD, OPTIONS", "OPTIONS,HEAD , GET,POST",
                                  " GET,POST,HEAD,OPTIONS ", "GET, POST, HEAD, OPTIONS,"}) {
    INFO(value);
    CHECK(failing_page_rules(with_header("Allow", value)) == none());
  }
  Page split = with_header("Allow", "GET, POST");
  split.exchange.headers.emplace_back("allow", "HEAD, OPTIONS");
  CHECK(failing_page_rules(split) == none());
}

TEST_CASE("allow_header: a missing or an extra method fails alone", "[allow_header]") {
  for (const std::string value : {"GET, HEAD, OPTIONS", "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS", "",
                                  "GET POST HEAD OPTIONS", "get, post, head, options"}) {
    INFO(value);
    CHECK(failing_page_rules(with_header("Allow", value)) == only("allow_header"));
  }
  Findings findings;
  judge("allow_header", context(), with_header("Allow", "GET, HEAD, OPTIONS, PUT"), findings);
  CHECK(
      message_of(findings, "allow_header") ==
      "expected Allow to list exactly GET, POST, HEAD, OPTIONS (any order), got \"GET, HEAD, OPTIONS, PUT\"; "
      "missing \"POST\"; not expected \"PUT\"");
}

TEST_CASE("vary_accept: Accept among other values passes", "[vary_accept]") {
  for (const std::string value : {"Accept", "Accept, Cookie", "Cookie, Accept-Language,ACCEPT", "*"}) {
    INFO(value);
    CHECK(failing_page_rules(with_header("Vary", value)) == none());
  }
  Page split = with_header("Vary", "Cookie");
  split.exchange.headers.emplace_back("Vary", "Accept");
  CHECK(failing_page_rules(split) == none());
}

TEST_CASE("vary_accept: no Accept token fails alone", "[vary_accept]") {
  for (const std::string value : {"Accept-Language, Cookie", "", "Accept-Encoding", "Acceptx"}) {
    INFO(value);
    CHECK(failing_page_rules(with_header("Vary", value)) == only("vary_accept"));
  }
}

TEST_CASE("head_matches_get: same status and headers, other volatile headers, no body passes",
          "[head_matches_get]") {
  const Page get = drf_page(300, std::nullopt, std::nullopt);
  HttpExchange head = head_of(get);
  for (auto& [name, value] : head.headers)
    if (name == "Date") value = "Mon, 01 Jan 2024 00:00:01 GMT";
  head.headers.emplace_back("X-Request-Id", "abc");
  head.headers.emplace_back("Connection", "close");
  std::reverse(head.headers.begin(), head.headers.end());
  Findings findings;
  judge("head_matches_get", context(), get, head, findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("head_matches_get") == 1);
}

TEST_CASE("head_matches_get: another status, a body, other headers or length fail", "[head_matches_get]") {
  const Page get = drf_page(300, std::nullopt, std::nullopt);
  const auto first_failure = [&](const std::function<void(HttpExchange&)>& edit) {
    HttpExchange head = head_of(get);
    edit(head);
    Findings findings;
    judge("head_matches_get", context(), get, head, findings);
    CHECK(failing_rules(findings) == only("head_matches_get"));
    return findings.failures().empty() ? std::string() : findings.failures()[0].message;
  };
  CHECK(first_failure([](HttpExchange& h) { h.status = 405; }) ==
        "expected HEAD's status to be GET's 200, got 405");
  CHECK(first_failure([](HttpExchange& h) { h.body = "{}"; }) ==
        "expected HEAD's body empty, got 2 bytes after the headers");
  CHECK(first_failure([](HttpExchange& h) { h.bytes_after_head = 5142; }) ==
        "expected HEAD's body empty, got 5142 bytes after the headers");
  CHECK(first_failure([](HttpExchange& h) { h.headers.erase(h.headers.begin() + 3); }) ==
        "expected HEAD's allow to be GET's \"GET, POST, HEAD, OPTIONS\", got none");
  CHECK(first_failure([](HttpExchange& h) {
          h.headers.back().second = "0";
        }).starts_with("expected HEAD's Content-Length to be "));
  CHECK(first_failure([](HttpExchange& h) { h.headers.pop_back(); }).ends_with("as GET's, got none"));
  CHECK(first_failure([](HttpExchange& h) {
          h.headers.emplace_back("X-Extra", "1");
        }).starts_with("expected no x-extra header"));
  CHECK(first_failure([](HttpExchange& h) {
          h.status = 0;
          h.error = "timeout";
        }).find("timeout") != std::string::npos);
}

TEST_CASE("head_matches_get: a compressed GET is compared by its Content-Length", "[head_matches_get]") {
  Page get = drf_page(300, std::nullopt, std::nullopt);
  for (auto& [name, value] : get.exchange.headers)
    if (name == "Content-Length") value = "1234";
  get.exchange.headers.emplace_back("Content-Encoding", "gzip");
  Findings findings;
  judge("head_matches_get", context(), get, head_of(get), findings);
  CHECK(findings.failures().empty());
}

TEST_CASE("options_ok: 200 passes, anything else fails", "[options_ok]") {
  HttpExchange options;
  options.method = "OPTIONS";
  options.url = std::string(kOrigin) + kPath;
  options.status = 200;
  Findings ok;
  judge("options_ok", context(), options, ok);
  CHECK(ok.failures().empty());
  CHECK(ok.checked("options_ok") == 1);
  for (const int status : {403, 405, 500, 0}) {
    options.status = status;
    Findings findings;
    judge("options_ok", context(), options, findings);
    CHECK(failing_rules(findings) == only("options_ok"));
  }
}

TEST_CASE("header rules skip answers that are not 200", "[content_type_json][allow_header][vary_accept]") {
  Page page = make_page_text(R"({"detail":"Not found."})", {}, 12, 0, 404);
  page.exchange.headers.clear();
  Findings findings;
  judge("content_type_json", context(), page, findings);
  judge("allow_header", context(), page, findings);
  judge("vary_accept", context(), page, findings);
  CHECK(findings.failures().empty());
}

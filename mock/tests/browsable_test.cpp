#include "browsable.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "entimg/mock/service.hpp"

using namespace entimg::mock;

namespace {
HttpResponse ask(std::string target, std::vector<std::pair<std::string, std::string>> headers = {},
                 std::string method = "GET") {
  static const Service service(make_generated_dataset(100, 3), User{"alice", "s3cret"});
  headers.emplace_back("Host", "testserver");
  return service.handle(
      HttpRequest{std::move(method), std::move(target), std::move(headers), "127.0.0.1:8000", {}});
}

std::string urlized(std::string_view text) {
  std::string out;
  detail::append_urlized(out, text);
  return out;
}

std::string between(const std::string& page, std::string_view from, std::string_view to) {
  const auto b = page.find(from);
  if (b == std::string::npos) return "<absent>";
  return page.substr(b + from.size(), page.find(to, b + from.size()) - b - from.size());
}
}  // namespace

// Before: the crumbs showed the path re-encoded ("%D9%A1"); DRF's get_breadcrumbs walks request.path.
TEST_CASE("breadcrumbs show the decoded path, as Django's request.path is", "[browsable]") {
  const auto first = nlohmann::json::parse(ask("/edw/api/entities-images/?limit=1").body)["results"][0]["id"];
  std::string arabic;  // the id in Arabic-Indic digits, which int() reads
  for (const char d : first.dump())
    arabic += "\xD9" + std::string(1, static_cast<char>(0xA0 + (d - '0')));
  std::string encoded;
  for (const char c : arabic) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    const auto u = static_cast<unsigned char>(c);
    encoded += std::string{'%', kHex[u >> 4], kHex[u & 15]};
  }
  const HttpResponse page = ask("/edw/api/entities-images/" + encoded + ".api");
  REQUIRE(page.status == 200);
  CHECK_THAT(page.body, Catch::Contains("href=\"/edw/api/entities-images/" + arabic + ".api\""));
  CHECK_THAT(page.body, Catch::Contains("href=\"/edw/api/entities-images/\""));
}

TEST_CASE("urlize links what Django's urlize links and escapes the rest", "[browsable]") {
  CHECK(urlized(R"("http://a.b/x?y=1&z=2", see www.example.com, mail a@b.org. (http://c.d/e))") ==
        R"(&quot;<a href="http://a.b/x?y=1&amp;z=2" rel="nofollow">http://a.b/x?y=1&amp;z=2</a>&quot;, see )"
        R"(<a href="http://www.example.com" rel="nofollow">www.example.com</a>, mail )"
        R"(<a href="mailto:a@b.org">a@b.org</a>. (<a href="http://c.d/e" rel="nofollow">http://c.d/e</a>))");
  CHECK(
      urlized(R"("filer_public/da/be/x/scan.JPEG", example.com foo.org/x)") ==
      R"(&quot;filer_public/da/be/x/scan.JPEG&quot;, <a href="http://example.com" rel="nofollow">example.com</a> )"
      R"(<a href="http://foo.org/x" rel="nofollow">foo.org/x</a>)");
  CHECK(urlized("<script>alert('x')</script> & http://h/<b>") ==
        "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; "
        "<a href=\"http://h/\" rel=\"nofollow\">http://h/</a>&lt;b&gt;");
}

TEST_CASE("?format=api, .api and an HTML Accept render the page with the view's headers", "[browsable]") {
  for (const auto& r : {ask("/edw/api/entities-images/?format=api"), ask("/edw/api/entities-images.api"),
                        ask("/edw/api/entities-images/", {{"Accept", "text/html"}})}) {
    CHECK(r.status == 200);
    CHECK(r.content_type == "text/html; charset=utf-8");
    CHECK(r.body.find("<title>Entity Image List \xE2\x80\x93 Django REST framework</title>") !=
          std::string::npos);
    CHECK(r.body.find("<h1>Entity Image List</h1>") != std::string::npos);
    CHECK(r.body.find(
              "<b>HTTP 200 OK</b>\n<b>Allow:</b> <span class=\"lit\">GET, POST, HEAD, OPTIONS</span>") !=
          std::string::npos);
    CHECK(r.body.find("\n    &quot;count&quot;: 100,\n") != std::string::npos);
    CHECK(r.body.find("<script") == std::string::npos);  // self-contained: no scripts, no static files
  }
}

TEST_CASE("echoed request values are escaped on the page", "[browsable]") {
  const auto type = ask("/edw/api/entities-images/?format=api",
                        {{"Authorization", "Basic YWxpY2U6czNjcmV0"},
                         {"Content-Type", "text/<script>x"},
                         {"Content-Length", "3"}},
                        "POST");
  CHECK(type.status == 415);
  CHECK(type.body.find("<script>") == std::string::npos);
  CHECK(type.body.find("text/&lt;script&gt;x") != std::string::npos);
  const auto quoted = ask("/edw/api/entities-images/?format=api&q=\"><i>'");
  // get_full_path() quotes what a URI may not hold; the rest is escaped.
  CHECK(between(quoted.body, "<b>GET</b> ", "</pre>") ==
        "/edw/api/entities-images/?format=api&amp;q=%22%3E%3Ci%3E&#x27;");
  CHECK(quoted.body.find("<i>") == std::string::npos);
}

TEST_CASE("page controls follow DRF's page numbers, breaks and links", "[browsable]") {
  const auto page = ask("/edw/api/entities-images/?format=api&limit=2&offset=40").body;
  const std::string controls = between(page, "<ul class=\"pagination\">", "</ul>");
  // 50 pages, current 21: 1, break, 20, 21, 22, break, 50; page 1 drops offset.
  CHECK(controls.find(">1</a>") != std::string::npos);
  CHECK(controls.find("?format=api&amp;limit=2\">1</a>") != std::string::npos);
  CHECK(controls.find("<li class=\"active\"><a href=\"http://testserver/edw/api/entities-images/"
                      "?format=api&amp;limit=2&amp;offset=40\">21</a>") != std::string::npos);
  CHECK(controls.find("offset=98\">50</a>") != std::string::npos);
  std::size_t breaks = 0;
  for (auto at = controls.find("&hellip;"); at != std::string::npos; at = controls.find("&hellip;", at + 1))
    ++breaks;
  CHECK(breaks == 2);
  // All on one page: no controls.
  CHECK(ask("/edw/api/entities-images/?format=api&limit=100").body.find("class=\"pagination\"") ==
        std::string::npos);
}

TEST_CASE("the upload form is offered to the user allowed to POST only", "[browsable]") {
  CHECK(ask("/edw/api/entities-images/?format=api").body.find("form class=\"upload\"") == std::string::npos);
  CHECK(ask("/edw/api/entities-images/?format=api", {{"Authorization", "Basic YWxpY2U6czNjcmV0"}})
            .body.find("form class=\"upload\"") != std::string::npos);
  const auto refused =
      ask("/edw/api/entities-images/?format=api", {{"Authorization", "Basic YWxpY2U6d3Jvbmc="}});
  CHECK(refused.status == 403);
  CHECK(refused.content_type == "text/html; charset=utf-8");
  CHECK(refused.body.find("<b>HTTP 403 Forbidden</b>") != std::string::npos);
}

// Redirects as a browser follows them: Location resolved against the URL that sent it, a bounded number of
// hops, loops named, and the suite's own headers never sent to another origin.
#include "redirects.hpp"

#include <string>

#include "http_test_support.hpp"

namespace entimg::contract::test {

using detail::get_following_redirects;
using detail::resolve_location;

namespace {

// A client of the server on `port` that sends a secret with every request to it.
ClientOptions with_credentials(int port) {
  ClientOptions options;
  options.base_url = local(port);
  options.headers = {{"Authorization", "Basic c2VjcmV0"}};
  return options;
}

}  // namespace

TEST_CASE("resolve_location: absolute, scheme-relative, absolute-path and relative references",
          "[redirects]") {
  const std::string base = "http://h:8000/edw/api/entities-images?limit=5#x";
  CHECK(resolve_location(base, "https://cdn.example/a.png") == "https://cdn.example/a.png");
  CHECK(resolve_location(base, "//cdn.example/a.png") == "http://cdn.example/a.png");
  CHECK(resolve_location(base, "/edw/api/entities-images/?limit=5") ==
        "http://h:8000/edw/api/entities-images/?limit=5");
  CHECK(resolve_location(base, "entities-images/?limit=5") ==
        "http://h:8000/edw/api/entities-images/?limit=5");
  CHECK(resolve_location(base, "?offset=3") == "http://h:8000/edw/api/entities-images?offset=3");
  CHECK(resolve_location(base, "/a#frag") == "http://h:8000/a");
  CHECK(resolve_location("http://h", "a.png") == "http://h/a.png");
  // Dot segments go, as a browser takes them out (RFC 3986 §5.2.4); a query keeps its dots.
  CHECK(resolve_location("http://h/media/a/b/c.png", "../storage/c.png?x=../y") ==
        "http://h/media/a/storage/c.png?x=../y");
  CHECK(resolve_location("http://h/a/b", "../../../x") == "http://h/x");
  CHECK(resolve_location("http://h/a/b", "./") == "http://h/a/");
  CHECK(resolve_location("http://h/a/b", "/x/./y/..") == "http://h/x/");
  CHECK(resolve_location(base, "").empty());
  CHECK(resolve_location("/relative/base", "/a").empty());
  CHECK(resolve_location("ftp://h/x", "/a").empty());
}

TEST_CASE("get_following_redirects follows a chain to its answer, within its bound", "[redirects]") {
  TestServer<> server;
  server->Get("/media/a.png", [](const httplib::Request&, httplib::Response& res) {
    res.status = 301;
    res.set_header("Location", "/storage/a.png");
  });
  server->Get("/storage/a.png", [](const httplib::Request&, httplib::Response& res) {
    res.status = 302;
    res.set_header("Location", "final.png");
  });
  server->Get("/storage/final.png", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content("\x89PNG", "image/png");
    res.set_header("X-Saw-Auth", req.get_header_value("Authorization"));
  });
  server->Get("/loop", [](const httplib::Request&, httplib::Response& res) {
    res.status = 307;
    res.set_header("Location", "/loop2");
  });
  server->Get("/loop2", [](const httplib::Request&, httplib::Response& res) {
    res.status = 308;
    res.set_header("Location", "/loop");
  });
  server->Get(R"(/chain/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 302;
    res.set_header("Location", "/chain/" + std::to_string(std::stoi(req.matches[1]) + 1));
  });
  server->Get("/nowhere", [](const httplib::Request&, httplib::Response& res) { res.status = 303; });
  server->Get("/odd", [](const httplib::Request&, httplib::Response& res) {
    res.status = 302;
    res.set_header("Location", "/files/q%3Fa%23b%25c%20d.png?x=%26");
  });
  const int port = server.start();
  Client client(with_credentials(port));

  const Followed got = get_following_redirects(client, local(port) + "/media/a.png");
  REQUIRE(got.hops.size() == 3);
  CHECK(got.error.empty());
  CHECK(got.answer().status == 200);
  CHECK(got.answer().url == local(port) + "/storage/final.png");
  CHECK(got.answer().header("X-Saw-Auth") == "Basic c2VjcmV0");  // the same origin: the headers go

  const Followed loop = get_following_redirects(client, local(port) + "/loop");
  CHECK(loop.hops.size() == 2);
  CHECK(loop.error.find("a redirect loop") == 0);
  const Followed chain = get_following_redirects(client, local(port) + "/chain/0");
  CHECK(chain.hops.size() == detail::kMaxRedirects + 1);
  CHECK(chain.error == "more than 5 redirects");
  // The Location's bytes as sent, though cpp-httplib hands it over percent-decoded: "%3F" stays in the path.
  const Followed odd = get_following_redirects(client, local(port) + "/odd");
  REQUIRE(odd.hops.size() == 2);
  CHECK(odd.hops[1].url == local(port) + "/files/q%3Fa%23b%25c%20d.png?x=%26");
  const Followed nowhere = get_following_redirects(client, local(port) + "/nowhere");
  CHECK(nowhere.error.find("a 303 redirect without a Location") == 0);
}

TEST_CASE("get_following_redirects carries no credentials to another origin", "[redirects]") {
  TestServer<> storage;
  storage->Get("/a.png", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content("\x89PNG", "image/png");
    res.set_header("X-Saw-Auth", req.has_header("Authorization") ? "yes" : "no");
  });
  const int storage_port = storage.start();
  TestServer<> site;
  site->Get("/media/a.png", [storage_port](const httplib::Request&, httplib::Response& res) {
    res.status = 302;
    // The same host by another name is another origin: localhost rather than 127.0.0.1.
    res.set_header("Location", "http://localhost:" + std::to_string(storage_port) + "/a.png");
  });
  const int port = site.start();
  Client client(with_credentials(port));
  const Followed got = get_following_redirects(client, local(port) + "/media/a.png");
  REQUIRE(got.hops.size() == 2);
  CHECK(got.answer().status == 200);
  CHECK(got.answer().header("X-Saw-Auth") == "no");
  CHECK(got.answer().request_headers.empty());
}

}  // namespace entimg::contract::test

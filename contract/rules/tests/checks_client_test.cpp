// image_loads through its row, on answers made here: pictures of each type, pages that are no picture,
// wrong types and statuses, redirects.
#include <string>

#include <catch2/catch.hpp>

#include "check_test_support.hpp"
#include "compressed.hpp"
#include "picture_types.hpp"

namespace entimg::contract::test {
namespace {

using namespace std::string_literals;

const std::string kPng = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR"s;
const std::string kJpeg = "\xFF\xD8\xFF\xE0\0\x10JFIF\0"s;

HttpExchange answer(int status, std::string type, std::string body,
                    std::string url = "http://test.example:8000/media/a.png") {
  HttpExchange e;
  e.method = "GET";
  e.url = std::move(url);
  e.status = status;
  if (!type.empty()) e.headers.emplace_back("Content-Type", std::move(type));
  e.body = std::move(body);
  return e;
}

PictureAsk ask(std::string mime = "image/png") {
  return {7,
          "http://test.example:8000/media/a.png",
          std::move(mime),
          "http://test.example:8000/edw/api/entities-images/",
          "/results/0/image",
          std::nullopt,
          false};
}

Findings judge_picture(const PictureAsk& a, Followed got) {
  Findings f;
  rule_check<PictureLoad>("image_loads").check(context(false), a, got, f);
  return f;
}

Followed one(HttpExchange e) {
  return Followed{{std::move(e)}, ""};
}

std::string first_message(const Findings& f) {
  return f.failures().empty() ? "" : f.failures().front().message;
}

}  // namespace

TEST_CASE("image_loads passes a picture of the record's type, whatever its parameters and aliases",
          "[checks][client]") {
  CHECK(judge_picture(ask(), one(answer(200, "image/png", kPng))).failures().empty());
  CHECK(judge_picture(ask(), one(answer(206, "IMAGE/PNG; q=1", kPng))).failures().empty());
  CHECK(judge_picture(ask("image/jpeg"), one(answer(200, "image/jpeg", kJpeg))).failures().empty());
  CHECK(judge_picture(ask("image/vnd.microsoft.icon"), one(answer(200, "image/x-icon", "\0\0\1\0\1\0"s)))
            .failures()
            .empty());
  CHECK(judge_picture(ask("image/gif"), one(answer(200, "image/gif", "GIF89a\1\0\1\0"))).failures().empty());
  CHECK(judge_picture(ask("image/webp"), one(answer(200, "image/webp", "RIFF\x24\0\0\0WEBPVP8L"s)))
            .failures()
            .empty());
  CHECK(judge_picture(
            ask("image/svg+xml"),
            one(answer(200, "image/svg+xml",
                       "\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<svg xmlns=\"x\"/>")))
            .failures()
            .empty());
  // A type with no signature known here is judged by its Content-Type and by not being a page.
  CHECK(judge_picture(ask("image/x-xpixmap"), one(answer(200, "image/x-xpixmap", "/* XPM */")))
            .failures()
            .empty());
  const Findings passed = judge_picture(ask(), one(answer(200, "image/png", kPng)));
  CHECK(passed.checked("image_loads") == 1);
}

TEST_CASE("image_loads fails a picture that is missing, mislabelled or not a picture", "[checks][client]") {
  const std::string missing =
      first_message(judge_picture(ask(), one(answer(404, "text/html", "<!DOCTYPE html>"))));
  CHECK(missing.find("of record 7") != std::string::npos);
  CHECK(missing.find("got status 404 (text/html)") != std::string::npos);
  CHECK(first_message(judge_picture(ask(), one(answer(200, "image/jpeg", kJpeg))))
            .find("got Content-Type \"image/jpeg\"") != std::string::npos);
  CHECK(first_message(judge_picture(ask(), one(answer(200, "", kPng)))).find("got Content-Type none") !=
        std::string::npos);
  // Labelled right, yet a page: what a SPA's catch-all route or a storage error page answers.
  CHECK(first_message(judge_picture(ask(), one(answer(200, "image/png", "\n <!doctype html><html>"))))
            .find("got an HTML page") != std::string::npos);
  CHECK(first_message(judge_picture(ask(), one(answer(200, "image/png", "{\"detail\":\"x\"}"))))
            .find("got JSON") != std::string::npos);
  CHECK(first_message(judge_picture(ask(), one(answer(200, "image/png", "")))).find("an empty body") !=
        std::string::npos);
  // The bytes of another type: the message names it.
  CHECK(
      first_message(judge_picture(ask(), one(answer(200, "image/png", kJpeg)))).find("they are image/jpeg") !=
      std::string::npos);
  CHECK(first_message(judge_picture(ask("image/svg+xml"), one(answer(200, "image/svg+xml", "<html><svg/>"))))
            .find("an HTML page") != std::string::npos);
  CHECK(first_message(judge_picture(ask("image/gif"), one(answer(200, "image/gif", "GIF90a"))))
            .find("they start") != std::string::npos);
  HttpExchange none = answer(0, "", "");
  none.error = "connection refused";
  CHECK(first_message(judge_picture(ask(), one(none))).find("no answer: \"connection refused\"") !=
        std::string::npos);
  const Findings failed = judge_picture(ask(), one(answer(500, "text/html", "")));
  REQUIRE(failed.failures().size() == 1);
  CHECK(failed.failures().front().url == ask().image);
  CHECK(failed.failures().front().pointer == "/results/0/image");
  CHECK(failed.failures().front().record_id == 7);
}

TEST_CASE("image_loads decodes a picture sent in a coding the request accepted", "[checks][client]") {
  HttpExchange gzipped = answer(200, "image/png", test::gzip_compressed(kPng));
  gzipped.headers.emplace_back("Content-Encoding", "gzip");
  gzipped.request_headers = {{"Accept-Encoding", "gzip"}};
  CHECK(judge_picture(ask(), one(gzipped)).failures().empty());
  gzipped.request_headers.clear();
  CHECK(first_message(judge_picture(ask(), one(gzipped))).find("which the request did not accept") !=
        std::string::npos);
  gzipped.request_headers = {{"Accept-Encoding", "gzip"}};
  gzipped.body = "not gzip";
  CHECK(first_message(judge_picture(ask(), one(gzipped))).find("body that does not decode") !=
        std::string::npos);
}

TEST_CASE("image_loads judges the answer redirects lead to, and names a redirect that leads nowhere",
          "[checks][client]") {
  Followed cdn{{answer(302, "text/html", "", "http://test.example:8000/media/a.png"),
                answer(200, "image/png", kPng, "https://cdn.example/a.png")},
               ""};
  CHECK(judge_picture(ask(), cdn).failures().empty());
  cdn.hops.back() =
      answer(403, "application/xml", "<Error>AccessDenied</Error>", "https://cdn.example/a.png");
  const std::string denied = first_message(judge_picture(ask(), cdn));
  CHECK(denied.find("got status 403") != std::string::npos);
  CHECK(denied.find("after 1 redirect (to \"https://cdn.example/a.png\")") != std::string::npos);
  Followed loop{{answer(301, "", "")}, "a redirect loop (back to http://test.example:8000/media/a.png)"};
  CHECK(first_message(judge_picture(ask(), loop)).find("got a redirect loop") != std::string::npos);
}

TEST_CASE("picture signatures: each type's first bytes, and what is not a picture", "[checks][client]") {
  using detail::has_signature_of;
  CHECK(has_signature_of("image/png", kPng) == true);
  CHECK(has_signature_of("image/png", kPng.substr(0, 7)) == false);  // cut short
  CHECK(has_signature_of("image/jpeg", kPng) == false);
  CHECK(has_signature_of("image/tiff", "II*\0"s) == true);
  CHECK(has_signature_of("image/tiff", "MM\0*"s) == true);
  CHECK(has_signature_of("image/bmp", "BM6\0"s) == true);
  CHECK(has_signature_of("image/avif",
                         "\0\0\0\x1C"
                         "ftypavif"s) == true);
  CHECK(has_signature_of("image/jxl", "\xFF\x0A"s) == true);
  CHECK(has_signature_of("image/x-portable-pixmap", "P6\n1 1\n255\n") == true);
  CHECK(has_signature_of("image/svg+xml", "\x1F\x8B\x08"s) == true);  // svgz
  CHECK(has_signature_of("image/svg+xml", "<svg>") == true);
  CHECK(has_signature_of("image/svg+xml", "plain text") == false);
  CHECK_FALSE(has_signature_of("image/x-rgb", "anything"));
  CHECK(detail::signature_type(kJpeg) == "image/jpeg");
  CHECK(detail::signature_type("hello").empty());
  CHECK(detail::not_a_picture("  <HTML>") == "an HTML page");
  CHECK(detail::not_a_picture("[1]") == "JSON");
  CHECK(detail::not_a_picture(kPng).empty());
  CHECK(detail::same_picture_type("image/x-ms-bmp", "image/bmp"));
  CHECK_FALSE(detail::same_picture_type("image/png", "image/apng"));
}

namespace {

Findings follow_up(std::string_view rule, const FollowAsk& ask) {
  Findings f;
  rule_check<FollowUp>(rule).check(context(false), ask, f);
  return f;
}

// A detail answer: the body as given, at the record's detail URL.
Page detail_answer(const json& body, int status = 200) {
  Page page = make_page(body, {}, 12, 0, status);
  page.exchange.url = std::string(kOrigin) + kPath + "2/";
  return page;
}

HttpExchange redirect(int status, std::string location) {
  HttpExchange e = answer(status, "text/html; charset=utf-8", "",
                          std::string(kOrigin) + "/edw/api/entities-images?limit=5&offset=7");
  if (!location.empty()) e.headers.emplace_back("Location", std::move(location));
  return e;
}

}  // namespace

TEST_CASE("detail_matches_list: the detail route answers the listed record, keys in any order",
          "[checks][client]") {
  const Page listed = drf_page(30, std::nullopt, std::nullopt);
  const json record = body_json(listed)["results"][0];
  const Page same = detail_answer(record);
  CHECK(follow_up("detail_matches_list", {FollowStep::record_opened, "", &listed, 0, nullptr, &same})
            .failures()
            .empty());
  // Another key order is the same record.
  std::string backwards = "{";
  for (auto it = record.rbegin(); it != record.rend(); ++it)
    backwards += (backwards.size() > 1 ? "," : "") + json(it.key()).dump() + ":" + it.value().dump();
  const Page reordered = make_page_text(backwards + "}", {}, 12, 0);
  CHECK(follow_up("detail_matches_list", {FollowStep::record_opened, "", &listed, 0, nullptr, &reordered})
            .failures()
            .empty());
}

TEST_CASE("detail_matches_list fails a record the detail route cannot find, or answers otherwise",
          "[checks][client]") {
  const Page listed = drf_page(30, std::nullopt, std::nullopt);
  json record = body_json(listed)["results"][1];
  const Page missing = detail_answer(json{{"detail", "Not found."}}, 404);
  const Findings lost =
      follow_up("detail_matches_list", {FollowStep::record_opened, "", &listed, 1, nullptr, &missing});
  REQUIRE(lost.failures().size() == 1);
  CHECK(lost.failures().front().message.find("got status 404") != std::string::npos);
  CHECK(lost.failures().front().record_id == record["id"].get<std::int64_t>());
  record["alt"] = "changed";
  const Page other = detail_answer(record);
  const std::string changed = first_message(
      follow_up("detail_matches_list", {FollowStep::record_opened, "", &listed, 1, nullptr, &other}));
  CHECK(changed.find("got another record") != std::string::npos);
  CHECK(changed.find("/alt") != std::string::npos);
  const Page html = make_page_text("<html>", {}, 12, 0);
  CHECK(first_message(
            follow_up("detail_matches_list", {FollowStep::record_opened, "", &listed, 1, nullptr, &html}))
            .find("got not JSON") != std::string::npos);
}

TEST_CASE("slashless_redirect: a 301 to the slashed path with the same query, whose page is the same",
          "[checks][client]") {
  const Page slashed = drf_page(30, 5, 7);
  const std::string to = std::string(kOrigin) + kPath + "?offset=7&limit=5";
  Followed got{{redirect(301, to), slashed.exchange}, ""};
  got.hops[1].url = to;
  Page answer = slashed;
  const FollowAsk ask{
      FollowStep::slashless_path, "/edw/api/entities-images?limit=5&offset=7", &slashed, 0, &got, &answer};
  CHECK(follow_up("slashless_redirect", ask).failures().empty());
  got.hops[0].status = 302;
  const Findings temporary = follow_up("slashless_redirect", ask);
  CHECK(temporary.failures().empty());
  CHECK(temporary.notes().size() == 1);
  // The query dropped on the way: a page at another window.
  got.hops[0].status = 301;
  got.hops[1].url = std::string(kOrigin) + kPath;
  CHECK(first_message(follow_up("slashless_redirect", ask)).find("got a redirect to") != std::string::npos);
  // No redirect at all: a 404.
  const Followed not_found{{redirect(404, "")}, ""};
  const FollowAsk lost{FollowStep::slashless_path, "x", &slashed, 0, &not_found, &answer};
  CHECK(first_message(follow_up("slashless_redirect", lost)).find("got status 404") != std::string::npos);
  // The right URL, another page behind it.
  got.hops[1].url = to;
  Page elsewhere = drf_page(30, 5, 12);
  const FollowAsk moved{FollowStep::slashless_path, "x", &slashed, 0, &got, &elsewhere};
  CHECK(first_message(follow_up("slashless_redirect", moved)).find("page differs") != std::string::npos);
}

TEST_CASE("revalidation: 304 or the same page with its own validators, never 304 with another's",
          "[checks][client]") {
  const Page first = drf_page(30, std::nullopt, std::nullopt);
  Page not_modified = make_page_text("", {}, 12, 0, 304);
  not_modified.exchange.request_headers = {{"If-None-Match", "\"abc\""}};
  CHECK(
      follow_up("revalidation", {FollowStep::revalidated, "the same page", &first, 0, nullptr, &not_modified})
          .failures()
          .empty());
  const Page again = first;
  CHECK(follow_up("revalidation", {FollowStep::revalidated, "the same page", &first, 0, nullptr, &again})
            .failures()
            .empty());
  const Page second = drf_page(30, std::nullopt, 12);
  CHECK(first_message(follow_up("revalidation",
                                {FollowStep::revalidated, "the same page", &first, 0, nullptr, &second}))
            .find("a 200 with other records") != std::string::npos);
  FollowAsk other{FollowStep::revalidated, "another page", &first, 0, nullptr, &not_modified, true};
  const std::string stale = first_message(follow_up("revalidation", other));
  CHECK(stale.find("with If-None-Match: \"abc\" (another page)") != std::string::npos);
  CHECK(stale.find("got 304 Not Modified") != std::string::npos);
  other.answer = &second;
  CHECK(follow_up("revalidation", other).failures().empty());
}

namespace {

// A whole PNG (1x1, grey), made by hand: signature, IHDR, IDAT, IEND with their CRCs.
const std::string kWholePng =
    "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\0\0\0\0\x3a\x7e\x9b\x55"
    "\0\0\0\x0aIDAT\x78\x9c\x63\x60\0\0\0\x02\0\x01\x48\xaf\xa4\x71"
    "\0\0\0\0IEND\xae\x42\x60\x82"s;

PictureAsk whole_ask(std::string mime = "image/png") {
  PictureAsk a = ask(std::move(mime));
  a.whole = true;
  return a;
}

HttpExchange negotiated(std::string type, std::string body, bool vary) {
  HttpExchange e = answer(200, std::move(type), std::move(body), "http://test.example:8000/media/a.jpg");
  e.request_headers = {{"Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"}};
  if (vary) e.headers.emplace_back("Vary", "Accept");
  return e;
}

}  // namespace

TEST_CASE("image_loads reads a whole picture to its end: a file cut short fails, its head alone passes",
          "[checks][client][pictures]") {
  CHECK(judge_picture(whole_ask(), one(answer(200, "image/png", kWholePng))).failures().empty());
  const std::string cut = kWholePng.substr(0, kWholePng.size() - 13);
  const std::string message = first_message(judge_picture(whole_ask(), one(answer(200, "image/png", cut))));
  CHECK(message.find("(200 with its Content-Type and bytes, whole), got a PNG that") != std::string::npos);
  CHECK(message.find("a file cut short?") != std::string::npos);
  CHECK(judge_picture(ask(), one(answer(200, "image/png", cut)))
            .failures()
            .empty());  // a head: not judged whole
  HttpExchange longer = answer(200, "image/png", kWholePng);
  longer.headers.emplace_back("Content-Length", "9999");
  CHECK(first_message(judge_picture(whole_ask(), one(longer))).find("where Content-Length says 9999") !=
        std::string::npos);
  HttpExchange part = answer(206, "image/png", kWholePng.substr(0, 16));
  part.headers.emplace_back("Content-Range", "bytes 0-15/" + std::to_string(kWholePng.size()));
  CHECK(first_message(judge_picture(whole_ask(), one(part))).find("got 206 with a part of the picture") !=
        std::string::npos);
  HttpExchange capped = answer(200, "image/png", cut);
  capped.body_truncated = true;
  const Findings over = judge_picture(whole_ask(), one(capped));
  CHECK(over.failures().empty());
  REQUIRE(over.notes().size() == 1);
  CHECK(over.notes().front().second.find("over the suite's cap") != std::string::npos);
}

TEST_CASE("image_loads: a negotiated type passes with Vary: Accept and a note, fails without it",
          "[checks][client][pictures]") {
  const std::string webp = "RIFF\x0c\0\0\0WEBPVP8L\0\0\0\0"s;
  const Findings varied = judge_picture(ask("image/jpeg"), one(negotiated("image/webp", webp, true)));
  CHECK(varied.failures().empty());
  REQUIRE(varied.notes().size() == 1);
  CHECK(varied.notes().front().second.find("negotiated from the request's Accept, with Vary: Accept") !=
        std::string::npos);
  CHECK(first_message(judge_picture(ask("image/jpeg"), one(negotiated("image/webp", webp, false))))
            .find("without Vary: Accept: a shared cache keeps that answer") != std::string::npos);
  // A type the Accept named only by a wildcard is no negotiation: the type is wrong.
  CHECK(first_message(judge_picture(ask("image/jpeg"), one(negotiated("image/gif", "GIF89a"s, true))))
            .find("got Content-Type \"image/gif\"") != std::string::npos);
  // Negotiated, the bytes are judged as the type they came as.
  CHECK(first_message(judge_picture(ask("image/jpeg"), one(negotiated("image/webp", kJpeg, true))))
            .find("not a picture of that type") != std::string::npos);
}

TEST_CASE("settle_picture_sizes: file_size in bytes, said by the deployment, finds the one that differs",
          "[checks][client][pictures]") {
  const auto length = [](std::int64_t id, std::uint64_t file_size, std::uint64_t bytes) {
    return PictureLength{id,
                         "http://test.example:8000/media/" + std::to_string(id) + ".png",
                         "http://test.example:8000/edw/api/entities-images/",
                         file_size,
                         bytes,
                         "read whole"};
  };
  PictureSizes agreeing;
  for (std::int64_t id = 1; id <= 20; ++id)
    agreeing.add(length(id, 1000 + static_cast<std::uint64_t>(id), 1000 + static_cast<std::uint64_t>(id)));
  agreeing.add(length(21, 5000, 1200));
  Findings f;
  settle_picture_sizes(agreeing, f);
  REQUIRE(f.failures().size() == 1);
  CHECK(f.failures().front().message.find("record 21 to be file_size = 5000 bytes long, as 20 of the 21") !=
        std::string::npos);
  CHECK(f.failures().front().record_id == 21);

  PictureSizes never;
  for (std::int64_t id = 1; id <= 5; ++id)
    never.add(length(id, 300000, 1000));
  Findings none;
  settle_picture_sizes(never, none);
  CHECK(none.failures().empty());
  REQUIRE(none.notes().size() == 1);
  CHECK(none.notes().front().second.find("not the picture's length in bytes in any of the 5") !=
        std::string::npos);

  PictureSizes split;  // half agree: no unit to judge by
  for (std::int64_t id = 1; id <= 6; ++id)
    split.add(length(id, 1000, id % 2 ? 1000 : 999));
  Findings neither;
  settle_picture_sizes(split, neither);
  CHECK(neither.failures().empty());
}

TEST_CASE("debug_page_hidden: an error answer that is a framework's debug page fails", "[checks][client]") {
  const auto judge_error = [](int status, std::string body) {
    Findings f;
    check_error_answer(context(false), answer(status, "text/html", std::move(body)), f);
    return f;
  };
  const Findings technical = judge_error(
      404,
      "<html><body><p>Using the URLconf defined in <code>project.urls</code>, Django tried these URL "
      "patterns</p><p>You're seeing this error because you have <code>DEBUG = True</code></p>");
  CHECK(first_message(technical).find("got Django's debug page (DEBUG = True): DEBUG is on") !=
        std::string::npos);
  CHECK(first_message(judge_error(500, "Traceback (most recent call last):\n  File ..."))
            .find("a Python traceback") != std::string::npos);
  const Findings plain = judge_error(404, "<h1>Not Found</h1><p>The requested resource was not found.</p>");
  CHECK(plain.failures().empty());
  CHECK(plain.checked("debug_page_hidden") == 1);
  CHECK(judge_error(200, "Traceback (most recent call last)").checked("debug_page_hidden") == 0);  // no error
}

}  // namespace entimg::contract::test

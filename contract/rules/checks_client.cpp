// Rules on what a client does past the list: it loads each record's picture, opens a record, follows the
// slashless path, asks a page again with its validators. contract/run/pictures.cpp and follow_ups.cpp ask;
// docs/contract.md, "Past the list".
#include <algorithm>

#include "content_coding.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/checks.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "message_text.hpp"
#include "picture_types.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

using detail::ids_text;
using detail::quote;

// The media type of a Content-Type, lower-cased, parameters aside; "" without one.
std::string media_type_of(const HttpExchange& exchange) {
  const auto type = exchange.header("Content-Type");
  if (!type) return "";
  return common::ascii_lowered(common::trim(std::string_view(*type).substr(0, type->find(';'))));
}

// "after 2 redirects (http://a/… → https://cdn/…)": where the answer came from, when not from the image URL.
std::string redirects_text(const Followed& got) {
  if (got.hops.size() < 2 || !got.error.empty()) return "";
  std::string out = " after " + std::to_string(got.hops.size() - 1) + " redirect" +
                    (got.hops.size() > 2 ? "s" : "") + " (to " + quote(got.answer().url) + ")";
  return out;
}

// What the answer is, for messages: "status 404 (text/html)", "no answer: …".
std::string answer_text(const HttpExchange& answer) {
  if (answer.status == 0) return "no answer: " + quote(answer.error);
  const std::string type = media_type_of(answer);
  return "status " + std::to_string(answer.status) + " (" + (type.empty() ? "no Content-Type" : type) + ")";
}

// What a compressed picture is decoded to at most: its signature is in the first bytes.
constexpr std::size_t kDecodedPictureBytes = std::size_t{1} << 20;

// Why the answer is not the record's picture, or "" when it is.
std::string picture_fault(const PictureAsk& ask, const Followed& got) {
  const HttpExchange& answer = got.answer();
  if (!got.error.empty()) return "got " + got.error + " (from " + quote(ask.image) + ")";
  if (answer.status != 200 && answer.status != 206) return "got " + answer_text(answer);
  const std::string type = media_type_of(answer);
  const std::string expected = common::ascii_lowered(common::trim(ask.mime_type));
  if (!expected.empty() && !detail::same_picture_type(type, expected))
    return "got Content-Type " + (type.empty() ? std::string("none") : quote(type));
  // A body in a content coding the request accepted (a user's --header 'Accept-Encoding: gzip', a front's
  // gzip) is the picture once decoded, as a browser decodes it.
  std::string decoded;
  std::string_view bytes = answer.body;
  if (const std::string coding = detail::coding_of(answer.header("Content-Encoding").value_or(""));
      !coding.empty()) {
    const auto accepted = answer.request_header("Accept-Encoding");
    if (!detail::accepts_coding(accepted ? std::optional<std::string_view>(*accepted) : std::nullopt, coding))
      return "got Content-Encoding " + quote(coding) + ", which the request did not accept";
    detail::Decoded out = detail::decode_body(coding, answer.body, kDecodedPictureBytes);
    if (out.text.empty()) return "got a " + coding + " body that does not decode: " + out.error;
    decoded = std::move(out.text);
    bytes = decoded;
  }
  const std::string_view head = bytes.substr(0, detail::kPictureHeadBytes);
  if (const std::string what = detail::not_a_picture(head); !what.empty()) return "got " + what;
  if (expected.empty()) return "";
  if (const auto matches = detail::has_signature_of(expected, head); matches && !*matches) {
    const std::string_view is = detail::signature_type(head);
    return "got bytes that are not a picture of that type (" +
           (is.empty() ? "they start " + quote(head.substr(0, 16)) : "they are " + std::string(is)) + ")";
  }
  return "";
}

/// "image: URL of the image" (spec §2.1) is a picture a browser loads: the URL, its redirects followed,
/// answers 200 (or 206 to the Range asked) with the record's mime_type and bytes of that type, not a page.
void image_loads(const CheckContext&, const PictureAsk& ask, const Followed& got, Findings& findings) {
  const std::string fault = picture_fault(ask, got);
  if (fault.empty()) {
    findings.pass("image_loads");
    return;
  }
  const std::string id = ask.record_id ? " of record " + std::to_string(*ask.record_id) : "";
  const std::string type = ask.mime_type.empty() ? "" : " " + ask.mime_type;
  findings.fail({"image_loads",
                 "expected the picture" + id + " to load as a" + (type.empty() ? "" : "n") + type +
                     " picture (200 with its Content-Type and bytes), " + fault + redirects_text(got) +
                     " (listed on " + quote(ask.page_url) + ")",
                 ask.image, ask.pointer, ask.record_id});
}

// The ids of a page's results, in order ("none" when it has no results array).
std::vector<std::int64_t> ids_of(const Page& page) {
  std::vector<std::int64_t> ids;
  if (const auto results = detail::results_array(page))
    for (const detail::Json record : *results)
      if (const auto id = detail::record_id(record)) ids.push_back(*id);
  return ids;
}

// Whether two JSON values are equal: numbers by value (1 and 1.0 alike), objects by their members in any
// order.
bool same_value(detail::Json a, detail::Json b) {
  using Type = simdjson::dom::element_type;
  const auto number = [](Type t) { return t == Type::INT64 || t == Type::UINT64 || t == Type::DOUBLE; };
  if (number(a.type()) && number(b.type())) {
    if (a.type() == b.type() || (a.type() != Type::DOUBLE && b.type() != Type::DOUBLE))
      return detail::integer_text(a) == detail::integer_text(b) &&
             (a.type() != Type::DOUBLE || a.get_double().value_unsafe() == b.get_double().value_unsafe());
    return a.get_double().value_unsafe() == b.get_double().value_unsafe();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::STRING:
      return a.get_string().value_unsafe() == b.get_string().value_unsafe();
    case Type::BOOL:
      return a.get_bool().value_unsafe() == b.get_bool().value_unsafe();
    case Type::NULL_VALUE:
      return true;
    case Type::ARRAY: {
      const auto x = a.get_array().value_unsafe(), y = b.get_array().value_unsafe();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
        if (!same_value(*i, *j)) return false;
      return true;
    }
    case Type::OBJECT: {
      const auto x = a.get_object().value_unsafe(), y = b.get_object().value_unsafe();
      if (x.size() != y.size()) return false;
      for (const auto field : x) {
        const auto other = detail::member(b, field.key);
        if (!other || !same_value(field.value, *other)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// Where the record opened differs from the listed one: "…" vs "…" at /key, a key missing or extra; "" when
// they are the same.
std::string record_difference(detail::Json listed, detail::Json opened) {
  if (listed.type() != simdjson::dom::element_type::OBJECT) return "";  // record_schema's
  // Copies: value_unsafe() of a temporary result refers into it, so a range-for over it would dangle.
  const simdjson::dom::object listed_members = listed.get_object().value_unsafe();
  for (const auto field : listed_members) {
    const auto other = detail::member(opened, field.key);
    const std::string at = "/" + detail::pointer_token(field.key);
    if (!other) return "no member " + quote(field.key) + " (listed: " + detail::describe(field.value) + ")";
    if (!same_value(field.value, *other))
      return detail::describe(field.value) + " vs " + detail::describe(*other) + " at " + at;
  }
  if (opened.type() != simdjson::dom::element_type::OBJECT) return "";
  const simdjson::dom::object opened_members = opened.get_object().value_unsafe();
  for (const auto field : opened_members)
    if (!detail::member(listed, field.key)) return "a member the list does not have: " + quote(field.key);
  return "";
}

/// "/edw/api/entities-images/<pk>/" is the record itself (reference §1.1: the router's detail route; DRF's
/// RetrieveModelMixin serializes it as the list does): a listed record's detail answers 200 with the same
/// 15 keys and values.
void detail_matches_list(const CheckContext&, const FollowAsk& ask, Findings& findings) {
  const auto results = ask.listed ? detail::results_array(*ask.listed) : std::nullopt;
  if (!results || ask.index >= results->size() || ask.answer == nullptr) return;
  const detail::Json listed = (*results).at(ask.index).value_unsafe();
  const auto id = detail::record_id(listed);
  const HttpExchange& answer = ask.answer->exchange;
  const auto fail = [&](const std::string& got, std::string pointer = {}) {
    findings.fail({"detail_matches_list",
                   "expected the detail route of record " + (id ? std::to_string(*id) : std::string("?")) +
                       " (listed on " + quote(ask.listed->exchange.url) +
                       ") to answer 200 with the listed record, " + got,
                   answer.url, std::move(pointer), id});
  };
  if (answer.status != 200) {
    fail(answer.status == 0 ? "got no answer: " + quote(answer.error)
                            : "got status " + std::to_string(answer.status));
    return;
  }
  const auto body = detail::body_object(*ask.answer);
  if (!body) {
    fail("got " + (ask.answer->json_error.empty() ? std::string("JSON that is not an object")
                                                  : "not JSON: " + quote(ask.answer->json_error)));
    return;
  }
  // Compared in place, member by member: a record can be as large as a page (no copy of it is made).
  const std::string difference = record_difference(listed, *body);
  if (difference.empty()) {
    findings.pass("detail_matches_list");
    return;
  }
  fail("got another record: " + difference);
}

// The query of a URL as a sorted multiset of decoded pairs: equal for the same parameters in any order or
// spelling.
common::QueryParams sorted_query(std::string_view url) {
  const common::UrlParts parts = common::split_url(url);
  common::QueryParams params = common::parse_query(parts.query);
  std::sort(params.begin(), params.end());
  return params;
}

// Why the slashless path's first answer is not DRF's redirect to the slashed path with the same query, or "".
std::string slashless_fault(const FollowAsk& ask, const Followed& got) {
  const HttpExchange& first = got.hops.front();
  if (first.status == 0) return "got no answer: " + quote(first.error);
  if (first.status < 300 || first.status > 399) return "got status " + std::to_string(first.status);
  if (got.hops.size() < 2)
    return "got a " + std::to_string(first.status) + " that leads nowhere: " + got.error;
  const std::string& to = got.hops[1].url;
  const common::UrlParts target = common::split_url(to),
                         slashed = common::split_url(ask.listed->exchange.url);
  if (target.path != slashed.path || sorted_query(to) != sorted_query(ask.listed->exchange.url))
    return "got a redirect to " + quote(to);
  if (!got.error.empty()) return "got " + got.error + " after it";
  return "";
}

/// "GET /edw/api/entities-images?limit=1 → 301 Moved Permanently, Location: /edw/api/entities-images/?limit=1
/// (query preserved)" (reference §3.7, Django's APPEND_SLASH): the slashless path redirects to the slashed
/// one with the same query, and following it gives the same page.
void slashless_redirect(const CheckContext&, const FollowAsk& ask, Findings& findings) {
  if (ask.got == nullptr || ask.listed == nullptr || ask.answer == nullptr) return;
  const Followed& got = *ask.got;
  const std::string url = got.hops.front().url;
  const auto fail = [&](const std::string& what) {
    findings.fail({"slashless_redirect",
                   "expected " + ask.label +
                       " to redirect (301) to the same URL with its trailing slash and query, " + what,
                   url, "", std::nullopt});
  };
  if (const std::string fault = slashless_fault(ask, got); !fault.empty()) return fail(fault);
  const std::vector<std::int64_t> want = ids_of(*ask.listed), seen = ids_of(*ask.answer);
  if (ask.answer->exchange.status != ask.listed->exchange.status || want != seen)
    return fail("got a redirect whose page differs from the slashed URL's (status " +
                std::to_string(ask.answer->exchange.status) + ", ids " + ids_text(seen) +
                "; asked directly: status " + std::to_string(ask.listed->exchange.status) + ", ids " +
                ids_text(want) + ")");
  const int status = got.hops.front().status;
  if (status != 301 && status != 308)
    findings.note("slashless_redirect",
                  "the slashless path answers " + std::to_string(status) +
                      ", a temporary redirect where Django's APPEND_SLASH sends 301: clients and "
                      "caches will ask it again every time");
  findings.pass("slashless_redirect");
}

// The validators an answer carries, as a client sends them back.
std::string validators_text(const HttpExchange& asked) {
  std::string out;
  for (const char* name : {"If-None-Match", "If-Modified-Since"})
    if (const auto value = asked.request_header(name))
      out += (out.empty() ? "" : ", ") + std::string(name) + ": " + *value;
  return out;
}

/// A client cache revalidates with the validators an answer gave (RFC 9110 §13.1, RFC 9111 §4.3): asked with
/// its own page's, a page answers 304 or the same page; asked with another page's or another
/// representation's ETag, never 304 (the client would show the other answer's body).
void revalidation(const CheckContext&, const FollowAsk& ask, Findings& findings) {
  if (ask.answer == nullptr || ask.listed == nullptr) return;
  const HttpExchange& answer = ask.answer->exchange;
  const std::string sent = validators_text(answer);
  const auto fail = [&](const std::string& expected, const std::string& got) {
    findings.fail({"revalidation",
                   "with " + sent + " (" + ask.label + "): expected " + expected + ", got " + got, answer.url,
                   "", std::nullopt});
  };
  if (ask.validators_of_another) {
    if (answer.status == 304)
      return fail("the page itself (200), not 304: the validators are another answer's",
                  "304 Not Modified, which makes a client show that other answer's body here");
  } else if (answer.status == 304) {
    findings.pass("revalidation");
    return;
  } else if (answer.status != 200) {
    return fail("304 Not Modified or the same page", answer_text(answer));
  } else if (ids_of(*ask.answer) != ids_of(*ask.listed)) {
    return fail("304 Not Modified or the same page",
                "a 200 with other records (ids " + ids_text(ids_of(*ask.answer)) + ")");
  }
  findings.pass("revalidation");
}

constexpr Rule kClientRules[] = {
    {"image_loads", "pictures",
     "every record's image loads: 200 with the record's mime_type and a picture's bytes, redirects followed",
     "spec §2.1 (image: URL of the image); reference §4", PictureLoad{image_loads}},
    {"detail_matches_list", "records", "a listed record's detail route answers 200 with the same record",
     "reference §1.1 (the router's detail route), §1.2 (ModelViewSet)",
     FollowUp{FollowStep::record_opened, detail_matches_list}},
    {"slashless_redirect", "records",
     "the path without its trailing slash redirects (301) to the slashed path with the same query, and the "
     "page "
     "is the same",
     "reference §3.7 (APPEND_SLASH)", FollowUp{FollowStep::slashless_path, slashless_redirect}},
    {"revalidation", "records",
     "a page asked with its own validators answers 304 or the same page; with another answer's ETag, never "
     "304",
     "RFC 9110 §13.1, RFC 9111 §4.3", FollowUp{FollowStep::revalidated, revalidation}},
};

}  // namespace

std::span<const Rule> detail::client_rules() {
  return kClientRules;
}

}  // namespace entimg::contract

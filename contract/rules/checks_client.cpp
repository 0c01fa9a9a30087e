// Rules on what a client does past the list: it loads each record's picture, opens a record, follows the
// slashless path, asks a page again with its validators. contract/run/pictures.cpp and follow_ups.cpp ask;
// docs/contract.md, "Past the list".
#include <algorithm>

#include "content_coding.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/checks.hpp"
#include "header_lists.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "message_text.hpp"
#include "picture_structure.hpp"
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

// What a compressed picture is decoded to at most (a whole one is judged to its end: the per-picture cap).
constexpr std::size_t kDecodedPictureBytes = std::size_t{16} << 20;

// The first byte, last byte and total of a Content-Range ("bytes 0-1023/48213"); nullopt when there is none
// or it cannot be read (a total of "*" is unknown).
struct ContentRange {
  std::uint64_t first = 0, last = 0;
  std::optional<std::uint64_t> total;
};
std::optional<ContentRange> content_range(const HttpExchange& answer) {
  const auto value = answer.header("Content-Range");
  if (!value) return std::nullopt;
  std::string_view text = common::trim(*value);
  if (!common::ascii_lowered(text.substr(0, 6)).starts_with("bytes ")) return std::nullopt;
  text.remove_prefix(6);
  const std::size_t dash = text.find('-'), slash = text.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return std::nullopt;
  const auto first = common::digits(common::trim(text.substr(0, dash)));
  const auto last = common::digits(common::trim(text.substr(dash + 1, slash - dash - 1)));
  if (!first || !last || *last < *first) return std::nullopt;
  return ContentRange{*first, *last, common::digits(common::trim(text.substr(slash + 1)))};
}

// The types a request's Accept names explicitly (no wildcard), lower-cased, with a q above 0.
std::vector<std::string> accepted_types(const HttpExchange& answer) {
  std::vector<std::string> out;
  const auto accept = answer.request_header("Accept");
  if (!accept) return out;
  for (const std::string_view element : detail::list_elements({*accept})) {
    const std::string_view type = common::trim(element.substr(0, element.find(';')));
    const std::size_t q = element.find(";q=");
    if (type.find('*') != std::string_view::npos ||
        (q != std::string_view::npos &&
         common::trim(element.substr(q + 3)).find_first_not_of("0.") == std::string_view::npos))
      continue;
    out.push_back(common::ascii_lowered(type));
  }
  return out;
}

// A picture of another type than mime_type (image/webp for a .jpg): content negotiation, when the request
// named that type in its Accept and the answer says Vary: Accept (a note); without Vary a shared cache hands
// the negotiated picture to every client (a fault). "" when negotiated correctly, else why not.
std::string negotiation_fault(const PictureAsk& ask, const HttpExchange& answer, const std::string& type,
                              std::string& note) {
  const std::vector<std::string> accepted = accepted_types(answer);
  if (type.empty() || std::find(accepted.begin(), accepted.end(), type) == accepted.end())
    return "got Content-Type " + (type.empty() ? std::string("none") : quote(type));
  if (!detail::vary_names(answer, "Accept"))
    return "got " + type +
           ", which its Accept named, without Vary: Accept: a shared cache keeps that answer " +
           "and hands " + type + " to every client, those that cannot show it too";
  note = "pictures answered as " + type + " where mime_type says " + ask.mime_type +
         ": negotiated from the request's Accept, with Vary: Accept (as an image CDN does)";
  return "";
}

// The bytes a picture is judged by: its body, decoded when it came in a content coding the request
// accepted (a user's --header 'Accept-Encoding: gzip', a front's gzip), as a browser decodes it.
std::string picture_bytes(const HttpExchange& answer, std::string& decoded, std::string_view& bytes) {
  bytes = answer.body;
  const std::string coding = detail::coding_of(answer.header("Content-Encoding").value_or(""));
  if (coding.empty()) return "";
  const auto accepted = answer.request_header("Accept-Encoding");
  if (!detail::accepts_coding(accepted ? std::optional<std::string_view>(*accepted) : std::nullopt, coding))
    return "got Content-Encoding " + quote(coding) + ", which the request did not accept";
  detail::Decoded out = detail::decode_body(coding, answer.body, kDecodedPictureBytes);
  if (out.text.empty()) return "got a " + coding + " body that does not decode: " + out.error;
  decoded = std::move(out.text);
  bytes = decoded;
  return "";
}

// A picture read whole: the body is the whole file its headers announce (Content-Length, a 206's
// Content-Range), and its structure reaches its end. "" when it does; a body cut at the cap is judged by its
// head alone, with a note.
std::string whole_fault(const PictureAsk& ask, const HttpExchange& answer, std::string_view bytes,
                        std::string_view type, std::string& note) {
  if (answer.body_truncated) {
    note = "the picture of record " + (ask.record_id ? std::to_string(*ask.record_id) : "?") +
           " is over the suite's cap of " + std::to_string(answer.body.size()) +
           " bytes a picture: its first bytes were judged, not its end (" + ask.image + ")";
    return "";
  }
  if (const auto length = answer.header("Content-Length"); length && common::digits(common::trim(*length)))
    if (*common::digits(common::trim(*length)) != answer.body.size())
      return "got a body of " + std::to_string(answer.body.size()) + " bytes where Content-Length says " +
             std::string(common::trim(*length));
  if (answer.status == 206) {
    const auto range = content_range(answer);
    if (!range || range->first != 0 || range->last + 1 != answer.body.size() ||
        range->total != answer.body.size())
      return "got 206 with a part of the picture (Content-Range " +
             quote(answer.header("Content-Range").value_or("none")) + ", " +
             std::to_string(answer.body.size()) + " bytes) to a request for all of it";
  }
  const std::string fault = detail::picture_structure_fault(type, bytes);
  return fault.empty()
             ? ""
             : "got " + fault + ", " + std::to_string(bytes.size()) + " bytes long: a file cut short?";
}

// Why the answer is not the record's picture, or "" when it is; `note` gets what the run should say of a
// picture that passes (negotiated, over the cap).
std::string picture_fault(const PictureAsk& ask, const Followed& got, std::string& note) {
  const HttpExchange& answer = got.answer();
  if (!got.error.empty()) return "got " + got.error + " (from " + quote(ask.image) + ")";
  if (answer.status != 200 && answer.status != 206) return "got " + answer_text(answer);
  const std::string type = media_type_of(answer);
  std::string expected = common::ascii_lowered(common::trim(ask.mime_type));
  if (!expected.empty() && !detail::same_picture_type(type, expected)) {
    if (std::string fault = negotiation_fault(ask, answer, type, note); !fault.empty()) return fault;
    expected = type;  // negotiated: judged as the type it came as
  }
  std::string decoded;
  std::string_view bytes;
  if (std::string fault = picture_bytes(answer, decoded, bytes); !fault.empty()) return fault;
  const std::string_view head = bytes.substr(0, detail::kPictureHeadBytes);
  if (const std::string what = detail::not_a_picture(head); !what.empty()) return "got " + what;
  if (expected.empty()) return "";
  if (const auto matches = detail::has_signature_of(expected, head); matches && !*matches) {
    const std::string_view is = detail::signature_type(head);
    return "got bytes that are not a picture of that type (" +
           (is.empty() ? "they start " + quote(head.substr(0, 16)) : "they are " + std::string(is)) + ")";
  }
  return ask.whole ? whole_fault(ask, answer, bytes, detail::canonical_picture_type(expected), note) : "";
}

/// "image: URL of the image" (spec §2.1) is a picture a browser loads: the URL, its redirects followed,
/// answers 200 (or 206 to the Range asked) with the record's mime_type (or a type its Accept named, with
/// Vary: Accept) and bytes of that type, not a page; a picture read whole is whole to its end.
void image_loads(const CheckContext&, const PictureAsk& ask, const Followed& got, Findings& findings) {
  std::string note;
  const std::string fault = picture_fault(ask, got, note);
  if (!note.empty()) findings.note("image_loads", note);
  if (fault.empty()) {
    findings.pass("image_loads");
    return;
  }
  const std::string id = ask.record_id ? " of record " + std::to_string(*ask.record_id) : "";
  const std::string type = ask.mime_type.empty() ? "" : " " + ask.mime_type;
  findings.fail({"image_loads",
                 "expected the picture" + id + " to load as a" + (type.empty() ? "" : "n") + type +
                     " picture (200 with its Content-Type and bytes" + (ask.whole ? ", whole" : "") + "), " +
                     fault + redirects_text(got) + " (listed on " + quote(ask.page_url) + ")",
                 ask.image, ask.pointer, ask.record_id});
}

// The share of pictures whose length equals file_size above which the deployment is taken to store it in
// bytes (nine in ten, and at least two): a few cut files among many whole ones then stand out.
constexpr std::uint64_t kAgreeingTenths = 9;

std::string size_text(const PictureLength& p) {
  return "record " + (p.record_id ? std::to_string(*p.record_id) : std::string("?")) + ": file_size " +
         std::to_string(p.file_size) + ", " + std::to_string(p.length) + " bytes (" + p.how + ")";
}

}  // namespace

std::optional<PictureLength> picture_length(const PictureAsk& ask, const Followed& got) {
  const HttpExchange& answer = got.answer();
  if (!ask.file_size || !got.error.empty() || (answer.status != 200 && answer.status != 206))
    return std::nullopt;
  if (answer.header("Content-Encoding")) return std::nullopt;  // a coded body's length is not the file's
  PictureLength out{ask.record_id, ask.image, ask.page_url, *ask.file_size, 0, ""};
  if (answer.status == 206) {
    const auto range = content_range(answer);
    if (!range || !range->total) return std::nullopt;
    out.length = *range->total;
    out.how = "Content-Range total";
  } else if (ask.whole && !answer.body_truncated) {
    out.length = answer.body.size();
    out.how = "read whole";
  } else if (const auto length = answer.header("Content-Length");
             length && common::digits(common::trim(*length))) {
    out.length = *common::digits(common::trim(*length));
    out.how = "Content-Length";
  } else {
    return std::nullopt;
  }
  return out;
}

namespace {

// The example a note gives: the lowest record id seen, whatever order threads met them in.
bool before(const PictureLength& a, const std::optional<PictureLength>& b) {
  return !b || (a.record_id && (!b->record_id || *a.record_id < *b->record_id));
}

}  // namespace

void PictureSizes::add(PictureLength length) {
  ++seen;
  if (before(length, example)) example = length;
  if (length.file_size == length.length) {
    ++agree;
  } else if (differing.size() < Findings::kKeptFailures) {
    differing.push_back(std::move(length));
  } else {
    ++differing_left;
  }
}

void PictureSizes::merge(const PictureSizes& other) {
  seen += other.seen;
  agree += other.agree;
  if (other.example && before(*other.example, example)) example = other.example;
  for (const PictureLength& p : other.differing)
    if (differing.size() < Findings::kKeptFailures) {
      differing.push_back(p);
    } else {
      ++differing_left;
    }
  differing_left += other.differing_left;
}

void settle_picture_sizes(const PictureSizes& sizes, Findings& into) {
  if (sizes.seen == 0) return;
  const std::uint64_t agree = sizes.agree, total = sizes.seen;
  if (agree == 0) {
    into.note("image_loads", "file_size is not the picture's length in bytes in any of the " +
                                 std::to_string(total) + " pictures whose length was seen (" +
                                 size_text(*sizes.example) +
                                 "): the spec leaves its unit open, so it is not judged");
    return;
  }
  if (agree < 2 || agree * 10 < total * kAgreeingTenths) {
    into.note("image_loads", "file_size equals the picture's length in bytes in " + std::to_string(agree) +
                                 " of " + std::to_string(total) +
                                 " pictures: too few to take it as the unit, so it is not judged");
    return;
  }
  into.note("image_loads", "file_size is the picture's length in bytes (as django-filer stores it) in " +
                               std::to_string(agree) + " of " + std::to_string(total) + " pictures");
  for (const PictureLength& p : sizes.differing) {
    const std::string id = p.record_id ? std::to_string(*p.record_id) : std::string("?");
    into.fail({"image_loads",
               "expected the picture of record " + id + " to be file_size = " + std::to_string(p.file_size) +
                   " bytes long, as " + std::to_string(agree) + " of the " + std::to_string(total) +
                   " pictures seen are, got " + std::to_string(p.length) + " bytes (" + p.how +
                   "): a file cut short or replaced (listed on " + quote(p.page_url) + ")",
               p.image, "", p.record_id});
  }
  for (std::uint64_t i = 0; i < sizes.differing_left; ++i)
    into.fail({"image_loads", "a picture whose length differs from its file_size", "", "", std::nullopt});
}

namespace {

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

// What a framework's debug page says of itself: the marker and what it is, for messages.
struct DebugMarker {
  std::string_view text;
  std::string_view what;
};
constexpr DebugMarker kDebugMarkers[] = {
    {"because you have <code>DEBUG = True</code>", "Django's debug page (DEBUG = True)"},
    {"because you have DEBUG = True", "Django's debug page (DEBUG = True)"},
    {"Using the URLconf defined in", "Django's technical 404 page, listing the project's URL patterns"},
    {"Django tried these URL patterns", "Django's technical 404 page, listing the project's URL patterns"},
    {"<th>Exception Value:</th>", "Django's technical 500 page (the exception, the settings)"},
    {"Traceback (most recent call last)", "a Python traceback"},
    {"Werkzeug Debugger", "Werkzeug's interactive debugger"},
    {"Action Controller: Exception caught", "Rails' debug page"},
    {"Whoops! There was an error", "Laravel's debug page"},
    {"<b> Exception Details: </b>", "ASP.NET's detailed error page"},
};

// What debug page the body is, or "" when it is none.
std::string_view debug_page_kind(std::string_view body) {
  for (const DebugMarker& m : kDebugMarkers)
    if (body.find(m.text) != std::string_view::npos) return m.what;
  return "";
}

/// A deployment in production shows no debug page (Django's deployment checklist: DEBUG = False): an unknown
/// URL's 404, and any error answer met, carries no framework's debug page, traceback or settings.
void debug_page_hidden(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& answer = page.exchange;
  if (answer.status < 400) return;
  const std::string_view kind = debug_page_kind(answer.body);
  if (kind.empty()) {
    findings.pass("debug_page_hidden");
    return;
  }
  findings.fail({"debug_page_hidden",
                 "expected the " + std::to_string(answer.status) + " answer to be a plain error page, got " +
                     std::string(kind) +
                     ": DEBUG is on, and anyone can read the project's URL patterns, code and settings",
                 answer.url, "", std::nullopt});
}

constexpr Rule kClientRules[] = {
    {"image_loads", "pictures",
     "every record's image loads: 200 with the record's mime_type and a picture's bytes, redirects followed",
     "spec §2.1 (image: URL of the image); reference §4", PictureLoad{image_loads}},
    {"debug_page_hidden", "settings",
     "no error answer is a framework's debug page: an unknown URL's 404 and every 5xx met",
     "Django's deployment checklist (DEBUG = False)", EveryPage{debug_page_hidden, Reads::error_answers}},
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

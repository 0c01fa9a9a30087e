// Rules on what a client does past the list: it loads each record's picture (and, in later rules, opens a
// record, asks a page again with its validators, follows the slashless path). contract/run/follow_ups.cpp
// asks; docs/contract.md, "Past the list".
#include "entimg/common/ascii.hpp"
#include "entimg/contract/checks.hpp"
#include "message_text.hpp"
#include "picture_types.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

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

// Why the answer is not the record's picture, or "" when it is.
std::string picture_fault(const PictureAsk& ask, const Followed& got) {
  const HttpExchange& answer = got.answer();
  if (!got.error.empty()) return "got " + got.error + " (from " + quote(ask.image) + ")";
  if (answer.status != 200 && answer.status != 206) return "got " + answer_text(answer);
  const std::string type = media_type_of(answer);
  const std::string expected = common::ascii_lowered(common::trim(ask.mime_type));
  if (!expected.empty() && !detail::same_picture_type(type, expected))
    return "got Content-Type " + (type.empty() ? std::string("none") : quote(type));
  const std::string_view head = std::string_view(answer.body).substr(0, detail::kPictureHeadBytes);
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

constexpr Rule kRules[] = {
    {"image_loads", "pictures",
     "every record's image loads: 200 with the record's mime_type and a picture's bytes, redirects followed",
     "spec §2.1 (image: URL of the image); reference §4", PictureLoad{image_loads}},
};

}  // namespace

std::span<const Rule> detail::client_rules() {
  return kRules;
}

}  // namespace entimg::contract

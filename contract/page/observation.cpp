#include "entimg/contract/observation.hpp"

#include <algorithm>
#include <cstring>

#include "content_coding.hpp"
#include "entimg/common/ascii.hpp"
#include "json_parse.hpp"
#include "message_text.hpp"

namespace entimg::contract {
namespace {

// What is wrong with a compressed body the request did not ask for, or "" for a plain body. gzip's magic
// bytes without a Content-Encoding are a compressed body too: "not JSON: … at <U+001F>" would hide it.
std::string unasked_compression(const HttpExchange& exchange, std::string_view coding) {
  const auto asked = exchange.request_header("Accept-Encoding");
  const std::string why =
      asked ? "which the request did not accept (Accept-Encoding: " + detail::quote(*asked) + ")"
            : "which the request did not ask for (it sent no Accept-Encoding)";
  if (!coding.empty())
    return "a body compressed with Content-Encoding: " +
           detail::quote(common::trim(*exchange.header("Content-Encoding"))) + ", " + why;
  if (exchange.body.starts_with("\x1f\x8b"))
    return "a body compressed with gzip (its magic bytes 1f 8b), without a Content-Encoding";
  return "";
}

// Decodes a body in a coding the request accepted, in place; false (json_error set) when it is not one.
bool decode_accepted(Page& page) {
  HttpExchange& exchange = page.exchange;
  const auto encoding = exchange.header("Content-Encoding");
  const std::string coding = encoding ? detail::coding_of(*encoding) : std::string();
  const auto asked = exchange.request_header("Accept-Encoding");
  if (!coding.empty() &&
      detail::accepts_coding(asked ? std::optional<std::string_view>(*asked) : std::nullopt, coding)) {
    detail::Decoded decoded = detail::decode_body(coding, exchange.body);
    if (!decoded.error.empty()) {
      page.json_error = "a body that could not be decoded: " + decoded.error;
      return false;
    }
    exchange.body = std::move(decoded.text);
    page.content_coding = coding;
    return true;
  }
  page.json_error = unasked_compression(exchange, coding);
  return page.json_error.empty();
}

}  // namespace

void parse_body(Page& page) {
  page.json.reset();
  page.json_document.reset();
  page.json_error.clear();
  page.json_repeated_key.reset();
  page.json_records.clear();
  const std::string& body = page.exchange.body;
  if (page.exchange.body_truncated) {
    page.json_error = "the body was cut at " + std::to_string(body.size()) + " bytes (over the size limit)";
    return;
  }
  if (body.empty()) {
    page.json_error = "the body is empty";
    return;
  }
  if (page.content_coding.empty() && !decode_accepted(page)) return;
  try {
    auto parsed = detail::parse_json_dom(body);
    page.json = parsed.root;
    page.json_document = std::move(parsed.document);
    page.json_repeated_key = std::move(parsed.repeated_key);
    page.json_records = std::move(parsed.records);
  } catch (const detail::TooDeep&) {
    page.json_error =
        "the body nests arrays/objects deeper than " + std::to_string(detail::kMaxJsonDepth) + " levels";
  } catch (const nlohmann::json::exception& e) {
    // The message quotes the bytes read last, which may be invalid UTF-8.
    page.json_error = "not JSON: " + detail::parse_error_text(e.what());
  } catch (const std::runtime_error& e) {
    page.json_error = std::string("the body could not be read: ") + e.what();
  }
}

void set_body(Page& page, std::string text) {
  page.exchange.body = std::move(text);
  parse_body(page);
}

}  // namespace entimg::contract

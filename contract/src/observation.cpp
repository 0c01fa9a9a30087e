#include "entimg/contract/observation.hpp"

#include <algorithm>
#include <cstring>

#include "entimg/common/ascii.hpp"
#include "json_parse.hpp"
#include "message_text.hpp"

namespace entimg::contract {
namespace {

// The Content-Encoding a body came with, or "gzip" for gzip's magic bytes without one; nullopt for a
// plain body. The client sends no Accept-Encoding, so a compressed body is the server's mistake, and
// "not JSON: … at <U+001F>" would hide it.
std::optional<std::string> compression_of(const HttpExchange& exchange) {
  if (const auto encoding = exchange.header("Content-Encoding")) {
    const std::string_view value = common::trim(*encoding);
    if (!value.empty() && !common::iequals_ascii(value, "identity"))
      return "Content-Encoding: " + detail::quote(value);
  }
  if (exchange.body.starts_with("\x1f\x8b")) return std::string("gzip (its magic bytes 1f 8b)");
  return std::nullopt;
}

}  // namespace

void parse_body(Page& page) {
  page.json.reset();
  page.json_document.reset();
  page.json_error.clear();
  page.json_repeated_key.clear();
  const std::string& body = page.exchange.body;
  if (page.exchange.body_truncated) {
    page.json_error = "the body was cut at " + std::to_string(body.size()) + " bytes (over the size limit)";
    return;
  }
  if (body.empty()) {
    page.json_error = "the body is empty";
    return;
  }
  if (const auto encoding = compression_of(page.exchange)) {
    page.json_error = "a body compressed with " + *encoding + " (the suite never asks for compression)";
    return;
  }
  try {
    auto parsed = detail::parse_json_dom(body);
    page.json = parsed.root;
    page.json_document = std::move(parsed.document);
    page.json_repeated_key = std::move(parsed.repeated_key);
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

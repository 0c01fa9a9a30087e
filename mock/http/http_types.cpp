#include "entimg/mock/http_types.hpp"

#include "entimg/common/ascii.hpp"

namespace entimg::mock {

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  std::optional<std::string> value;
  for (const auto& [k, v] : headers) {
    if (!common::iequals_ascii(k, name)) continue;
    const auto b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
    const std::string stripped = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    value = value ? *value + "," + stripped : stripped;
  }
  return value;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 413:
      return "Request Entity Too Large";
    case 414:
      return "Request-URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 416:
      return "Requested Range Not Satisfiable";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    case 507:
      return "Insufficient Storage";
    default:
      return "Unknown Status Code";
  }
}

std::string whole_body(const HttpResponse& response) {
  if (!response.source) return response.body;
  std::string out(static_cast<std::size_t>(response.source->size()), '\0');
  response.source->write(0, out.data(), out.size());
  return out;
}

}  // namespace entimg::mock

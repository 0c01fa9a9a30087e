#include <ctime>

#include <algorithm>
#include <array>
#include <string>

#include <openssl/x509_vfy.h>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "http_detail.hpp"

namespace entimg::contract::detail {
namespace {

using std::chrono::milliseconds;

bool is_host_char(char c) {
  return common::ascii_digit(c) || common::ascii_alpha(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

bool is_ipv6_char(char c) {
  return common::ascii_hex(c) || c == ':' || c == '.';
}

std::optional<int> parse_port(std::string_view text, bool tls) {
  if (text.empty()) return tls ? 443 : 80;
  if (text.size() > 5 || !std::all_of(text.begin(), text.end(), common::ascii_digit)) return std::nullopt;
  int port = 0;
  for (const char c : text)
    port = port * 10 + (c - '0');
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

}  // namespace

std::optional<Target> parse_url(std::string_view url) {
  const auto sep = url.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  const std::string scheme = common::ascii_lowered(url.substr(0, sep));
  if (scheme != "http" && scheme != "https") return std::nullopt;
  Target target;
  target.tls = scheme == "https";
  const std::string_view rest = url.substr(sep + 3);
  const auto authority_end = std::min(rest.find_first_of("/?#"), rest.size());
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = rest.substr(authority_end);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    target.has_userinfo = true;
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  bool ipv6 = false;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    target.host = common::ascii_lowered(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return std::nullopt;
    if (!after.empty()) port_text = after.substr(1);
    ipv6 = true;
    if (target.host.empty() || !std::all_of(target.host.begin(), target.host.end(), is_ipv6_char))
      return std::nullopt;
  } else {
    const auto colon = authority.rfind(':');
    target.host = common::ascii_lowered(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    if (target.host.empty() || !std::all_of(target.host.begin(), target.host.end(), is_host_char)) {
      return std::nullopt;
    }
  }
  const auto port = parse_port(port_text, target.tls);
  if (!port) return std::nullopt;
  target.port = *port;
  target.origin = scheme + "://" + (ipv6 ? "[" + target.host + "]" : target.host);
  if (target.port != (target.tls ? 443 : 80)) target.origin += ":" + std::to_string(target.port);
  tail = tail.substr(0, tail.find('#'));
  // Only what cannot stand in a request line is encoded, so a link from the server can never inject a
  // header; the rest goes as given (cpp-httplib's encoder would turn '+' into %2B: a different query).
  common::append_request_line_safe(target.path_and_query,
                                   tail.empty() || tail.front() == '?' ? "/" + std::string(tail) : tail);
  return target;
}

std::string ms_text(std::chrono::milliseconds ms) {
  return std::to_string(ms.count()) + " ms";
}

std::string for_message(std::string_view text) {
  constexpr std::size_t kShown = 200;
  std::string shown;
  common::append_request_line_safe(shown, text.substr(0, kShown));
  if (text.size() > kShown) shown += "…";
  return "'" + shown + "'";
}

std::string verify_text(long code) {
  switch (code) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
      return "unable to get issuer certificate";
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      return "certificate signature failure";
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "certificate is not yet valid";
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return "certificate has expired";
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      return "self-signed certificate";
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      return "self-signed certificate in certificate chain";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      return "unable to get local issuer certificate";
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return "unable to verify the first certificate";
    case X509_V_ERR_CERT_REVOKED:
      return "certificate revoked";
    case X509_V_ERR_INVALID_CA:
      return "invalid CA certificate";
    case X509_V_ERR_INVALID_PURPOSE:
      return "unsupported certificate purpose";
    case X509_V_ERR_CERT_UNTRUSTED:
      return "certificate not trusted";
    case X509_V_ERR_CERT_REJECTED:
      return "certificate rejected";
    case X509_V_ERR_HOSTNAME_MISMATCH:
      return "hostname mismatch";
    case X509_V_ERR_EE_KEY_TOO_SMALL:
      return "certificate key too weak";
    case X509_V_ERR_CA_MD_TOO_WEAK:
      return "CA signature digest algorithm too weak";
    default:
      return "X509 verify error " + std::to_string(code);
  }
}

/// Seconds or an HTTP-date (RFC 9110 §10.2.3), as a wait from now; nullopt when it is neither.
std::optional<milliseconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), common::ascii_digit)) {
    if (value.size() > 9) return milliseconds::max();
    return std::chrono::seconds(std::stol(std::string(value)));
  }
  // IMF-fixdate first, then the two obsolete forms every recipient must accept.
  static constexpr std::array<const char*, 3> kFormats = {
      "%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"};
  const std::string text(value);
  for (const char* format : kFormats) {
    std::tm parts{};
    const char* end = ::strptime(text.c_str(), format, &parts);
    if (end == nullptr || *end != '\0') continue;
    const auto when = std::chrono::system_clock::from_time_t(::timegm(&parts));
    const auto wait = std::chrono::duration_cast<milliseconds>(when - std::chrono::system_clock::now());
    return std::max(wait, milliseconds(0));
  }
  return std::nullopt;
}

}  // namespace entimg::contract::detail

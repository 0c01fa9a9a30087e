#include "entimg/contract/http.hpp"

#include <poll.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <thread>

#include <httplib.h>
#include <openssl/x509_vfy.h>

#include "entimg/common/ascii.hpp"
#include "http_connection.hpp"
#include "http_detail.hpp"
#include "http_gate.hpp"
#include "http_pool.hpp"
#include "http_watchdog.hpp"
#include "secret_mask.hpp"

namespace entimg::contract {
namespace {

// simdjson's SIMDJSON_PADDING: bytes it may read past the end of a text it parses in place.
constexpr std::size_t kParsePadding = 64;

using common::iequals_ascii;
using detail::add_ca_bundle;
using detail::Clock;
using detail::Connection;
using detail::Cut;
using detail::for_message;
using detail::kHeaderAllowance;
using detail::ms_text;
using detail::parse_url;
using detail::SigpipeGuard;
using detail::Target;
using detail::verify_text;
using detail::WatchEnd;
using std::chrono::milliseconds;

// Longer status lines are refused: cpp-httplib's own limit for a header line.
constexpr std::size_t kMaxStatusLine = 8192;
// How long a HEAD answer's connection is watched for a body the server should not send.
constexpr int kHeadBodyGraceMs = 50;

/// Why an attempt has no usable answer: its kind and its text.
struct Failure {
  FailureKind kind = FailureKind::none;
  std::string text;
};

/// One attempt's result before retries are decided.
struct Outcome {
  int status = 0;
  Headers headers;
  std::string body;
  bool truncated = false;
  Failure failure;
  bool stale = false;          ///< a reused keep-alive connection died before any byte came: safe to resend
  std::size_t after_head = 0;  ///< bytes that came after a HEAD answer's headers
  std::size_t dropped_after_head = 0;  ///< data segments that came after it once the socket was shut
  bool not_modified = false;  ///< a 304: its head is the whole answer (cpp-httplib 0.11 would read a body)
};

Headers copy_headers(const httplib::Headers& from) {
  Headers out;
  out.reserve(from.size());
  for (const auto& [name, value] : from)
    out.emplace_back(name, value);
  return out;
}

void check_header_option(const std::pair<std::string, std::string>& header) {
  const auto bad = [](char c) { return c == '\r' || c == '\n' || c == '\0'; };
  if (header.first.empty() || std::any_of(header.first.begin(), header.first.end(), bad) ||
      header.first.find(':') != std::string::npos) {
    throw std::invalid_argument("header name " + for_message(header.first) +
                                " is not a valid HTTP header name");
  }
  // The value is a secret as often as not: name the header, never show the value.
  if (std::any_of(header.second.begin(), header.second.end(), bad)) {
    throw std::invalid_argument("the value of header " + for_message(header.first) +
                                " contains a line break or NUL");
  }
}

}  // namespace

std::optional<std::string> HttpExchange::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals_ascii(key, name)) return value;
  }
  return std::nullopt;
}

std::size_t HttpExchange::header_count(std::string_view name) const {
  return static_cast<std::size_t>(std::count_if(headers.begin(), headers.end(),
                                                [&](const auto& h) { return iequals_ascii(h.first, name); }));
}

std::optional<std::string> HttpExchange::request_header(std::string_view name) const {
  for (const auto& [key, value] : request_headers)
    if (iequals_ascii(key, name)) return value;
  return std::nullopt;
}

std::optional<std::string> origin_of(std::string_view url) {
  auto target = parse_url(url);
  if (!target) return std::nullopt;
  return std::move(target->origin);
}

// The client: resolving URLs, sending with retries and naming what went wrong. The budget, the rate
// and the retry waits are the gate's (http_gate.cpp), the connections the pool's (http_pool.cpp), the
// cuts the watchdog's (http_watchdog.cpp).
struct Client::Impl {
 public:
  explicit Impl(ClientOptions options);

  HttpExchange request(std::string_view method, std::string_view url_or_path, const Headers& headers,
                       std::size_t body_cap);
  const std::string& origin() const { return base_.origin; }
  const std::string& base_path() const { return base_path_; }
  std::size_t requests_sent() const { return gate_.requests_sent(); }
  bool budget_left() const { return gate_.budget_left(); }
  std::string refusal() const { return gate_.refusal(); }
  bool out_of_time() const { return gate_.out_of_time(); }

 private:
  std::optional<Target> resolve(std::string_view url_or_path, std::string& why) const;
  Headers headers_for(const Target& target, const Headers& own) const;
  // What one send over a connection gave: cpp-httplib's answer and error, errno, and the watchdog's view.
  struct Sent {
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    bool ok = false;
    int saved_errno = 0;
    bool had_socket = false;  ///< the connection was open before this attempt (kept alive)
    WatchEnd end;
  };
  /// One attempt: the request sent on a pooled connection, read under the watchdog, named if it failed.
  void send_with_retries(std::string_view method, const Target& target, HttpExchange& ex, std::size_t cap);
  Outcome send_once(std::string_view method, const Target& target, const Headers& headers, std::size_t cap);
  httplib::Request make_request(std::string_view method, const Target& target, const Headers& headers,
                                Connection& conn, Outcome& out, std::size_t cap);
  Sent send_watched(Connection& conn, httplib::Request& req, const std::string& url, Outcome& out);
  void keep_answer(std::string_view method, const Target& target, Connection& conn,
                   const httplib::Response& res, Outcome& out);
  void explain_failure(const Sent& sent, const Connection& conn, const std::string& url, Outcome& out,
                       std::size_t cap) const;
  Failure failure_of(httplib::Error error, int saved_errno, const WatchEnd& end, const Connection& conn,
                     const std::string& url, bool chunked) const;

  ClientOptions options_;
  detail::SecretMask secrets_{options_.secrets};
  Target base_;
  std::string base_path_;
  std::optional<Clock::time_point> run_deadline_;
  detail::RequestGate gate_;
  detail::Watchdog watchdog_;
  detail::ConnectionPool pool_;
};

namespace {

// Throws when the base URL is not one the client can use.
Target base_target(const std::string& base_url) {
  auto base = parse_url(base_url);
  if (!base || base->has_userinfo || base->path_and_query.find('?') != std::string::npos) {
    throw std::invalid_argument("base URL must be http(s)://host[:port][/prefix], got " +
                                for_message(base_url));
  }
  return std::move(*base);
}

}  // namespace

Client::Impl::Impl(ClientOptions options)
    : options_(std::move(options)),
      base_(base_target(options_.base_url)),
      base_path_(base_.path_and_query),
      run_deadline_(options_.deadline.count() > 0 ? std::optional(Clock::now() + options_.deadline)
                                                  : std::nullopt),
      gate_(options_, run_deadline_),
      watchdog_(options_, run_deadline_),
      pool_(options_, watchdog_) {
  while (!base_path_.empty() && base_path_.back() == '/')
    base_path_.pop_back();
  for (const auto& header : options_.headers)
    check_header_option(header);
  if (options_.cacert) {
    // Checked once here, so a wrong path is a usage error rather than one failed request per connection.
    const httplib::SSLClient probe(base_.host, base_.port);
    if (!add_ca_bundle(probe.ssl_context(), options_.cacert->string())) {
      throw std::invalid_argument("could not load the CA bundle " + for_message(options_.cacert->string()));
    }
  }
}

std::optional<Target> Client::Impl::resolve(std::string_view url_or_path, std::string& why) const {
  std::optional<Target> target;
  if (url_or_path.starts_with("//")) {
    target = parse_url((base_.tls ? "https:" : "http:") + std::string(url_or_path));
  } else if (url_or_path.starts_with("/")) {
    target = parse_url(base_.origin + std::string(url_or_path));
  } else {
    target = parse_url(url_or_path);
  }
  if (!target) {
    why = "not sent: " + for_message(url_or_path) +
          " is neither an absolute http(s) URL nor a path starting with '/'";
  } else if (target->has_userinfo) {
    why = "not sent: the URL carries user credentials (user@host), which the suite never sends";
  }
  return target;
}

namespace {

// A read that failed: reset, closed before a whole answer, or an answer that is not HTTP.
Failure read_failure(bool reset, bool answered, bool headers_done, const std::string& url, bool chunked) {
  if (reset) return {FailureKind::reset, "connection reset by peer while reading " + url};
  if (!answered) return {FailureKind::closed, "the server closed the connection without answering " + url};
  // cpp-httplib fails a chunk-size line that is not hex as it fails a close mid-body; the framing
  // is the likelier cause when there is one.
  if (headers_done && chunked)
    return {FailureKind::malformed_answer, "the chunked body of " + url +
                                               " could not be read: a chunk size that is not "
                                               "hexadecimal, or the connection closed mid-body"};
  if (headers_done)
    return {FailureKind::closed, "the connection closed before the body of " + url + " was complete"};
  return {FailureKind::malformed_answer, "not a valid HTTP response from " + url};
}

// A TLS handshake that failed: no TLS on the other side, or a certificate not verified.
Failure handshake_failure(httplib::Error error, bool answered, const Connection& conn) {
  const std::string& origin = conn.where.origin;
  if (error == httplib::Error::SSLConnection) {
    if (!answered)
      return {FailureKind::tls, "TLS handshake failed with " + origin + ": the server closed the connection"};
    return {FailureKind::tls, "TLS handshake failed with " + origin +
                                  ": the answer is not a TLS handshake (a plain-HTTP port?)"};
  }
  const long code = conn.tls != nullptr ? conn.tls->get_openssl_verify_result() : X509_V_OK;
  if (code != X509_V_OK) {
    return {FailureKind::tls,
            "TLS handshake failed: certificate verify failed (" + verify_text(code) + ") for " + origin};
  }
  return {FailureKind::tls, "TLS handshake failed: the certificate of " + origin +
                                " is not valid for host '" + conn.where.host + "'"};
}

}  // namespace

Failure Client::Impl::failure_of(httplib::Error error, int saved_errno, const WatchEnd& end,
                                 const Connection& conn, const std::string& url, bool chunked) const {
  const std::string& origin = conn.where.origin;
  // cpp-httplib resolves the name before it creates a socket, and leaves the error unset or reports
  // Connection when resolution fails: no socket means the name did not resolve.
  if (!end.opened && (error == httplib::Error::Connection || error == httplib::Error::Success ||
                      error == httplib::Error::Unknown)) {
    return {FailureKind::resolve, "could not resolve host '" + conn.where.host + "' (" + origin + ")"};
  }
  // After a failed read cpp-httplib calls shutdown(), which fails with ENOTCONN only on a reset socket.
  const bool reset = saved_errno == ECONNRESET || saved_errno == ENOTCONN;
  // The kernel counts the peer's FIN as one byte received.
  const bool answered = end.received > 1;
  switch (error) {
    case httplib::Error::Connection:
      if (saved_errno == ENETUNREACH || saved_errno == EHOSTUNREACH)
        return {FailureKind::connect_refused, "host unreachable: " + origin};
      if (saved_errno == ECONNREFUSED)
        return {FailureKind::connect_refused, "connection refused to " + origin};
      // The asynchronous connect's own error was consumed inside cpp-httplib; a refusal is by far the
      // likeliest, an ICMP unreachable the other possibility.
      return {FailureKind::connect_refused,
              "connection refused to " + origin + " (or the host is unreachable)"};
    case httplib::Error::ConnectionTimeout:
      return {FailureKind::connect_timeout,
              "connect timed out after " + ms_text(options_.connect_timeout) + " to " + origin};
    case httplib::Error::Read:
      return read_failure(reset, answered, end.headers_done, url, chunked);
    case httplib::Error::Write:
      if (reset) return {FailureKind::reset, "connection reset by peer while sending the request to " + url};
      return {FailureKind::closed, "could not send the request to " + url + " (the connection closed)"};
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLServerVerification:
      return handshake_failure(error, answered, conn);
    case httplib::Error::SSLLoadingCerts:
      return {FailureKind::tls, "could not load the CA bundle " +
                                    for_message(options_.cacert ? options_.cacert->string() : "")};
    default:
      return {FailureKind::other, "the request to " + url + " failed: " + httplib::to_string(error)};
  }
}

// The options' headers and the request's own, which replace those of the same name; to the base origin only.
Headers Client::Impl::headers_for(const Target& target, const Headers& own) const {
  Headers out;
  if (target.origin != base_.origin) return out;
  for (const auto& header : options_.headers) {
    const bool replaced = std::any_of(own.begin(), own.end(),
                                      [&](const auto& h) { return iequals_ascii(h.first, header.first); });
    if (!replaced) out.push_back(header);
  }
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

Outcome Client::Impl::send_once(std::string_view method, const Target& target, const Headers& headers,
                                std::size_t cap) {
  Outcome out;
  const std::string url = target.origin + target.path_and_query;
  auto conn = pool_.checkout(target);
  if (!conn->http->is_valid()) {
    out.failure = {FailureKind::tls, "TLS is not available: cpp-httplib could not create an OpenSSL context"};
    return out;
  }
  if (conn->ca_bundle_failed) {
    out.failure = {FailureKind::tls,
                   "could not load the CA bundle " + for_message(options_.cacert->string()) + "; not sent"};
    return out;
  }
  httplib::Request req = make_request(method, target, headers, *conn, out, cap);
  const Sent sent = send_watched(*conn, req, url, out);
  if (sent.ok && sent.end.cut == Cut::none && sent.res.reason.size() > kMaxStatusLine) {
    out.body.clear();
    out.truncated = false;
    out.failure = {FailureKind::malformed_answer,
                   "the status line from " + url + " is over " + std::to_string(kMaxStatusLine) + " bytes"};
    return out;
  }
  if (sent.ok && sent.end.cut == Cut::none) {
    keep_answer(method, target, *conn, sent.res, out);
    pool_.give_back(std::move(conn));
    return out;
  }
  if (out.not_modified && sent.error == httplib::Error::Canceled && sent.end.cut == Cut::none) {
    keep_answer(method, target, *conn, sent.res,
                out);  // the connection goes: what follows the head is unknown
    return out;
  }
  if (out.failure.text.empty()) explain_failure(sent, *conn, url, out, cap);
  return out;
}

// The request as cpp-httplib sends it, its body read into `out` up to the cap (and no further).
httplib::Request Client::Impl::make_request(std::string_view method, const Target& target,
                                            const Headers& headers, Connection& conn, Outcome& out,
                                            std::size_t cap) {
  httplib::Request req;
  req.method = std::string(method);
  req.path = target.path_and_query;
  for (const auto& [name, value] : headers)
    req.headers.emplace(name, value);
  if (!req.has_header("User-Agent")) req.headers.emplace("User-Agent", std::string(kUserAgent));
  req.response_handler = [this, raw = &conn, &out, cap](const httplib::Response& head) {
    // A 304 has no body (RFC 9110 §15.4.5), but cpp-httplib 0.11 reads one when no Content-Length says 0,
    // until the read timeout on a kept-alive connection: the read is stopped here, the head kept.
    if (head.status == 304) {
      out.not_modified = true;
      watchdog_.headers_done(*raw);
      return false;
    }
    // One allocation for a body of announced length instead of a doubling series of copies; never
    // more than the cap, whatever the header claims. The padding lets simdjson parse it in place
    // instead of copying it.
    const std::string length = head.get_header_value("Content-Length");
    std::uint64_t announced = 0;
    if (std::from_chars(length.data(), length.data() + length.size(), announced).ec == std::errc{})
      out.body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(announced, cap)) + kParsePadding);
    if (raw->bulk != nullptr) raw->bulk->expect_body(detail::body_bytes_expected(head, cap));
    watchdog_.headers_done(*raw);
    return true;
  };
  req.content_receiver = [&out, cap](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
    const std::size_t room = cap - out.body.size();
    if (size > room) {
      out.body.append(data, room);
      out.truncated = true;
      return false;  // stops reading: nothing past the cap is ever buffered
    }
    out.body.append(data, size);
    return true;
  };
  return req;
}

// Sends under the watchdog, on a thread with a big stack (cpp-httplib's status-line regex recurses once per
// character); what the library throws becomes out.failure.
Client::Impl::Sent Client::Impl::send_watched(Connection& conn, httplib::Request& req, const std::string& url,
                                              Outcome& out) {
  Sent sent;
  sent.had_socket = watchdog_.begin(conn);
  try {
    detail::run_on_big_stack([&] {
      const SigpipeGuard guard;
      errno = 0;
      sent.ok = conn.http->send(req, sent.res, sent.error);
      sent.saved_errno = errno;
    });
  } catch (const std::exception& e) {
    out.body.clear();
    out.truncated = false;
    out.failure = {FailureKind::malformed_answer,
                   std::string("the HTTP library failed on the answer from ") + url + ": " + e.what()};
  }
  sent.end = watchdog_.end(conn);
  return sent;
}

// A whole answer: its status and headers; after a HEAD, what the server sent on anyway.
void Client::Impl::keep_answer(std::string_view method, const Target& target, Connection& conn,
                               const httplib::Response& res, Outcome& out) {
  out.status = res.status;
  out.headers = copy_headers(res.headers);
  // cpp-httplib hands Location over percent-decoded: over plain HTTP the bytes that came replace it.
  if (conn.bulk != nullptr && res.has_header("Location"))
    if (auto raw = conn.bulk->raw_header("Location"))
      for (auto& [name, value] : out.headers)
        if (iequals_ascii(name, "Location")) {
          value = std::move(*raw);
          break;
        }
  // Over TLS a server that closes sends its close_notify alert, which the socket cannot tell from data.
  const bool closing =
      iequals_ascii(res.get_header_value("Connection"), "close") || res.version == "HTTP/1.0";
  if (method != "HEAD" || (target.tls && closing)) return;
  // cpp-httplib reads nothing after a HEAD answer's headers: a body the server sends anyway is looked for in
  // the socket, a moment after (the connection is not reused then).
  if (const int fd = watchdog_.socket_of(conn); fd >= 0) {
    const detail::AfterHead after =
        detail::watch_after_head(fd, watchdog_.attempt_base(conn), milliseconds(kHeadBodyGraceMs));
    out.after_head = after.bytes;
    out.dropped_after_head = after.dropped_segments;
  }
}

// Why there is no whole answer: a body over the cap (kept, marked cut), a cut of the watchdog, or what
// cpp-httplib and the socket say; and whether the request may be sent again on a new connection.
void Client::Impl::explain_failure(const Sent& sent, const Connection& conn, const std::string& url,
                                   Outcome& out, std::size_t cap) const {
  const WatchEnd& end = sent.end;
  const bool body_cut =
      end.cut == Cut::too_big ? end.headers_done : (sent.error == httplib::Error::Canceled && out.truncated);
  if (body_cut) {
    out.status = sent.res.status;
    out.headers = copy_headers(sent.res.headers);
    out.truncated = true;
    out.failure = {FailureKind::body_too_large,
                   "response body over " + std::to_string(cap) + " bytes, cut: " + url};
    return;
  }
  out.body.clear();
  out.truncated = false;
  switch (end.cut) {
    case Cut::timeout:
      out.failure = {FailureKind::read_timeout,
                     "timed out after " + ms_text(options_.read_timeout) + " reading " + url};
      break;
    case Cut::deadline:
      out.failure = {FailureKind::deadline, "the run deadline of " + ms_text(options_.deadline) +
                                                " was reached while reading " + url};
      break;
    case Cut::too_big:
      out.failure = {FailureKind::headers_too_large,
                     "response headers over " + std::to_string(kHeaderAllowance) + " bytes, cut: " + url};
      break;
    case Cut::none:
      out.failure =
          failure_of(sent.error, sent.saved_errno, end, conn, url,
                     sent.res.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos);
      // A keep-alive connection the server closed while idle fails before any byte comes back; the
      // request never reached the server, so sending it again on a new connection is safe.
      out.stale = sent.had_socket && !end.opened && end.received <= 1 &&
                  (sent.error == httplib::Error::Read || sent.error == httplib::Error::Write);
      break;
  }
}

std::string_view to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::none:
      return "none";
    case FailureKind::not_sent:
      return "not_sent";
    case FailureKind::budget:
      return "budget";
    case FailureKind::resolve:
      return "resolve";
    case FailureKind::connect_refused:
      return "connect_refused";
    case FailureKind::connect_timeout:
      return "connect_timeout";
    case FailureKind::tls:
      return "tls";
    case FailureKind::reset:
      return "reset";
    case FailureKind::closed:
      return "closed";
    case FailureKind::read_timeout:
      return "read_timeout";
    case FailureKind::deadline:
      return "deadline";
    case FailureKind::malformed_answer:
      return "malformed_answer";
    case FailureKind::headers_too_large:
      return "headers_too_large";
    case FailureKind::body_too_large:
      return "body_too_large";
    case FailureKind::other:
      return "other";
  }
  return "other";
}

HttpExchange Client::Impl::request(std::string_view method, std::string_view url_or_path, const Headers& own,
                                   std::size_t body_cap) {
  const auto start = Clock::now();
  HttpExchange ex;
  ex.method = std::string(method);
  const auto finish = [&] {
    ex.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
    secrets_.apply(ex);
    return std::move(ex);
  };
  if (method != "GET" && method != "HEAD" && method != "OPTIONS") {
    ex.url = std::string(url_or_path);
    ex.attempts = 0;
    ex.error = "method " + for_message(method) + " not sent: the suite only sends GET, HEAD and OPTIONS";
    ex.failure = FailureKind::not_sent;
    return finish();
  }
  std::string why;
  const auto target = resolve(url_or_path, why);
  ex.url = target ? target->origin + target->path_and_query : std::string(url_or_path);
  if (!why.empty()) {
    ex.attempts = 0;
    ex.error = why;
    ex.failure = FailureKind::not_sent;
    return finish();
  }
  for (const auto& header : own)
    check_header_option(header);
  ex.request_headers = headers_for(*target, own);
  const std::size_t cap =
      body_cap == 0 ? options_.max_body_bytes : std::min(body_cap, options_.max_body_bytes);
  send_with_retries(method, *target, ex, cap);
  return finish();
}

// Attempts until one answers other than 429 or 503, the retries are used up, or the gate refuses; a
// keep-alive connection found dead before any byte came is replaced once, not counted as an attempt.
void Client::Impl::send_with_retries(std::string_view method, const Target& target, HttpExchange& ex,
                                     std::size_t cap) {
  bool resent_stale = false;
  int attempt = 0;
  for (;;) {
    if (auto refusal = gate_.admit()) {
      if (attempt == 0) {
        ex.attempts = 0;
        ex.error = std::move(*refusal);
        ex.failure = FailureKind::budget;
      }
      break;  // otherwise the last answer (a 429 or 503) stands
    }
    ++attempt;
    Outcome outcome = send_once(method, target, ex.request_headers, cap);
    ex.status = outcome.status;
    ex.headers = std::move(outcome.headers);
    ex.body = std::move(outcome.body);
    ex.body_truncated = outcome.truncated;
    ex.bytes_after_head = outcome.after_head;
    ex.segments_after_head = outcome.dropped_after_head;
    ex.error = std::move(outcome.failure.text);
    ex.failure = outcome.failure.kind;
    ex.attempts = attempt;
    if (outcome.stale && !resent_stale) {
      resent_stale = true;
      --attempt;
      continue;
    }
    if ((ex.status != 429 && ex.status != 503) || !ex.error.empty() || attempt > options_.retries) break;
    const auto wait = gate_.retry_wait(ex.headers, attempt);
    if (run_deadline_ && Clock::now() + wait >= *run_deadline_) break;
    std::this_thread::sleep_for(wait);
  }
}

Client::Client(ClientOptions options)
    : on_answer_(options.on_answer), impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;

HttpExchange Client::request(std::string_view method, std::string_view url_or_path, const Headers& headers,
                             std::size_t body_cap) {
  HttpExchange exchange = impl_->request(method, url_or_path, headers, body_cap);
  if (on_answer_) on_answer_(exchange);
  return exchange;
}
const std::string& Client::origin() const {
  return impl_->origin();
}
const std::string& Client::base_path() const {
  return impl_->base_path();
}
std::size_t Client::requests_sent() const {
  return impl_->requests_sent();
}
bool Client::budget_left() const {
  return impl_->budget_left();
}
std::string Client::refusal() const {
  return impl_->refusal();
}
bool Client::out_of_time() const {
  return impl_->out_of_time();
}

}  // namespace entimg::contract

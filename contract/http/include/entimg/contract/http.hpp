#pragma once
// The suite's view of HTTP: one exchange per request, whatever the server did. A broken server can
// send anything, so every field is optional in spirit: status 0 and `error` set mean no usable answer.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace entimg::contract {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// The kind of an exchange's failure, beside its text (HttpExchange::error), as httplib::Error is beside
/// httplib::to_string: callers branch on the kind, people read the text.
enum class FailureKind {
  none,               ///< a whole answer
  not_sent,           ///< refused before sending: a method the suite never sends, a URL it cannot ask
  budget,             ///< the request budget or the run deadline was used up before sending
  resolve,            ///< the host name does not resolve
  connect_refused,    ///< connection refused, or the host unreachable
  connect_timeout,    ///< the connect timed out
  tls,                ///< TLS: the handshake, the certificate, the CA bundle
  reset,              ///< the connection was reset by the peer
  closed,             ///< the server closed the connection without a whole answer
  read_timeout,       ///< no byte for the read timeout (or a trickle past it)
  deadline,           ///< the run deadline was reached while reading
  malformed_answer,   ///< not HTTP: a bad status line or header, a bad chunk, a status line over 8 KiB
  headers_too_large,  ///< response headers over the allowance, cut
  body_too_large,     ///< a body over max_body_bytes: cut there, status and headers kept
  other,              ///< anything else the HTTP library reports
};
/// The kind's name, snake_case as above ("connect_refused").
std::string_view to_string(FailureKind kind);

/// What the client sends as User-Agent unless a header of the options sets one.
inline constexpr std::string_view kUserAgent = "entimg-contract (cpp-httplib)";

struct HttpExchange {
  std::string method;  ///< GET, HEAD or OPTIONS: the suite never sends anything else
  std::string url;     ///< absolute URL requested
  int status = 0;      ///< 0 when there was no usable answer
  Headers headers;     ///< as received
  std::string body;
  bool body_truncated = false;  ///< the body was over ClientOptions::max_body_bytes
  std::size_t bytes_after_head =
      0;  ///< HEAD: bytes the server sent after the headers (a body it must not send)
  /// HEAD: TCP segments with data that came after the headers once cpp-httplib had shut the socket (it does
  /// on Connection: close); the kernel drops them unread, so their bytes are not known.
  std::size_t segments_after_head = 0;
  std::string error;  ///< why there is no usable answer (timeout, reset, TLS, …); empty otherwise
  FailureKind failure = FailureKind::none;  ///< the kind of `error`
  int attempts = 1;  ///< 1 + retries on 429/503; 0 when nothing was sent (refused method,
                     ///< bad URL, budget or deadline used up)
  std::chrono::milliseconds elapsed{0};
  /// What the request carried besides the client's own User-Agent and Host: the options' headers (secrets
  /// masked) and the request's own, in the order sent. Empty for a request to another origin.
  Headers request_headers;

  /// First value of a header, case-insensitive; nullopt when absent.
  std::optional<std::string> header(std::string_view name) const;
  /// How many times the header appears.
  std::size_t header_count(std::string_view name) const;
  /// The value the request sent for a header (request_headers), case-insensitive; nullopt when none.
  std::optional<std::string> request_header(std::string_view name) const;
};

struct ClientOptions {
  std::string base_url;  ///< scheme://host[:port][/prefix]; http or https
  Headers headers;       ///< sent only to the base URL's origin, never shown in output
  /// Values masked ('*' for every byte) wherever an answer carries them: body, headers, URL, error. A
  /// server that echoes a secret (a Django DEBUG page does) cannot put it in a report or a snapshot.
  std::vector<std::string> secrets;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds read_timeout{15000};
  std::chrono::milliseconds deadline{0};   ///< whole run; 0 = none
  double rate = 0;                         ///< requests per second at most; 0 = unlimited
  std::size_t max_requests = 0;            ///< 0 = unlimited
  std::size_t max_body_bytes = 64u << 20;  ///< bodies above this are cut and marked truncated
  int retries = 3;                         ///< on 429/503, honouring Retry-After, with backoff
  std::chrono::milliseconds max_retry_wait{30000};
  std::optional<std::filesystem::path> cacert;  ///< extra CA bundle; system CAs otherwise
  bool insecure = false;                        ///< skip TLS verification (the CLI warns loudly)
  /// When set and true (a signal asked the run to stop), requests are refused as after the deadline, so the
  /// run ends with a report of what it checked.
  const std::atomic<bool>* stop = nullptr;
  /// Called with each request's outcome, from the thread that made it (the monitor times requests).
  std::function<void(const HttpExchange&)> on_answer;
};

/// Thread-safe; shares the rate limit, the request budget and the deadline between threads.
class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Sends GET/HEAD/OPTIONS to an absolute URL or to a path-and-query on the base origin. Redirects
  /// are not followed (a 3xx is returned as it came). Never throws for what the server does. `headers`
  /// go with this request to the base origin (Host among them), each replacing the options' header of the
  /// same name (any case): the quick plan's sides ask with them. `body_cap` (0: the options') cuts this
  /// answer's body lower than max_body_bytes: a picture is judged by its first bytes.
  HttpExchange request(std::string_view method, std::string_view url_or_path, const Headers& headers = {},
                       std::size_t body_cap = 0);
  /// "scheme://host[:port]" of the base URL, lower-case scheme and host, default port left out.
  const std::string& origin() const;
  /// The path prefix of the base URL without a trailing slash ("" or "/prefix").
  const std::string& base_path() const;
  std::size_t requests_sent() const;
  /// False once max_requests or the deadline is used up, or a stop was asked; requests then fail with that
  /// reason.
  bool budget_left() const;
  /// Why requests are refused now ("not sent: the run deadline of 60 s is used up"), or "".
  std::string refusal() const;
  /// The run's deadline has passed or a stop was asked (ClientOptions::stop): the run should end now, with
  /// a report of what it checked. (A spent --max-requests is not: the run goes on to its verdict.)
  bool out_of_time() const;

 private:
  struct Impl;
  std::function<void(const HttpExchange&)> on_answer_;
  std::unique_ptr<Impl> impl_;
};

/// "scheme://host[:port]" normalised as Client::origin() does, or nullopt if url is not absolute http(s).
std::optional<std::string> origin_of(std::string_view url);

}  // namespace entimg::contract

#include "entimg/contract/http.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <httplib.h>
#include <openssl/x509_vfy.h>

#include "entimg/common/ascii.hpp"
#include "entimg/common/prng.hpp"
#include "http_detail.hpp"
#include "secret_mask.hpp"

namespace entimg::contract {
namespace {

// simdjson's SIMDJSON_PADDING: bytes it may read past the end of a text it parses in place.
constexpr std::size_t kParsePadding = 64;

using common::iequals_ascii;
using detail::abort_socket;
using detail::add_ca_bundle;
using detail::bytes_received;
using detail::for_message;
using detail::parse_retry_after;
using detail::parse_url;
using detail::receive_buffer;
using detail::SigpipeGuard;
using detail::Target;
using detail::verify_text;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Real response heads are a few KiB; a server that sends more before its body is broken or hostile.
constexpr std::uint64_t kHeaderAllowance = 256 * 1024;
// Longer status lines are refused: cpp-httplib's own limit for a header line.
constexpr std::size_t kMaxStatusLine = 8192;
// How long a HEAD answer's connection is watched for a body the server should not send.
constexpr int kHeadBodyGraceMs = 50;
constexpr auto kWatchInterval = milliseconds(10);
// While a response head is read, so a server sending one without end is cut soon after the allowance.
constexpr auto kHeadWatchInterval = milliseconds(1);
constexpr std::size_t kIdlePerOrigin = 32;
constexpr auto kFirstBackoff = milliseconds(250);

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

enum class Cut { none, timeout, deadline, too_big };

/// One pooled keep-alive connection: a cpp-httplib client and what the watchdog needs to cut it.
struct Connection {
  Target where;
  std::unique_ptr<httplib::ClientImpl> http;
  httplib::SSLClient* tls = nullptr;  ///< http as an SSLClient, for the verify result
  bool ca_bundle_failed = false;      ///< ClientOptions::cacert could not be loaded
  // The fields below are guarded by the owning Impl's watch mutex.
  int fd = -1;              ///< a dup of cpp-httplib's socket: the socket stays valid while we hold it
  unsigned generation = 0;  ///< bumped per new socket, so a reused fd number is never mistaken
  unsigned cut_generation = 0;
  bool opened = false;  ///< a new socket was created during the current attempt
  bool headers_done = false;
  std::uint64_t wire_base = 0;
  Clock::time_point cut_at;
  Cut cut_reason = Cut::timeout;
  Cut cut = Cut::none;

  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    {
      const SigpipeGuard guard;  // the destructor may send a TLS close_notify to a closed peer
      http.reset();
    }
    if (fd >= 0) ::close(fd);
  }
};

/// What the watchdog knew when an attempt ended.
struct WatchEnd {
  Cut cut = Cut::none;
  bool opened = false;
  bool headers_done = false;
  std::uint64_t received = 0;  ///< bytes on the wire during this attempt (TLS records, the FIN as one)
};

/// One attempt's result before retries are decided.
struct Outcome {
  int status = 0;
  Headers headers;
  std::string body;
  bool truncated = false;
  std::string error;
  bool stale = false;          ///< a reused keep-alive connection died before any byte came: safe to resend
  std::size_t after_head = 0;  ///< bytes that came after a HEAD answer's headers
};

Headers copy_headers(const httplib::Headers& from) {
  Headers out;
  out.reserve(from.size());
  for (const auto& [name, value] : from)
    out.emplace_back(name, value);
  return out;
}

std::string ms_text(milliseconds ms) {
  return std::to_string(ms.count()) + " ms";
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

std::optional<std::string> origin_of(std::string_view url) {
  auto target = parse_url(url);
  if (!target) return std::nullopt;
  return std::move(target->origin);
}

struct Client::Impl {
 public:
  explicit Impl(ClientOptions options);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  HttpExchange request(std::string_view method, std::string_view url_or_path);
  const std::string& origin() const { return base_.origin; }
  const std::string& base_path() const { return base_path_; }
  std::size_t requests_sent() const;
  bool budget_left() const;

 private:
  std::optional<Target> resolve(std::string_view url_or_path, std::string& why) const;
  std::optional<std::string> admit();
  milliseconds retry_wait(const Headers& headers, int attempt);
  Outcome send_once(std::string_view method, const Target& target);
  std::string failure_text(httplib::Error error, int saved_errno, const WatchEnd& end, const Connection& conn,
                           const std::string& url, bool chunked) const;
  std::unique_ptr<Connection> checkout(const Target& target);
  void give_back(std::unique_ptr<Connection> conn);
  std::unique_ptr<Connection> connect_to(const Target& target);
  bool begin_watch(Connection& conn);
  WatchEnd end_watch(Connection& conn);
  void on_socket(Connection& conn, int sock);
  void watch();
  void inspect(Connection& conn, Clock::time_point now);
  std::string deadline_text() const;
  std::string budget_text() const;

  ClientOptions options_;
  detail::SecretMask secrets_{options_.secrets};
  Target base_;
  std::string base_path_;
  std::optional<Clock::time_point> run_deadline_;
  Clock::duration interval_{0};

  mutable std::mutex gate_mutex_;  // budget, rate and jitter
  std::size_t sent_ = 0;
  Clock::time_point next_slot_;
  common::Pcg32 jitter_;

  std::mutex pool_mutex_;
  std::unordered_map<std::string, std::vector<std::unique_ptr<Connection>>> idle_;

  std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  std::vector<Connection*> in_flight_;
  bool stopping_ = false;
  std::thread watchdog_;
};

Client::Impl::Impl(ClientOptions options)
    : options_(std::move(options)),
      jitter_(static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()), 0x6a177e5) {
  auto base = parse_url(options_.base_url);
  if (!base || base->has_userinfo || base->path_and_query.find('?') != std::string::npos) {
    throw std::invalid_argument("base URL must be http(s)://host[:port][/prefix], got " +
                                for_message(options_.base_url));
  }
  base_ = std::move(*base);
  base_path_ = base_.path_and_query;
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
  if (options_.deadline.count() > 0) run_deadline_ = Clock::now() + options_.deadline;
  if (options_.rate > 0 && options_.rate < 1e9) {
    interval_ =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / options_.rate));
  }
  next_slot_ = Clock::now();
  watchdog_ = std::thread([this] { watch(); });
}

Client::Impl::~Impl() {
  {
    const std::lock_guard lock(watch_mutex_);
    stopping_ = true;
  }
  watch_cv_.notify_all();
  watchdog_.join();
}

std::size_t Client::Impl::requests_sent() const {
  const std::lock_guard lock(gate_mutex_);
  return sent_;
}

bool Client::Impl::budget_left() const {
  const std::lock_guard lock(gate_mutex_);
  if (run_deadline_ && Clock::now() >= *run_deadline_) return false;
  return options_.max_requests == 0 || sent_ < options_.max_requests;
}

std::string Client::Impl::deadline_text() const {
  return "not sent: the run deadline of " + ms_text(options_.deadline) + " is used up";
}

std::string Client::Impl::budget_text() const {
  return "not sent: the request budget of " + std::to_string(options_.max_requests) + " requests is used up";
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

// Spacing rather than bursts: N requests at rate R never take less than (N-1)/R, whatever the threads do.
std::optional<std::string> Client::Impl::admit() {
  Clock::time_point slot;
  {
    const std::lock_guard lock(gate_mutex_);
    const auto now = Clock::now();
    if (run_deadline_ && now >= *run_deadline_) return deadline_text();
    if (options_.max_requests != 0 && sent_ >= options_.max_requests) return budget_text();
    slot = now;
    if (interval_.count() > 0) {
      slot = std::max(now, next_slot_);
      if (run_deadline_ && slot >= *run_deadline_) return deadline_text();
      next_slot_ = slot + interval_;
    }
    ++sent_;
  }
  std::this_thread::sleep_until(slot);
  return std::nullopt;
}

milliseconds Client::Impl::retry_wait(const Headers& headers, int attempt) {
  const auto cap = std::max(options_.max_retry_wait, milliseconds(0));
  for (const auto& [name, value] : headers) {
    if (!iequals_ascii(name, "Retry-After")) continue;
    if (const auto wait = parse_retry_after(value)) return std::min(*wait, cap);
    break;
  }
  const int doublings = std::clamp(attempt - 1, 0, 16);
  const milliseconds base{kFirstBackoff.count() << doublings};
  std::int64_t spread = 0;
  {
    const std::lock_guard lock(gate_mutex_);
    spread = jitter_.between(0, base.count());
  }
  // Half the step plus up to a whole step at random, so clients that failed together spread out.
  return std::min(base / 2 + milliseconds(spread), cap);
}

std::unique_ptr<Connection> Client::Impl::connect_to(const Target& target) {
  auto conn = std::make_unique<Connection>();
  conn->where = target;
  if (target.tls) {
    auto tls = std::make_unique<httplib::SSLClient>(target.host, target.port);
    tls->enable_server_certificate_verification(!options_.insecure);
    if (options_.cacert)
      conn->ca_bundle_failed = !add_ca_bundle(tls->ssl_context(), options_.cacert->string());
    conn->tls = tls.get();
    conn->http = std::move(tls);
  } else {
    conn->http = std::make_unique<httplib::ClientImpl>(target.host, target.port);
  }
  auto& http = *conn->http;
  http.set_keep_alive(true);
  http.set_follow_location(false);
  http.set_url_encode(false);
  http.set_decompress(false);  // the suite judges the bytes the server sent
  http.set_tcp_nodelay(true);
  const auto split = [](milliseconds ms) {
    return std::pair{static_cast<time_t>(ms.count() / 1000), static_cast<time_t>(ms.count() % 1000 * 1000)};
  };
  const auto connect = split(std::max(options_.connect_timeout, milliseconds(1)));
  http.set_connection_timeout(connect.first, connect.second);
  // One second past ours, so the watchdog always decides and names the timeout.
  const auto read = split(std::max(options_.read_timeout, milliseconds(1)) + milliseconds(1000));
  http.set_read_timeout(read.first, read.second);
  const auto write = split(std::max(options_.read_timeout, milliseconds(1)));
  http.set_write_timeout(write.first, write.second);
  http.set_socket_options([this, raw = conn.get()](socket_t sock) { on_socket(*raw, sock); });
  return conn;
}

std::unique_ptr<Connection> Client::Impl::checkout(const Target& target) {
  for (;;) {
    std::unique_ptr<Connection> conn;
    {
      const std::lock_guard lock(pool_mutex_);
      auto found = idle_.find(target.origin);
      if (found == idle_.end() || found->second.empty()) break;
      conn = std::move(found->second.back());
      found->second.pop_back();
    }
    // Bytes waiting on an idle connection (a body sent with a HEAD answer, more than Content-Length)
    // would be read as the next answer; cpp-httplib takes such a socket for alive, so drop it here.
    int pending = 0;
    {
      const std::lock_guard lock(watch_mutex_);
      if (conn->fd >= 0 && ::ioctl(conn->fd, FIONREAD, &pending) != 0) pending = 0;
    }
    if (pending == 0) return conn;
  }
  return connect_to(target);
}

void Client::Impl::give_back(std::unique_ptr<Connection> conn) {
  const std::lock_guard lock(pool_mutex_);
  auto& list = idle_[conn->where.origin];
  if (list.size() < kIdlePerOrigin) list.push_back(std::move(conn));
}

void Client::Impl::on_socket(Connection& conn, int sock) {
  // Bounds what the kernel holds unread, which the watchdog must allow on top of what was read.
  detail::bound_receive_buffer(sock);
  const int copy = ::fcntl(sock, F_DUPFD_CLOEXEC, 0);
  const std::lock_guard lock(watch_mutex_);
  if (conn.fd >= 0) ::close(conn.fd);
  conn.fd = copy;
  ++conn.generation;
  conn.opened = true;
  conn.wire_base = 0;
}

bool Client::Impl::begin_watch(Connection& conn) {
  const auto now = Clock::now();
  bool had_socket = false;
  {
    const std::lock_guard lock(watch_mutex_);
    conn.cut = Cut::none;
    conn.cut_reason = Cut::timeout;
    conn.cut_at = now + std::max(options_.read_timeout, milliseconds(1));
    if (run_deadline_ && *run_deadline_ < conn.cut_at) {
      conn.cut_at = *run_deadline_;
      conn.cut_reason = Cut::deadline;
    }
    conn.opened = false;
    conn.headers_done = false;
    conn.wire_base = conn.fd >= 0 ? bytes_received(conn.fd).value_or(0) : 0;
    had_socket = conn.fd >= 0;
    in_flight_.push_back(&conn);
  }
  watch_cv_.notify_all();
  return had_socket;
}

WatchEnd Client::Impl::end_watch(Connection& conn) {
  const std::lock_guard lock(watch_mutex_);
  std::erase(in_flight_, &conn);
  WatchEnd end{conn.cut, conn.opened, conn.headers_done, 0};
  if (conn.fd >= 0) {
    const auto now = bytes_received(conn.fd).value_or(conn.wire_base);
    end.received = now >= conn.wire_base ? now - conn.wire_base : 0;
  }
  return end;
}

void Client::Impl::watch() {
  std::unique_lock lock(watch_mutex_);
  while (!stopping_) {
    if (in_flight_.empty()) {
      watch_cv_.wait(lock);
      continue;
    }
    const auto now = Clock::now();
    bool reading_head = false;
    for (Connection* conn : in_flight_) {
      inspect(*conn, now);
      reading_head = reading_head || !conn->headers_done;
    }
    watch_cv_.wait_for(lock, reading_head ? kHeadWatchInterval : kWatchInterval);
  }
}

// Called with the watch mutex held.
void Client::Impl::inspect(Connection& conn, Clock::time_point now) {
  if (conn.cut == Cut::none) {
    if (now >= conn.cut_at) {
      conn.cut = conn.cut_reason;
    } else if (conn.fd >= 0) {
      const auto received = bytes_received(conn.fd);
      // Unread bytes in the socket buffer count too, so the buffer's size is allowed on top.
      const std::uint64_t allowed = saturating_add(
          conn.headers_done ? saturating_add(saturating_add(options_.max_body_bytes, options_.max_body_bytes),
                                             kHeaderAllowance)
                            : kHeaderAllowance,
          receive_buffer(conn.fd));
      if (received && *received >= conn.wire_base && *received - conn.wire_base > allowed)
        conn.cut = Cut::too_big;
    }
  }
  // A cut attempt may still open a new socket (the next address of the host): cut that one too.
  if (conn.cut != Cut::none && conn.fd >= 0 && conn.cut_generation != conn.generation) {
    abort_socket(conn.fd);
    conn.cut_generation = conn.generation;
  }
}

std::string Client::Impl::failure_text(httplib::Error error, int saved_errno, const WatchEnd& end,
                                       const Connection& conn, const std::string& url, bool chunked) const {
  const std::string& origin = conn.where.origin;
  // cpp-httplib resolves the name before it creates a socket, and leaves the error unset or reports
  // Connection when resolution fails: no socket means the name did not resolve.
  if (!end.opened && (error == httplib::Error::Connection || error == httplib::Error::Success ||
                      error == httplib::Error::Unknown)) {
    return "could not resolve host '" + conn.where.host + "' (" + origin + ")";
  }
  // After a failed read cpp-httplib calls shutdown(), which fails with ENOTCONN only on a reset socket.
  const bool reset = saved_errno == ECONNRESET || saved_errno == ENOTCONN;
  // The kernel counts the peer's FIN as one byte received.
  const bool answered = end.received > 1;
  switch (error) {
    case httplib::Error::Connection:
      if (saved_errno == ENETUNREACH || saved_errno == EHOSTUNREACH) return "host unreachable: " + origin;
      if (saved_errno == ECONNREFUSED) return "connection refused to " + origin;
      // The asynchronous connect's own error was consumed inside cpp-httplib; a refusal is by far the
      // likeliest, an ICMP unreachable the other possibility.
      return "connection refused to " + origin + " (or the host is unreachable)";
    case httplib::Error::ConnectionTimeout:
      return "connect timed out after " + ms_text(options_.connect_timeout) + " to " + origin;
    case httplib::Error::Read:
      if (reset) return "connection reset by peer while reading " + url;
      if (!answered) return "the server closed the connection without answering " + url;
      // cpp-httplib fails a chunk-size line that is not hex as it fails a close mid-body; the framing
      // is the likelier cause when there is one.
      if (end.headers_done && chunked)
        return "the chunked body of " + url +
               " could not be read: a chunk size that is not hexadecimal, or the connection closed mid-body";
      if (end.headers_done) return "the connection closed before the body of " + url + " was complete";
      return "not a valid HTTP response from " + url;
    case httplib::Error::Write:
      if (reset) return "connection reset by peer while sending the request to " + url;
      return "could not send the request to " + url + " (the connection closed)";
    case httplib::Error::SSLConnection:
      if (!answered) return "TLS handshake failed with " + origin + ": the server closed the connection";
      return "TLS handshake failed with " + origin +
             ": the answer is not a TLS handshake (a plain-HTTP port?)";
    case httplib::Error::SSLServerVerification: {
      const long code = conn.tls != nullptr ? conn.tls->get_openssl_verify_result() : X509_V_OK;
      if (code != X509_V_OK) {
        return "TLS handshake failed: certificate verify failed (" + verify_text(code) + ") for " + origin;
      }
      return "TLS handshake failed: the certificate of " + origin + " is not valid for host '" +
             conn.where.host + "'";
    }
    case httplib::Error::SSLLoadingCerts:
      return "could not load the CA bundle " + for_message(options_.cacert ? options_.cacert->string() : "");
    default:
      return "the request to " + url + " failed: " + httplib::to_string(error);
  }
}

Outcome Client::Impl::send_once(std::string_view method, const Target& target) {
  Outcome out;
  const std::string url = target.origin + target.path_and_query;
  auto conn = checkout(target);
  if (!conn->http->is_valid()) {
    out.error = "TLS is not available: cpp-httplib could not create an OpenSSL context";
    return out;
  }
  if (conn->ca_bundle_failed) {
    out.error = "could not load the CA bundle " + for_message(options_.cacert->string()) + "; not sent";
    return out;
  }
  httplib::Request req;
  req.method = std::string(method);
  req.path = target.path_and_query;
  if (target.origin == base_.origin) {
    for (const auto& [name, value] : options_.headers)
      req.headers.emplace(name, value);
  }
  if (!req.has_header("User-Agent")) req.headers.emplace("User-Agent", std::string(kUserAgent));
  const std::size_t cap = options_.max_body_bytes;
  req.response_handler = [this, raw = conn.get(), &out, cap](const httplib::Response& head) {
    // One allocation for a body of announced length instead of a doubling series of copies; never
    // more than the cap, whatever the header claims. The padding lets simdjson parse it in place
    // instead of copying it.
    const std::string length = head.get_header_value("Content-Length");
    std::uint64_t announced = 0;
    if (std::from_chars(length.data(), length.data() + length.size(), announced).ec == std::errc{})
      out.body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(announced, cap)) + kParsePadding);
    const std::lock_guard lock(watch_mutex_);
    raw->headers_done = true;
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

  const bool had_socket = begin_watch(*conn);
  httplib::Response res;
  auto error = httplib::Error::Success;
  bool ok = false;
  int saved_errno = 0;
  try {
    // On a thread with a big stack: cpp-httplib's status-line regex recurses once per character.
    detail::run_on_big_stack([&] {
      const SigpipeGuard guard;
      errno = 0;
      ok = conn->http->send(req, res, error);
      saved_errno = errno;
    });
  } catch (const std::exception& e) {
    out.body.clear();
    out.truncated = false;
    out.error = std::string("the HTTP library failed on the answer from ") + url + ": " + e.what();
  }
  const WatchEnd end = end_watch(*conn);

  if (ok && end.cut == Cut::none && res.reason.size() > kMaxStatusLine) {
    out.body.clear();
    out.truncated = false;
    out.error = "the status line from " + url + " is over " + std::to_string(kMaxStatusLine) + " bytes";
    return out;
  }
  if (ok && end.cut == Cut::none) {
    out.status = res.status;
    out.headers = copy_headers(res.headers);
    if (method == "HEAD") {
      // cpp-httplib reads nothing after a HEAD answer's headers; a body the server sent anyway waits in
      // the socket. Give it a moment to arrive, then count it (the connection is not reused then).
      int fd = -1;
      {
        const std::lock_guard lock(watch_mutex_);  // the connection is ours; its fd changes only on reconnect
        fd = conn->fd;
      }
      pollfd wait{fd, POLLIN, 0};
      int pending = 0;
      if (fd >= 0 && ::poll(&wait, 1, kHeadBodyGraceMs) > 0 && ::ioctl(fd, FIONREAD, &pending) == 0 &&
          pending > 0)
        out.after_head = static_cast<std::size_t>(pending);
    }
    give_back(std::move(conn));
    return out;
  }
  if (!out.error.empty()) return out;
  const bool body_cut =
      end.cut == Cut::too_big ? end.headers_done : (error == httplib::Error::Canceled && out.truncated);
  if (body_cut) {
    out.status = res.status;
    out.headers = copy_headers(res.headers);
    out.truncated = true;
    out.error = "response body over " + std::to_string(cap) + " bytes, cut: " + url;
    return out;
  }
  out.body.clear();
  out.truncated = false;
  switch (end.cut) {
    case Cut::timeout:
      out.error = "timed out after " + ms_text(options_.read_timeout) + " reading " + url;
      break;
    case Cut::deadline:
      out.error = "the run deadline of " + ms_text(options_.deadline) + " was reached while reading " + url;
      break;
    case Cut::too_big:
      out.error = "response headers over " + std::to_string(kHeaderAllowance) + " bytes, cut: " + url;
      break;
    case Cut::none:
      out.error =
          failure_text(error, saved_errno, end, *conn, url,
                       res.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos);
      // A keep-alive connection the server closed while idle fails before any byte comes back; the
      // request never reached the server, so sending it again on a new connection is safe.
      out.stale = had_socket && !end.opened && end.received <= 1 &&
                  (error == httplib::Error::Read || error == httplib::Error::Write);
      break;
  }
  return out;
}

HttpExchange Client::Impl::request(std::string_view method, std::string_view url_or_path) {
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
    return finish();
  }
  std::string why;
  const auto target = resolve(url_or_path, why);
  ex.url = target ? target->origin + target->path_and_query : std::string(url_or_path);
  if (!why.empty()) {
    ex.attempts = 0;
    ex.error = why;
    return finish();
  }
  bool resent_stale = false;
  int attempt = 0;
  for (;;) {
    if (auto refusal = admit()) {
      if (attempt == 0) {
        ex.attempts = 0;
        ex.error = std::move(*refusal);
      }
      break;  // otherwise the last answer (a 429 or 503) stands
    }
    ++attempt;
    Outcome outcome = send_once(method, *target);
    ex.status = outcome.status;
    ex.headers = std::move(outcome.headers);
    ex.body = std::move(outcome.body);
    ex.body_truncated = outcome.truncated;
    ex.bytes_after_head = outcome.after_head;
    ex.error = std::move(outcome.error);
    ex.attempts = attempt;
    if (outcome.stale && !resent_stale) {
      resent_stale = true;
      --attempt;
      continue;
    }
    if ((ex.status != 429 && ex.status != 503) || !ex.error.empty() || attempt > options_.retries) break;
    const auto wait = retry_wait(ex.headers, attempt);
    if (run_deadline_ && Clock::now() + wait >= *run_deadline_) break;
    std::this_thread::sleep_for(wait);
  }
  return finish();
}

Client::Client(ClientOptions options)
    : on_answer_(options.on_answer), impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;

HttpExchange Client::request(std::string_view method, std::string_view url_or_path) {
  HttpExchange exchange = impl_->request(method, url_or_path);
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

}  // namespace entimg::contract

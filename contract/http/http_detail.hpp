#pragma once
// Private helpers of the HTTP client (http.cpp): URL handling and texts in http_url.cpp, what works
// on sockets, signals, TLS contexts and threads in http_socket.cpp.
#include <csignal>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/ssl.h>

namespace entimg::contract::detail {

/// Where one request goes, taken apart and normalised.
struct Target {
  bool tls = false;
  std::string host;  ///< lower-case, IPv6 without brackets
  int port = 0;
  std::string origin;
  std::string path_and_query;  ///< starts with '/', fragment dropped
  bool has_userinfo = false;
};

/// An absolute http(s) URL taken apart; nullopt when it is not one.
std::optional<Target> parse_url(std::string_view url);

/// "250 ms": a duration of the options, for a message.
std::string ms_text(std::chrono::milliseconds ms);

/// Text from a URL or option quoted for a message: unsendable bytes encoded, long text shortened.
std::string for_message(std::string_view text);

/// OpenSSL's verify result as a phrase a person recognises.
std::string verify_text(long code);

/// Seconds or an HTTP-date (RFC 9110 §10.2.3), as a wait from now; nullopt when it is neither.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

/// Receive buffer asked of every socket; Linux doubles it for its own bookkeeping.
constexpr int kReceiveBuffer = 256 * 1024;

/// Stack of the threads that run cpp-httplib: a reservation of address space, touched only as used.
constexpr std::size_t kBigStack = std::size_t{1} << 30;

/// Reads cumulative bytes received on a TCP socket, including what still waits unread in its buffer.
std::optional<std::uint64_t> bytes_received(int fd);

/// What a TCP socket has received so far, as the kernel counts it.
struct TcpCounters {
  std::uint64_t bytes = 0;          ///< data bytes taken in (the peer's FIN counts as one)
  std::uint32_t data_segments = 0;  ///< segments that carried data, those the kernel then dropped included
};
std::optional<TcpCounters> tcp_counters(int fd);

/// What came on a HEAD answer's connection after its headers.
struct AfterHead {
  std::size_t bytes = 0;             ///< waiting unread in the socket
  std::size_t dropped_segments = 0;  ///< data segments that came after the socket was shut and were dropped
};
/// Waits up to `grace` for bytes after a HEAD answer's headers (less once the peer closed). `since` are the
/// socket's counters when the request went out: a reset with more data segments than the bytes taken in
/// need means data came after cpp-httplib shut the socket down (on Connection: close), which the kernel
/// answers with a reset and drops.
AfterHead watch_after_head(int fd, TcpCounters since, std::chrono::milliseconds grace);

/// The socket's receive buffer as the kernel reports it (twice what was asked).
std::uint64_t receive_buffer(int fd);

/// Caps the receive buffer at kReceiveBuffer; call before connect, so the window scale follows.
void bound_receive_buffer(int fd);

/// Makes a reader blocked on fd fail with an error rather than see a clean end of stream.
void abort_socket(int fd);

/// Blocks SIGPIPE in this thread while cpp-httplib writes (it sends without MSG_NOSIGNAL) and swallows
/// one raised meanwhile, so a server closing early cannot kill a program that kept the default action.
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

/// Adds a PEM bundle to the CAs an SSL_CTX trusts; false when it cannot be loaded.
bool add_ca_bundle(SSL_CTX* ctx, const std::string& path);

/// Runs task on a pooled thread with a kBigStack stack and waits for it; rethrows what it throws.
/// cpp-httplib matches the status line with a std::regex that libstdc++ runs recursively, about
/// 320 bytes of stack per character: a long line would overflow an ordinary 8 MiB stack.
void run_on_big_stack(const std::function<void()>& task);

}  // namespace entimg::contract::detail

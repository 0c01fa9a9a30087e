#pragma once
// The plain-HTTP client of a pooled connection: cpp-httplib's ClientImpl with its own socket stream, which
// reads a response body in large blocks instead of cpp-httplib's 4 KiB, and never past the body's end.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>

namespace entimg::contract::detail {

/// The most one read of a body takes from the socket: about what curl asks for.
inline constexpr std::size_t kBulkRead = 128 * 1024;

/// cpp-httplib's ClientImpl whose stream takes a body from the socket kBulkRead bytes at a time where
/// cpp-httplib's own stream (which Debian's shared library fixes at 4 KiB) makes two system calls per 4 KiB.
/// Until expect_body() it reads exactly as cpp-httplib's stream does, so what a response's head leaves
/// unread in the socket stays there; after it, it reads ahead only within the bytes the body will take.
class BulkReadClient final : public httplib::ClientImpl {
 public:
  BulkReadClient(const std::string& host, int port);
  ~BulkReadClient() override;
  BulkReadClient(const BulkReadClient&) = delete;
  BulkReadClient& operator=(const BulkReadClient&) = delete;

  /// The head is read and cpp-httplib reads `bytes` of body next; the socket may be read ahead that far.
  void expect_body(std::uint64_t bytes);
  /// A head (status line and headers) longer than `bytes` fails the read that passes it, after `on_over()`:
  /// counted as cpp-httplib takes it, so no status line or header line past it ever reaches cpp-httplib's
  /// parser, and no thread has to watch the head being read.
  void limit_head(std::uint64_t bytes, std::function<void()> on_over);
  /// recv() calls made so far (for tests).
  std::size_t socket_reads() const { return socket_reads_; }
  /// The value of the last answer's first header of that name as it came on the wire (its first 16 KiB of
  /// head looked at), nullopt without one. cpp-httplib percent-decodes Location, so "%3F" in a redirect's
  /// path would become a '?' that starts a query: a redirect is followed by the bytes the server sent.
  std::optional<std::string> raw_header(std::string_view name) const;

  class BodyStream;

 private:
  bool process_socket(const Socket& socket, std::function<bool(httplib::Stream& strm)> callback) override;

  std::unique_ptr<char[]> buffer_;  ///< kBulkRead bytes, taken on the first request
  BodyStream* current_ = nullptr;   ///< the stream of the request in progress
  std::size_t socket_reads_ = 0;
  std::uint64_t head_limit_ = UINT64_MAX;
  std::string head_text_;  ///< the last answer's head as read (and what came with it), up to kHeadKept
  std::function<void()> on_head_over_;
};

/// How many bytes of body cpp-httplib 0.11 reads after `head`, by its own rules (the first Content-Length
/// as strtoull reads it; none when chunked; to the end of the connection without a length), at most `cap`.
/// Call it only where cpp-httplib calls the response handler: not for HEAD or a 204.
std::uint64_t body_bytes_expected(const httplib::Response& head, std::uint64_t cap);

}  // namespace entimg::contract::detail

#include "http_bulk.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace entimg::contract::detail {
namespace {

// cpp-httplib's SocketStream buffer: what it reads at once for a read smaller than that.
constexpr std::size_t kLineRead = 4096;
// The bytes of a head kept for raw_header.
constexpr std::size_t kHeadKept = 16384;

int poll_ms(time_t sec, time_t usec) {
  return static_cast<int>(sec * 1000 + usec / 1000);
}

// poll() for one event, retried on EINTR as cpp-httplib does.
int wait_for(int fd, short events, int timeout_ms) {
  pollfd one{fd, events, 0};
  int n = 0;
  do {
    n = ::poll(&one, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n;
}

ssize_t receive(int fd, char* into, std::size_t size, int flags) {
  ssize_t n = 0;
  do {
    n = ::recv(fd, into, size, flags);
  } while (n < 0 && errno == EINTR);
  return n;
}

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  auto length = static_cast<socklen_t>(sizeof addr);
  auto* raw = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(fd, raw, &length) : ::getsockname(fd, raw, &length)) != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

}  // namespace

/// One request's view of the socket; the buffer is the client's, kept from request to request.
class BulkReadClient::BodyStream final : public httplib::Stream {
 public:
  BodyStream(BulkReadClient& client, int fd, int read_ms, int write_ms)
      : client_(client), fd_(fd), read_ms_(read_ms), write_ms_(write_ms) {}

  void expect_body(std::uint64_t bytes) {
    const std::size_t held = end_ - begin_;
    ahead_ = bytes > held ? bytes - held : 0;
    in_body_ = true;
  }

  bool is_readable() const override { return begin_ < end_ || wait_for(fd_, POLLIN, read_ms_) > 0; }

  // As cpp-httplib's SocketStream: ready for POLLOUT, and a peek does not find the peer gone.
  bool is_writable() const override {
    if (wait_for(fd_, POLLOUT, write_ms_) <= 0) return false;
    const int ready = wait_for(fd_, POLLIN, 0);
    if (ready == 0) return true;
    if (ready < 0 && errno == EBADF) return false;
    char byte = 0;
    return receive(fd_, &byte, 1, MSG_PEEK) > 0;
  }

  ssize_t read(char* ptr, std::size_t size) override {
    const ssize_t n = next(ptr, size);
    if (in_body_ || n <= 0) return n;
    std::string& kept = client_.head_text_;
    if (kept.size() < kHeadKept)
      kept.append(ptr, std::min(static_cast<std::size_t>(n), kHeadKept - kept.size()));
    head_bytes_ += static_cast<std::uint64_t>(n);
    if (head_bytes_ <= client_.head_limit_) return n;
    if (!head_over_ && client_.on_head_over_) client_.on_head_over_();
    head_over_ = true;
    return -1;
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n = 0;
    do {
      n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, false, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  // The next bytes for cpp-httplib, from the buffer or the socket.
  ssize_t next(char* ptr, std::size_t size) {
    if (begin_ < end_) return take(ptr, size);
    begin_ = end_ = 0;
    char* const buffer = client_.buffer_.get();
    if (ahead_ > 0) {
      const ssize_t n = fill(buffer, static_cast<std::size_t>(std::min<std::uint64_t>(ahead_, kBulkRead)));
      if (n <= 0) return n;
      ahead_ -= static_cast<std::uint64_t>(n);
      end_ = static_cast<std::size_t>(n);
      return take(ptr, size);
    }
    // No body announced: exactly cpp-httplib's reads, so nothing is taken from the socket that it would
    // have left there.
    if (size >= kLineRead) return fill(ptr, size);
    const ssize_t n = fill(buffer, kLineRead);
    if (n <= 0) return n;
    end_ = static_cast<std::size_t>(n);
    return take(ptr, size);
  }

  ssize_t take(char* ptr, std::size_t size) {
    const std::size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, client_.buffer_.get() + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  // One recv of up to `size` bytes, waiting up to the read timeout when none are there yet; -1 on a timeout.
  ssize_t fill(char* into, std::size_t size) {
    ++client_.socket_reads_;
    ssize_t n = receive(fd_, into, size, MSG_DONTWAIT);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    if (wait_for(fd_, POLLIN, read_ms_) <= 0) return -1;
    ++client_.socket_reads_;
    return receive(fd_, into, size, 0);
  }

  BulkReadClient& client_;
  int fd_;
  int read_ms_;
  int write_ms_;
  std::size_t begin_ = 0;  ///< unread bytes of the client's buffer: [begin_, end_)
  std::size_t end_ = 0;
  std::uint64_t ahead_ = 0;  ///< body bytes still in the socket that may be read ahead
  bool in_body_ = false;     ///< expect_body() was called: the head is read
  std::uint64_t head_bytes_ = 0;
  bool head_over_ = false;
};

BulkReadClient::BulkReadClient(const std::string& host, int port) : httplib::ClientImpl(host, port) {}
BulkReadClient::~BulkReadClient() = default;

void BulkReadClient::expect_body(std::uint64_t bytes) {
  if (current_ != nullptr) current_->expect_body(bytes);
}

void BulkReadClient::limit_head(std::uint64_t bytes, std::function<void()> on_over) {
  head_limit_ = bytes;
  on_head_over_ = std::move(on_over);
}

bool BulkReadClient::process_socket(const Socket& socket,
                                    std::function<bool(httplib::Stream& strm)> callback) {
  if (!buffer_) buffer_ = std::make_unique<char[]>(kBulkRead);
  head_text_.clear();
  BodyStream stream(*this, socket.sock, poll_ms(read_timeout_sec_, read_timeout_usec_),
                    poll_ms(write_timeout_sec_, write_timeout_usec_));
  current_ = &stream;
  struct Forget {
    BodyStream*& current;
    ~Forget() { current = nullptr; }
  } forget{current_};
  return callback(stream);
}

std::optional<std::string> BulkReadClient::raw_header(std::string_view name) const {
  const std::string_view head = std::string_view(head_text_).substr(0, head_text_.find("\r\n\r\n"));
  std::size_t at = head.find("\r\n");  // past the status line
  while (at != std::string_view::npos) {
    const std::size_t start = at + 2;
    at = head.find("\r\n", start);
    const std::string_view line =
        head.substr(start, at == std::string_view::npos ? head.size() - start : at - start);
    if (line.size() > name.size() && line[name.size()] == ':' &&
        ::strncasecmp(line.data(), name.data(), name.size()) == 0) {
      std::string_view value = line.substr(name.size() + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      return std::string(value);
    }
  }
  return std::nullopt;
}

std::uint64_t body_bytes_expected(const httplib::Response& head, std::uint64_t cap) {
  if (::strcasecmp(head.get_header_value("Transfer-Encoding").c_str(), "chunked") == 0) return 0;
  if (!head.has_header("Content-Length")) return cap;
  const std::string length = head.get_header_value("Content-Length");
  return std::min<std::uint64_t>(std::strtoull(length.c_str(), nullptr, 10), cap);
}

}  // namespace entimg::contract::detail

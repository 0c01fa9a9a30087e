#include "monitor_server.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace entimg::contract::detail {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kListen = 0, kStop = 1;

struct Connection {
  int fd = -1;
  std::string in, out;
  std::size_t sent = 0;
  bool answering = false;
  Clock::time_point deadline;
  Clock::time_point last_read;  // accepted, or its last byte came: the one with the oldest is idle longest
};

std::string_view reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string response(const MonitorAnswer& answer, bool head, std::string_view extra_headers = {}) {
  std::string out = "HTTP/1.1 " + std::to_string(answer.status) + " " + std::string(reason(answer.status)) +
                    "\r\nContent-Type: " + answer.content_type +
                    "\r\nContent-Length: " + std::to_string(answer.body.size()) + "\r\n" +
                    std::string(extra_headers) + "Connection: close\r\n\r\n";
  if (!head) out += answer.body;
  return out;
}

MonitorAnswer plain(int status, std::string text) {
  return {status, "text/plain; charset=utf-8", std::move(text)};
}

}  // namespace

struct MonitorServer::State {
  MonitorServerOptions options;
  Route route;
  int listen_fd = -1, epoll_fd = -1, stop_fd = -1;
  std::unordered_map<std::uint64_t, Connection> connections;  // by epoll id (the descriptor + 2)

  void accept_all();
  void serve(std::uint64_t id, std::uint32_t events);
  void close_connection(std::uint64_t id);
  bool evict_idle();
  void answer(Connection& c);
  bool flush(Connection& c);
  int next_timeout_ms() const;
  void expire();
};

void MonitorServer::State::close_connection(std::uint64_t id) {
  const auto it = connections.find(id);
  if (it == connections.end()) return;
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, it->second.fd, nullptr);
  close(it->second.fd);
  connections.erase(it);
}

// Closes the connection idle longest among those whose request is not whole yet, as nginx closes idle
// keep-alive connections when it runs out of them; false when every connection is being answered.
bool MonitorServer::State::evict_idle() {
  std::uint64_t oldest = 0;
  Clock::time_point since = Clock::time_point::max();
  for (const auto& [id, c] : connections)
    if (!c.answering && c.last_read < since) {
      oldest = id;
      since = c.last_read;
    }
  if (since == Clock::time_point::max()) return false;
  close_connection(oldest);
  return true;
}

void MonitorServer::State::accept_all() {
  for (;;) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or out of descriptors: the rest wait in the queue
    }
    if (connections.size() >= options.max_connections && !evict_idle()) {
      const std::string busy = response(plain(503, "too many connections\n"), false);
      (void)!send(fd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close(fd);
      continue;
    }
    const std::uint64_t id = static_cast<std::uint64_t>(fd) + 2;
    Connection& c = connections[id];
    c.fd = fd;
    c.last_read = Clock::now();
    c.deadline = c.last_read + options.head_timeout;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = id;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }
}

void MonitorServer::State::answer(Connection& c) {
  const std::size_t head_end = c.in.find("\r\n\r\n");
  const std::string_view line = std::string_view(c.in).substr(0, c.in.find("\r\n"));
  const std::size_t space = line.find(' ');
  const std::size_t second = space == std::string_view::npos ? space : line.find(' ', space + 1);
  std::string out;
  if (head_end == std::string::npos) {
    out = response(plain(431, "request head larger than " + std::to_string(options.max_head) + " bytes\n"),
                   false);
  } else if (second == std::string_view::npos) {
    out = response(plain(400, "not an HTTP request line\n"), false);
  } else {
    const std::string_view method = line.substr(0, space);
    std::string_view path = line.substr(space + 1, second - space - 1);
    path = path.substr(0, path.find('?'));
    if (method != "GET" && method != "HEAD")
      out = response(plain(405, "GET or HEAD\n"), false, "Allow: GET, HEAD\r\n");
    else
      out = response(route(path), method == "HEAD");
  }
  c.out = std::move(out);
  c.sent = 0;
  c.answering = true;
  c.deadline = Clock::now() + options.send_timeout;
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = static_cast<std::uint64_t>(c.fd) + 2;
  epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
}

// Writes what the socket takes; true when all of it is sent.
bool MonitorServer::State::flush(Connection& c) {
  while (c.sent < c.out.size()) {
    const ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.sent += static_cast<std::size_t>(n);
      c.deadline = Clock::now() + options.send_timeout;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    c.sent = c.out.size();  // the client is gone: nothing more to send
  }
  return true;
}

void MonitorServer::State::serve(std::uint64_t id, std::uint32_t events) {
  const auto it = connections.find(id);
  if (it == connections.end()) return;
  Connection& c = it->second;
  if (!c.answering) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = recv(c.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        c.in.append(buffer, static_cast<std::size_t>(n));
        c.last_read = Clock::now();
        if (c.in.find("\r\n\r\n") != std::string::npos || c.in.size() > options.max_head) break;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      return close_connection(id);  // closed before its request was whole, or an error
    }
    if (c.in.find("\r\n\r\n") == std::string::npos && c.in.size() <= options.max_head) {
      if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) return close_connection(id);
      return;  // more to come, before the deadline
    }
    answer(c);
  }
  if (flush(c)) close_connection(id);
}

int MonitorServer::State::next_timeout_ms() const {
  if (connections.empty()) return -1;
  Clock::time_point first = Clock::time_point::max();
  for (const auto& [id, c] : connections)
    first = std::min(first, c.deadline);
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(first - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(wait + 1, 0, 60'000));
}

void MonitorServer::State::expire() {
  const Clock::time_point now = Clock::now();
  std::vector<std::uint64_t> late;
  for (const auto& [id, c] : connections)
    if (c.deadline <= now) late.push_back(id);
  for (const std::uint64_t id : late)
    close_connection(id);
}

MonitorServer::MonitorServer(MonitorServerOptions options, Route route) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->route = std::move(route);
}

MonitorServer::~MonitorServer() {
  State& s = *state_;
  for (const auto& [id, c] : s.connections)
    close(c.fd);
  for (const int fd : {s.listen_fd, s.epoll_fd, s.stop_fd})
    if (fd >= 0) close(fd);
}

int MonitorServer::bind() {
  State& s = *state_;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(s.options.host.c_str(), std::to_string(s.options.port).c_str(), &hints, &found) != 0)
    return -1;
  for (addrinfo* a = found; a != nullptr && s.listen_fd < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR for quick restarts; never SO_REUSEPORT, which would let a second monitor share the port.
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
      s.listen_fd = fd;
    else
      close(fd);
  }
  freeaddrinfo(found);
  if (s.listen_fd < 0) return -1;
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  getsockname(s.listen_fd, reinterpret_cast<sockaddr*>(&bound), &size);
  s.options.port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  s.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (s.stop_fd < 0) s.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s.epoll_fd < 0 || s.stop_fd < 0) return -1;
  for (const auto& [fd, id] : {std::pair{s.listen_fd, kListen}, std::pair{s.stop_fd, kStop}}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }
  return s.options.port;
}

void MonitorServer::run() {
  State& s = *state_;
  if (s.epoll_fd < 0) return;
  epoll_event events[64];
  for (;;) {
    const int n = epoll_wait(s.epoll_fd, events, 64, s.next_timeout_ms());
    if (n < 0 && errno != EINTR) return;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t id = events[i].data.u64;
      if (id == kStop) return;
      if (id == kListen)
        s.accept_all();
      else
        s.serve(id, events[i].events);
    }
    s.expire();
  }
}

void MonitorServer::stop() {
  State& s = *state_;
  if (s.stop_fd < 0) s.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  const std::uint64_t one = 1;
  (void)!write(s.stop_fd, &one, sizeof one);
}

}  // namespace entimg::contract::detail

#include "raw_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace entimg::broken {

struct RawServer::State {
  Script script;
  int listener = -1;
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> accepted{0};
  std::mutex mutex;
  std::condition_variable wake;
  std::set<int> open;
  std::vector<std::thread> workers;
  std::thread acceptor;
};

namespace {

// Reads up to the blank line that ends a request head; "" when the peer sent none in time.
std::string read_head(int fd, const std::atomic<bool>& stopping) {
  std::string head;
  char buf[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!stopping && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return "";
    head.append(buf, static_cast<std::size_t>(n));
    if (const std::size_t end = head.find("\r\n\r\n"); end != std::string::npos)
      return head.substr(0, end + 4);
    if (head.size() > 65536) return "";
  }
  return "";
}

}  // namespace

std::string_view RawServer::Connection::method() const {
  const std::string_view head = head_;
  return head.substr(0, head.find(' '));
}

std::string_view RawServer::Connection::target() const {
  const std::string_view head = head_;
  const std::size_t start = head.find(' ');
  if (start == std::string_view::npos) return {};
  const std::size_t end = head.find(' ', start + 1);
  return head.substr(start + 1, end == std::string_view::npos ? std::string_view::npos : end - start - 1);
}

bool RawServer::Connection::send(std::string_view bytes) {
  while (!bytes.empty()) {
    if (server_.state_->stopping || reset_) return false;
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RawServer::Connection::pause(std::chrono::milliseconds duration) {
  State& s = *server_.state_;
  std::unique_lock lock(s.mutex);
  return !s.wake.wait_for(lock, duration, [&] { return s.stopping.load(); });
}

bool RawServer::Connection::next_request() {
  if (reset_) return false;
  head_ = read_head(fd_, server_.state_->stopping);
  return !head_.empty();
}

void RawServer::Connection::reset() {
  linger l{1, 0};  // close() then sends RST instead of FIN
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  reset_ = true;
}

RawServer::RawServer(Script script, int port) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.script = std::move(script);
  s.listener = socket(AF_INET, SOCK_STREAM, 0);
  if (s.listener < 0) throw std::runtime_error("raw server: socket() failed");
  int yes = 1;
  setsockopt(s.listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t len = sizeof addr;
  if (::bind(s.listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(s.listener, 64) != 0 || getsockname(s.listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(s.listener);
    throw std::runtime_error("raw server: cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  port_ = ntohs(addr.sin_port);
  s.acceptor = std::thread([this] {
    State& st = *state_;
    while (!st.stopping) {
      pollfd p{st.listener, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int fd = accept(st.listener, nullptr, nullptr);
      if (fd < 0) continue;
      ++st.accepted;
      std::lock_guard lock(st.mutex);
      st.open.insert(fd);
      st.workers.emplace_back([this, fd] {
        State& w = *state_;
        std::string head = read_head(fd, w.stopping);
        bool reset = false;
        if (!head.empty()) {
          Connection connection(*this, fd, std::move(head));
          w.script(connection);
          reset = connection.reset_;
        }
        {
          std::lock_guard guard(w.mutex);
          w.open.erase(fd);
        }
        if (!reset) shutdown(fd, SHUT_WR);
        close(fd);
      });
    }
  });
}

RawServer::~RawServer() {
  stop();
}

std::size_t RawServer::connections() const {
  return state_->accepted;
}

void RawServer::stop() {
  State& s = *state_;
  if (s.stopping.exchange(true)) return;
  s.wake.notify_all();
  if (s.acceptor.joinable()) s.acceptor.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(s.mutex);
    for (const int fd : s.open)
      shutdown(fd, SHUT_RDWR);
    workers.swap(s.workers);
  }
  s.wake.notify_all();
  for (auto& w : workers)
    w.join();
  close(s.listener);
}

std::string http_answer(int status, std::string_view reason, std::string_view content_type,
                        std::string_view body,
                        const std::vector<std::pair<std::string, std::string>>& extra_headers,
                        bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  if (!content_type.empty()) out += "Content-Type: " + std::string(content_type) + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  for (const auto& [k, v] : extra_headers)
    out += k + ": " + v + "\r\n";
  out += "\r\n";
  out.append(body);
  return out;
}

}  // namespace entimg::broken

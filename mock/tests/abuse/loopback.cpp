#include "loopback.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace entimg::mock::abuse {

namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int n = poll(&p, 1, remaining_ms(deadline));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

// The value of a header in a raw head, or "" (case-insensitive name).
std::string header_value(const std::string& head, std::string_view name) {
  std::size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos + 2 < head.size()) {
    const std::size_t start = pos + 2;
    const std::size_t end = head.find("\r\n", start);
    const std::string line = head.substr(start, end - start);
    const std::size_t colon = line.find(':');
    if (colon == name.size() && std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      const std::size_t value = line.find_first_not_of(' ', colon + 1);
      return value == std::string::npos ? "" : line.substr(value);
    }
    pos = end;
  }
  return "";
}

}  // namespace

int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const sockaddr_in a = loopback(port);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  const int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  return fd;
}

bool send_all(int fd, std::string_view data, Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!data.empty()) {
    if (!wait_for(fd, POLLOUT, deadline)) return false;
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

Answer read_answer(int fd, std::string& carry, Millis timeout, bool head_request) {
  const auto deadline = Clock::now() + timeout;
  Answer answer;
  std::size_t need = std::string::npos;  // bytes of head + body, once the head is whole
  for (;;) {
    if (need == std::string::npos) {
      const std::size_t end = carry.find("\r\n\r\n");
      if (end != std::string::npos) {
        answer.head = carry.substr(0, end + 4);
        answer.status = 0;
        if (answer.head.size() > 12) answer.status = std::atoi(answer.head.c_str() + 9);
        const std::string length = header_value(answer.head, "Content-Length");
        const bool interim = answer.status >= 100 && answer.status < 200;
        need = answer.head.size() + (head_request || interim || length.empty() ? 0 : std::stoull(length));
        if (interim) {  // 100 Continue: the answer follows
          carry.erase(0, need);
          need = std::string::npos;
          continue;
        }
      }
    }
    if (need != std::string::npos && carry.size() >= need) {
      answer.body = carry.substr(answer.head.size(), need - answer.head.size());
      carry.erase(0, need);
      return answer;
    }
    if (!wait_for(fd, POLLIN, deadline)) return {};
    char buffer[65536];
    const ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return {};
    carry.append(buffer, static_cast<std::size_t>(n));
  }
}

bool closed_within(int fd, Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (!wait_for(fd, POLLIN, deadline)) return false;
    char buffer[65536];
    const ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

std::size_t established_at(int port) {
  std::size_t count = 0;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const std::size_t colon = local.rfind(':');
      if (colon == std::string::npos || state != "01") continue;
      count += std::stoi(local.substr(colon + 1), nullptr, 16) == port ? 1U : 0U;
    }
  }
  return count;
}

std::string get_request(std::string_view target, bool close, std::string_view extra_headers) {
  std::string r = "GET ";
  r.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n").append(extra_headers);
  if (close) r.append("Connection: close\r\n");
  return r.append("\r\n");
}

std::vector<int> open_many(int port, std::size_t count, std::string_view first) {
  std::vector<int> fds;
  fds.reserve(count);
  const sockaddr_in a = loopback(port);
  constexpr std::size_t kBatch = 256;  // under the listen backlog, so no SYN waits for a retry
  for (std::size_t done = 0; done < count;) {
    std::vector<pollfd> batch;
    for (; done < count && batch.size() < kBatch; ++done) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) return fds;
      if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
        close(fd);
        continue;
      }
      batch.push_back({fd, POLLOUT, 0});
    }
    const auto deadline = Clock::now() + Millis(30000);
    std::size_t waiting = batch.size();
    while (waiting > 0 && poll(batch.data(), batch.size(), remaining_ms(deadline)) > 0) {
      for (auto& p : batch) {
        if (p.fd < 0 || p.revents == 0) continue;
        int error = 0;
        socklen_t size = sizeof error;
        getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &error, &size);
        if (error == 0 && (first.empty() || send_all(p.fd, first))) {
          fds.push_back(p.fd);
        } else {
          close(p.fd);
        }
        p.fd = -p.fd - 1;  // poll skips negative descriptors
        --waiting;
      }
    }
    for (auto& p : batch)
      if (p.fd >= 0) close(p.fd);
  }
  return fds;
}

bool read_one_answer_each(const std::vector<int>& fds, Millis timeout) {
  bool all = true;
  for (const int fd : fds) {
    std::string carry;
    all = read_answer(fd, carry, timeout).status == 200 && all;
  }
  return all;
}

void close_all(std::vector<int>& fds) {
  for (const int fd : fds)
    close(fd);
  fds.clear();
}

double ProbeResult::percentile(double p) const {
  if (ms.empty()) return 0;
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

ProbeResult probe(int port, int count, Millis gap, Millis timeout) {
  ProbeResult result;
  const std::string request = get_request("/edw/api/entities-images/?offset=24", true);
  for (int i = 0; i < count; ++i) {
    const auto started = Clock::now();
    const int fd = connect_to(port);
    std::string carry;
    const bool ok =
        fd >= 0 && send_all(fd, request, timeout) && read_answer(fd, carry, timeout).status == 200;
    if (fd >= 0) close(fd);
    if (ok)
      result.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
    else
      ++result.errors;
    std::this_thread::sleep_for(gap);
  }
  return result;
}

std::size_t rss_kib(pid_t pid) {
  std::ifstream status(pid == 0 ? std::string("/proc/self/status")
                                : "/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  return 0;
}

}  // namespace entimg::mock::abuse

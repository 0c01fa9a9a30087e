#pragma once
// Raw loopback clients for the connection abuse tests and bench/connections.sh: requests go on the wire
// exactly as written, many connections at once, and a fresh client's latency measured while they run.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace entimg::mock::abuse {

using Millis = std::chrono::milliseconds;

/// A blocking connection to 127.0.0.1:port (TCP_NODELAY); -1 when it cannot connect.
int connect_to(int port);
/// Sends all of `data`, waiting at most `timeout`; false when the peer stops taking bytes or resets.
bool send_all(int fd, std::string_view data, Millis timeout = Millis(30000));

struct Answer {
  int status = 0;  ///< 0: no whole answer came (timeout or close)
  std::string head;
  std::string body;
};

/// Reads one answer (head, then a Content-Length body; none after HEAD when `head_request`), keeping
/// bytes that follow it in `carry` for the next call.
Answer read_answer(int fd, std::string& carry, Millis timeout = Millis(30000), bool head_request = false);
/// Whether the peer closes the connection within `timeout` (bytes before the close are dropped).
bool closed_within(int fd, Millis timeout);
/// The TCP connections of this machine in state ESTABLISHED whose local port is `port` (/proc/net/tcp): the
/// server's side of its open connections, which it has not closed, whether or not the client read them.
std::size_t established_at(int port);

/// "GET TARGET HTTP/1.1" with a Host header, kept alive unless `close`.
std::string get_request(std::string_view target, bool close = false, std::string_view extra_headers = "");

/// Opens `count` connections, non-blocking, in batches; each sends `first` once connected (may be empty).
/// Returns the connected descriptors (fewer when the machine runs out).
std::vector<int> open_many(int port, std::size_t count, std::string_view first);
/// Each descriptor reads one whole answer (keep-alive connections that asked a request); false if one did
/// not.
bool read_one_answer_each(const std::vector<int>& fds, Millis timeout);
void close_all(std::vector<int>& fds);

/// A fresh client's requests, one connection each, spaced `gap` apart: latency of each answered one.
struct ProbeResult {
  std::vector<double> ms;
  int errors = 0;
  double percentile(double p) const;
};
ProbeResult probe(int port, int count, Millis gap, Millis timeout = Millis(30000));

/// Resident memory of a process (this one when 0), in KiB, from /proc.
std::size_t rss_kib(pid_t pid = 0);

}  // namespace entimg::mock::abuse

#include "http_watchdog.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <limits>

namespace entimg::contract::detail {
namespace {

using std::chrono::milliseconds;

constexpr auto kWatchInterval = milliseconds(10);
// While a TLS response head is read, so a server sending one without end is cut soon after the allowance
// (a plain-HTTP head is counted by its stream, http_bulk.hpp).
constexpr auto kHeadWatchInterval = milliseconds(1);

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}

}  // namespace

Watchdog::Watchdog(const ClientOptions& options, std::optional<Clock::time_point> run_deadline)
    : options_(options), run_deadline_(run_deadline), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::on_socket(Connection& conn, int sock) {
  // Bounds what the kernel holds unread, which the watchdog must allow on top of what was read.
  bound_receive_buffer(sock);
  const int copy = ::fcntl(sock, F_DUPFD_CLOEXEC, 0);
  const std::lock_guard lock(mutex_);
  if (conn.fd >= 0) ::close(conn.fd);
  conn.fd = copy;
  ++conn.generation;
  conn.opened = true;
  conn.wire_base = 0;
  conn.segments_base = 0;
}

void Watchdog::headers_done(Connection& conn) {
  const std::lock_guard lock(mutex_);
  conn.headers_done = true;
}

void Watchdog::cut(Connection& conn, Cut why) {
  const std::lock_guard lock(mutex_);
  if (conn.cut == Cut::none) conn.cut = why;
}

int Watchdog::socket_of(Connection& conn) {
  const std::lock_guard lock(mutex_);
  return conn.fd;
}

int Watchdog::pending_bytes(Connection& conn) {
  int pending = 0;
  const std::lock_guard lock(mutex_);
  if (conn.fd >= 0 && ::ioctl(conn.fd, FIONREAD, &pending) != 0) pending = 0;
  return pending;
}

TcpCounters Watchdog::attempt_base(Connection& conn) {
  const std::lock_guard lock(mutex_);
  return {conn.wire_base, conn.segments_base};
}

bool Watchdog::begin(Connection& conn) {
  const auto now = Clock::now();
  bool had_socket = false;
  bool wake = false;
  {
    const std::lock_guard lock(mutex_);
    conn.cut = Cut::none;
    conn.cut_reason = Cut::timeout;
    conn.cut_at = now + std::max(options_.read_timeout, milliseconds(1));
    if (run_deadline_ && *run_deadline_ < conn.cut_at) {
      conn.cut_at = *run_deadline_;
      conn.cut_reason = Cut::deadline;
    }
    conn.opened = false;
    conn.headers_done = false;
    const auto counters = conn.fd >= 0 ? tcp_counters(conn.fd) : std::nullopt;
    conn.wire_base = counters ? counters->bytes : (conn.fd >= 0 ? bytes_received(conn.fd).value_or(0) : 0);
    conn.segments_base = counters ? counters->data_segments : 0;
    had_socket = conn.fd >= 0;
    in_flight_.push_back(&conn);
    // The thread looks at a new attempt when it next wakes, and is woken now only when that would be too
    // late: it sleeps without end, the attempt's cut comes first, or a TLS head needs the short interval (a
    // plain-HTTP stream bounds its head itself). A wake per request was a thread switch or two per page.
    wake = conn.cut_at < wake_at_ || conn.bulk == nullptr;
  }
  if (wake) changed_.notify_all();
  return had_socket;
}

WatchEnd Watchdog::end(Connection& conn) {
  const std::lock_guard lock(mutex_);
  std::erase(in_flight_, &conn);
  WatchEnd end{conn.cut, conn.opened, conn.headers_done, 0};
  if (conn.fd >= 0) {
    const auto now = bytes_received(conn.fd).value_or(conn.wire_base);
    end.received = now >= conn.wire_base ? now - conn.wire_base : 0;
  }
  return end;
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (in_flight_.empty()) {
      wake_at_ = Clock::time_point::max();
      changed_.wait(lock);
      continue;
    }
    const auto now = Clock::now();
    bool reading_head = false;
    for (Connection* conn : in_flight_) {
      inspect(*conn, now);
      reading_head = reading_head || (!conn->headers_done && conn->bulk == nullptr);
    }
    const auto interval = reading_head ? kHeadWatchInterval : kWatchInterval;
    wake_at_ = now + interval;
    changed_.wait_for(lock, interval);
  }
}

// Called with the mutex held.
void Watchdog::inspect(Connection& conn, Clock::time_point now) {
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

}  // namespace entimg::contract::detail

#pragma once
// The HTTP client's watchdog: one thread that cuts attempts past their timeout, the run deadline or the
// bytes a response may take, whatever cpp-httplib is blocked in.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "entimg/contract/http.hpp"
#include "http_connection.hpp"

namespace entimg::contract::detail {

/// Real response heads are a few KiB; a server that sends more before its body is broken or hostile.
inline constexpr std::uint64_t kHeaderAllowance = 256 * 1024;

/// Watches the connections that have an attempt in flight; its mutex guards their watch fields.
class Watchdog {
 public:
  Watchdog(const ClientOptions& options, std::optional<Clock::time_point> run_deadline);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// Starts watching an attempt on conn; true when it goes out on a socket opened before.
  bool begin(Connection& conn);
  /// Stops watching conn and says what happened meanwhile.
  WatchEnd end(Connection& conn);
  /// cpp-httplib created a socket for conn: keep a dup of it to measure and cut.
  void on_socket(Connection& conn, int sock);
  /// The response head of conn's attempt is read: the body's allowance applies from now.
  void headers_done(Connection& conn);
  /// conn's attempt is cut for `why` by its reader (a plain-HTTP head over the allowance, http_bulk.hpp).
  void cut(Connection& conn, Cut why);
  /// conn's socket, -1 when it has none (it changes only on reconnect).
  int socket_of(Connection& conn);
  /// Bytes waiting unread on conn's socket.
  int pending_bytes(Connection& conn);
  /// conn's socket's counters when its current attempt began (zero for a socket the attempt opened).
  TcpCounters attempt_base(Connection& conn);

 private:
  void watch();
  void inspect(Connection& conn, Clock::time_point now);

  const ClientOptions& options_;
  std::optional<Clock::time_point> run_deadline_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Connection*> in_flight_;
  Clock::time_point wake_at_ = Clock::time_point::max();  ///< when the watching thread looks next
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace entimg::contract::detail

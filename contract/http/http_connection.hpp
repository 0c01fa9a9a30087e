#pragma once
// One pooled keep-alive connection of the HTTP client, shared by the pool that keeps it (http_pool.cpp),
// the watchdog that may cut it (http_watchdog.cpp) and the client that sends on it (http.cpp).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include <httplib.h>

#include "http_bulk.hpp"
#include "http_detail.hpp"

namespace entimg::contract::detail {

using Clock = std::chrono::steady_clock;

/// Why the watchdog cut an attempt.
enum class Cut { none, timeout, deadline, too_big };

/// One pooled keep-alive connection: a cpp-httplib client and what the watchdog needs to cut it.
struct Connection {
  Target where;
  std::unique_ptr<httplib::ClientImpl> http;
  httplib::SSLClient* tls = nullptr;  ///< http as an SSLClient, for the verify result
  BulkReadClient* bulk = nullptr;     ///< http as the plain-HTTP client, told when a body comes
  bool ca_bundle_failed = false;      ///< ClientOptions::cacert could not be loaded
  // The fields below are guarded by the Watchdog's mutex.
  int fd = -1;              ///< a dup of cpp-httplib's socket: the socket stays valid while we hold it
  unsigned generation = 0;  ///< bumped per new socket, so a reused fd number is never mistaken
  unsigned cut_generation = 0;
  bool opened = false;  ///< a new socket was created during the current attempt
  bool headers_done = false;
  std::uint64_t wire_base = 0;
  std::uint32_t segments_base = 0;  ///< data segments the socket had received when the attempt began
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

}  // namespace entimg::contract::detail

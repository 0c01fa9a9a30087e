#pragma once
// The HTTP client's keep-alive connections, idle ones kept per origin.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "entimg/contract/http.hpp"
#include "http_connection.hpp"
#include "http_watchdog.hpp"

namespace entimg::contract::detail {

class ConnectionPool {
 public:
  ConnectionPool(const ClientOptions& options, Watchdog& watchdog) : options_(options), watchdog_(watchdog) {}
  /// An idle connection to the target's origin with nothing waiting on it, or a new one.
  std::unique_ptr<Connection> checkout(const Target& target);
  /// Keeps conn for the next request to its origin (up to a few per origin).
  void give_back(std::unique_ptr<Connection> conn);

 private:
  std::unique_ptr<Connection> connect_to(const Target& target);

  const ClientOptions& options_;
  Watchdog& watchdog_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<std::unique_ptr<Connection>>> idle_;
};

}  // namespace entimg::contract::detail

#pragma once
// Stopping a long-running program on SIGINT or SIGTERM, for the mock's main, the test servers' mains and
// the suite's monitor: the signals are blocked in every thread and one thread waits for them, so a stop is
// an ordinary call at a point the program chooses, not a handler.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

namespace entimg::common {

/// SIGINT and SIGTERM.
inline sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

/// Blocks the stop signals in the calling thread (threads started later inherit it), so that only a
/// StopSignals waiter sees them, and makes a peer gone away (SIGPIPE) an error on its socket, not an exit.
/// Call it first in main, before any thread starts, when threads start before the StopSignals. Returns
/// the signal mask it replaced.
inline sigset_t block_stop_signals() {
  const sigset_t set = stop_signal_set();
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  std::signal(SIGPIPE, SIG_IGN);
  return previous;
}

class StopSignals {
 public:
  /// Blocks the stop signals (block_stop_signals) and starts the thread that waits for them: on_stop runs
  /// on it, once, when SIGINT or SIGTERM comes while this object lives.
  explicit StopSignals(std::function<void()> on_stop) : previous_(block_stop_signals()) {
    waiter_ = std::thread([this, on_stop = std::move(on_stop)] {
      const sigset_t set = stop_signal_set();
      int signal = 0;
      sigwait(&set, &signal);
      if (!ending_) on_stop();
    });
  }
  /// Wakes the waiter if no signal came, and puts the signal mask back as it was.
  ~StopSignals() {
    ending_ = true;
    pthread_kill(waiter_.native_handle(), SIGTERM);
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  sigset_t previous_;
  std::atomic<bool> ending_{false};
  std::thread waiter_;
};

/// Runs the server (anything with run() and stop()) until a stop signal or its own end; run()'s result.
template <typename Server>
bool run_until_stop_signal(Server& server) {
  const StopSignals signals([&server] { server.stop(); });
  return server.run();
}

}  // namespace entimg::common

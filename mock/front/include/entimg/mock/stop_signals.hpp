#pragma once
// Serving until SIGINT or SIGTERM, for the mock's main and the test servers' mains: the signals are
// blocked in every thread, and one thread waits for them and stops the server.
#include <pthread.h>

#include <csignal>
#include <thread>

namespace entimg::mock {

inline sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

/// Call first in main, before any thread starts: SIGINT and SIGTERM are then only seen by
/// run_until_stop_signal's waiter, and a client gone away (SIGPIPE) is an error, not an exit.
inline void block_stop_signals() {
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

/// Runs the server (anything with run() and stop()) until a stop signal or its own end; run()'s result.
template <typename Server>
bool run_until_stop_signal(Server& server) {
  const sigset_t set = stop_signal_set();
  std::thread waiter([&server, set] {
    int signal = 0;
    sigwait(&set, &signal);
    server.stop();
  });
  const bool ok = server.run();
  pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter if run() ended by itself
  waiter.join();
  return ok;
}

}  // namespace entimg::mock

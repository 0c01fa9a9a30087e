#pragma once
// Stopping a long-running command on SIGINT or SIGTERM: the signals are blocked in every thread and one
// thread waits for them, so a stop is an ordinary call at a point the program chooses, not a handler.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

namespace entimg::contract::detail {

class StopSignals {
 public:
  /// Construct before any other thread starts: threads started later inherit the blocked signals.
  /// on_stop runs on the waiting thread, once, when SIGINT or SIGTERM comes.
  explicit StopSignals(std::function<void()> on_stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
    std::signal(SIGPIPE, SIG_IGN);  // a scraper gone away is an error on its socket, not an exit
    waiter_ = std::thread([this, on_stop = std::move(on_stop)] {
      int signal = 0;
      sigwait(&set_, &signal);
      if (!ending_) on_stop();
    });
  }
  ~StopSignals() {
    ending_ = true;
    pthread_kill(waiter_.native_handle(), SIGTERM);  // wakes the waiter if no signal came
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  sigset_t set_{};
  sigset_t previous_{};
  std::atomic<bool> ending_{false};
  std::thread waiter_;
};

}  // namespace entimg::contract::detail

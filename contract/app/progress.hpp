#pragma once
// The progress of a full walk: a bar with records/s and ETA on a terminal, a plain line every few
// seconds otherwise (CI logs).
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "entimg/contract/runner.hpp"

namespace entimg::contract {

class ProgressDisplay {
 public:
  ProgressDisplay(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

  void update(const Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < (terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(5000)) &&
        p.records < p.total)
      return;
    last_ = now;
    const double seconds = std::max(0.001, static_cast<double>(p.elapsed.count()) / 1000.0);
    const double rate = static_cast<double>(p.records) / seconds;
    std::ostringstream line;
    line << std::fixed << std::setprecision(0);
    if (p.total > 0) {
      const double share = std::min(1.0, static_cast<double>(p.records) / static_cast<double>(p.total));
      if (terminal_) {
        const int filled = static_cast<int>(share * 30);
        line << "[" << std::string(static_cast<std::size_t>(filled), '#')
             << std::string(static_cast<std::size_t>(30 - filled), '.') << "] ";
      }
      line << share * 100 << "% " << p.records << "/" << p.total << " records";
      if (p.pictures > 0) line << " (" << p.pictures << " picture requests)";
      line << ", " << rate << " records/s";
      if (rate > 0 && p.records < p.total)
        line << ", ETA " << static_cast<double>(p.total - p.records) / rate << " s";
    } else {
      line << p.records << " records, " << rate << " records/s";
    }
    if (terminal_) {
      out_ << "\r" << line.str() << "\x1b[K" << std::flush;
      drawn_ = true;
    } else {
      out_ << "progress: " << line.str() << "\n" << std::flush;
    }
  }

  void finish() {
    if (drawn_) out_ << "\r\x1b[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::ostream& out_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace entimg::contract

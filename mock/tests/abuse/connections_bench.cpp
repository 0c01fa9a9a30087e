// entimg-connections-bench: the attacks of issue 10 at full size against a running mock (bench/connections.sh
// starts it): idle keep-alive connections plus slowloris while a fresh client is timed, then each attack
// alone, the mock's RSS sampled throughout. Prints figures and PASS/MISS against the targets; exit 0
// unless the setup is broken (2).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "loopback.hpp"

using namespace entimg::mock::abuse;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int port = 0;
  pid_t pid = 0;
  std::size_t idle = 10000;
  std::size_t slowloris = 1000;
  int seconds = 15;
};

// The mock's peak RSS while `work` runs, sampled every 50 ms.
template <class Work>
std::size_t peak_rss_during(pid_t pid, Work work) {
  std::atomic<bool> done{false};
  std::atomic<std::size_t> peak{rss_kib(pid)};
  std::thread sampler([&] {
    while (!done) {
      peak = std::max(peak.load(), rss_kib(pid));
      std::this_thread::sleep_for(Millis(50));
    }
  });
  work();
  done = true;
  sampler.join();
  return std::max(peak.load(), rss_kib(pid));
}

double mib(std::size_t kib) {
  return static_cast<double>(kib) / 1024.0;
}

const char* verdict(bool ok) {
  return ok ? "PASS" : "MISS";
}

// Sends `bytes` (as much as the mock takes), then waits for its answer; prints status and time.
void attack(const Args& a, const char* name, const std::string& bytes, int expected) {
  int status = 0;
  double ms = 0;
  const std::size_t peak = peak_rss_during(a.pid, [&] {
    const auto started = Clock::now();
    const int fd = connect_to(a.port);
    if (fd < 0) return;
    send_all(fd, bytes, Millis(10000));
    std::string carry;
    status = read_answer(fd, carry, Millis(10000)).status;
    ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    close(fd);
  });
  std::printf("  %-44s %d in %7.1f ms, peak RSS %5.1f MiB  %s\n", name, status, ms, mib(peak),
              verdict(status == expected));
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (flag == "--port")
      a.port = static_cast<int>(value);
    else if (flag == "--pid")
      a.pid = static_cast<pid_t>(value);
    else if (flag == "--idle")
      a.idle = static_cast<std::size_t>(value);
    else if (flag == "--slowloris")
      a.slowloris = static_cast<std::size_t>(value);
    else if (flag == "--seconds")
      a.seconds = static_cast<int>(value);
  }
  if (a.port <= 0 || a.pid <= 0) {
    std::fprintf(
        stderr,
        "usage: entimg-connections-bench --port P --pid PID [--idle N] [--slowloris N] [--seconds S]\n");
    return 2;
  }
  const std::size_t start_rss = rss_kib(a.pid);
  std::printf("mock RSS at start: %.1f MiB\n", mib(start_rss));

  // 1. Idle keep-alive connections plus slowloris, a fresh client timed throughout.
  std::vector<int> idle, slow;
  ProbeResult probed;
  const std::size_t peak = peak_rss_during(a.pid, [&] {
    idle = open_many(a.port, a.idle, get_request("/edw/api/entities-images/?limit=1"));
    const bool answered = read_one_answer_each(idle, Millis(30000));
    std::printf("%zu keep-alive connections open (each answered once: %s)\n", idle.size(),
                answered ? "yes" : "NO");
    slow = open_many(a.port, a.slowloris, "GET /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\n");
    std::atomic<bool> done{false};
    std::size_t reopened = 0;
    std::thread trickle([&] {  // a byte a connection a second; those the mock times out are replaced
      while (!done) {
        for (int& fd : slow) {
          if (send(fd, "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN) {
            close(fd);
            const auto fresh = open_many(a.port, 1, "GET / HTTP/1.1\r\n");
            fd = fresh.empty() ? -1 : fresh.front();
            ++reopened;
          }
        }
        std::this_thread::sleep_for(Millis(1000));
      }
    });
    probed = probe(a.port, a.seconds * 50, Millis(20));
    done = true;
    trickle.join();
    std::printf("%zu slowloris connections kept up (%zu reopened after the mock's 408)\n", slow.size(),
                reopened);
  });
  const double p99 = probed.percentile(99);
  std::printf(
      "fresh client: %zu answered, %d errors, p50 %.2f ms, p99 %.2f ms, max %.2f ms  %s (p99 < 100 ms, 0 "
      "errors)\n",
      probed.ms.size(), probed.errors, probed.percentile(50), p99, probed.percentile(100),
      verdict(p99 < 100 && probed.errors == 0));
  std::printf("mock peak RSS with %zu + %zu connections: %.1f MiB  %s (< 200 MiB)\n", idle.size(),
              slow.size(), mib(peak), verdict(peak < 200 * 1024));
  close_all(idle);
  close_all(slow);

  // 2. Each attack alone: a bounded answer, at once.
  std::printf("attacks (answer, time to it, the mock's peak RSS meanwhile):\n");
  const std::string get = "GET /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\n";
  attack(a, "request line of 256 MiB, no newline", "GET /" + std::string(256u << 20, 'a'), 414);
  attack(a, "header line of 256 MiB, no newline", get + "X: " + std::string(256u << 20, 'b'), 431);
  std::string flood = get;
  for (int i = 0; i < 1000000; ++i)
    flood += "X-F: 1\r\n";
  attack(a, "1,000,000 short header lines", flood, 431);
  attack(a, "chunk-size line of 256 MiB",
         "POST /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
             std::string(256u << 20, '1'),
         400);
  attack(a, "GET with a 256 MiB body",
         get + "Content-Length: 268435456\r\n\r\n" + std::string(256u << 20, 'c'), 413);
  {
    std::vector<int> delayed;
    const std::size_t held = peak_rss_during(a.pid, [&] {
      delayed = open_many(a.port, 1000,
                          get_request("/edw/api/entities-images/", false, "X-Mock-Latency: 60000\r\n"));
      close_all(delayed);
      probed = probe(a.port, 50, Millis(10));
    });
    std::printf("  %-44s fresh client p99 %.2f ms, %d errors, peak RSS %5.1f MiB  %s\n",
                "1,000 delays of 60 s abandoned", probed.percentile(99), probed.errors, mib(held),
                verdict(probed.errors == 0 && probed.percentile(99) < 100));
  }
  std::this_thread::sleep_for(Millis(2500));  // lingering closes end after 2 s
  const std::size_t after = rss_kib(a.pid);
  std::printf("mock RSS after the attacks: %.1f MiB  %s (< 64 MiB)\n", mib(after),
              verdict(after < 64 * 1024));
  return 0;
}

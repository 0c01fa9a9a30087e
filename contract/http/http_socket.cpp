#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>
#include <mutex>
#include <semaphore>
#include <system_error>
#include <vector>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>

#include "http_detail.hpp"

namespace entimg::contract::detail {

/// Reads cumulative bytes received on a TCP socket, including what still waits unread in its buffer.
std::optional<std::uint64_t> bytes_received(int fd) {
  // tcpi_bytes_received (Linux 4.1+) sits at byte 128 of the kernel's append-only struct tcp_info;
  // glibc's copy of the struct in <netinet/tcp.h> ends before it.
  constexpr std::size_t kOffset = 128;
  std::array<unsigned char, 512> raw{};
  auto size = static_cast<socklen_t>(raw.size());
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, raw.data(), &size) != 0) return std::nullopt;
  if (static_cast<std::size_t>(size) < kOffset + sizeof(std::uint64_t)) return std::nullopt;
  std::uint64_t value = 0;
  std::memcpy(&value, raw.data() + kOffset, sizeof value);
  return value;
}

namespace {

// The fields of the kernel's append-only struct tcp_info that glibc's copy in <netinet/tcp.h> lacks.
struct TcpSnapshot {
  std::uint8_t state = 0;
  std::uint32_t rcv_mss = 0;
  TcpCounters counters;
};

std::optional<TcpSnapshot> tcp_snapshot(int fd) {
  constexpr std::size_t kRcvMss = 20, kBytesReceived = 128,
                        kDataSegsIn = 152;  // tcpi_data_segs_in: Linux 4.6+
  std::array<unsigned char, 512> raw{};
  auto size = static_cast<socklen_t>(raw.size());
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, raw.data(), &size) != 0) return std::nullopt;
  if (static_cast<std::size_t>(size) < kDataSegsIn + sizeof(std::uint32_t)) return std::nullopt;
  TcpSnapshot out;
  out.state = raw[0];
  std::memcpy(&out.rcv_mss, raw.data() + kRcvMss, sizeof out.rcv_mss);
  std::memcpy(&out.counters.bytes, raw.data() + kBytesReceived, sizeof out.counters.bytes);
  std::memcpy(&out.counters.data_segments, raw.data() + kDataSegsIn, sizeof out.counters.data_segments);
  return out;
}

}  // namespace

std::optional<TcpCounters> tcp_counters(int fd) {
  const auto snapshot = tcp_snapshot(fd);
  return snapshot ? std::optional(snapshot->counters) : std::nullopt;
}

AfterHead watch_after_head(int fd, TcpCounters since, std::chrono::milliseconds grace) {
  AfterHead out;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    int pending = 0;
    if (::ioctl(fd, FIONREAD, &pending) == 0 && pending > 0) {
      out.bytes = static_cast<std::size_t>(pending);
      return out;
    }
    const auto snapshot = tcp_snapshot(fd);
    if (!snapshot || snapshot->state == TCP_CLOSE_WAIT) return out;  // the peer closed: nothing more can come
    if (snapshot->state == TCP_CLOSE) {
      int error = 0;
      auto length = static_cast<socklen_t>(sizeof error);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error == ECONNRESET && snapshot->counters.data_segments >= since.data_segments &&
          snapshot->counters.bytes >= since.bytes) {
        // The segments the bytes taken in needed at most; more came with data the kernel dropped.
        const std::uint64_t taken = snapshot->counters.bytes - since.bytes;
        const std::uint64_t needed =
            snapshot->rcv_mss > 0 ? (taken + snapshot->rcv_mss - 1) / snapshot->rcv_mss : taken;
        const std::uint64_t segments = snapshot->counters.data_segments - since.data_segments;
        if (segments > needed) out.dropped_segments = static_cast<std::size_t>(segments - needed);
      }
      return out;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return out;
    pollfd wait{fd, POLLIN, 0};
    // A socket cpp-httplib shut down reads as ready at once: wait a little instead of spinning.
    if (::poll(&wait, 1, static_cast<int>(left.count())) > 0) ::usleep(1000);
  }
}

std::uint64_t receive_buffer(int fd) {
  int size = 0;
  auto length = static_cast<socklen_t>(sizeof size);
  if (::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &length) != 0 || size < 0) return 0;
  return static_cast<std::uint64_t>(size);
}

void bound_receive_buffer(int fd) {
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kReceiveBuffer, sizeof kReceiveBuffer);
}

// Unlike shutdown(), a disconnect makes the blocked reader see an error rather than a clean end of
// stream, so cpp-httplib cannot take a half-read close-delimited body for a whole one.
void abort_socket(int fd) {
  sockaddr unspecified{};
  unspecified.sa_family = AF_UNSPEC;
  if (::connect(fd, &unspecified, sizeof unspecified) != 0) ::shutdown(fd, SHUT_RDWR);
}

SigpipeGuard::SigpipeGuard() {
  sigemptyset(&pipe_);
  sigaddset(&pipe_, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
}
SigpipeGuard::~SigpipeGuard() {
  const int saved = errno;
  sigset_t pending;
  if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
    timespec zero{};
    sigtimedwait(&pipe_, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  errno = saved;
}

/// Adds a PEM bundle to the CAs an SSL_CTX trusts; false when it cannot be loaded.
bool add_ca_bundle(SSL_CTX* ctx, const std::string& path) {
  // cpp-httplib 0.11 can only replace the system CAs with a bundle. Loading the bundle into its context
  // ourselves adds to them instead: cpp-httplib then loads the system defaults on top.
  if (ctx == nullptr) return false;
  const bool loaded = ::SSL_CTX_load_verify_locations(ctx, path.c_str(), nullptr) == 1;
  // A failed load leaves errors queued in this thread, which later TLS reads would take for their own.
  ::ERR_clear_error();
  return loaded;
}

namespace {

/// A thread with a big stack that runs one task at a time; it lives as long as the program.
class BigStackWorker {
 public:
  void run(const std::function<void()>& task) {
    task_ = &task;
    error_ = nullptr;
    go_.release();
    done_.acquire();
    if (error_) std::rethrow_exception(error_);
  }

  /// Starts a worker; nullptr when no thread can be made even with a quarter of the stack.
  static BigStackWorker* start() {
    auto* worker = new BigStackWorker;
    for (const std::size_t size : {kBigStack, kBigStack / 4}) {
      pthread_attr_t attr;
      if (::pthread_attr_init(&attr) != 0) break;
      ::pthread_attr_setstacksize(&attr, size);
      ::pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      pthread_t thread{};
      const int failed = ::pthread_create(&thread, &attr, &BigStackWorker::main, worker);
      ::pthread_attr_destroy(&attr);
      if (failed == 0) return worker;
    }
    delete worker;
    return nullptr;
  }

  /// The worker whose thread this is, or nullptr on any other thread.
  static BigStackWorker*& here() {
    thread_local BigStackWorker* worker = nullptr;
    return worker;
  }

  /// Runs task on this very thread, already a worker's (a task it runs sends a request itself).
  void run_here(const std::function<void()>& task) {
    try {
      task();
    } catch (...) {
      release_deep_pages();
      throw;
    }
    release_deep_pages();
  }

 private:
  static void* main(void* self) {
    static_cast<BigStackWorker*>(self)->loop();
    return nullptr;
  }

  [[noreturn]] void loop() {
    here() = this;
    for (;;) {
      go_.acquire();
      try {
        (*task_)();
      } catch (...) {
        error_ = std::current_exception();
      }
      release_deep_pages();
      done_.release();
    }
  }

  // A long line leaves the pages it touched resident; give back those well below this frame, so one
  // hostile answer does not keep hundreds of MiB. Untouched stacks cost one mincore call.
  void release_deep_pages() {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    const std::uintptr_t keep = 1U << 20;
    if (stack_low_ == 0) {
      pthread_attr_t attr;
      void* low = nullptr;
      std::size_t size = 0;
      if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return;
      ::pthread_attr_getstack(&attr, &low, &size);
      ::pthread_attr_destroy(&attr);
      stack_low_ = reinterpret_cast<std::uintptr_t>(low) + page;  // above the guard
    }
    if (here < stack_low_ + 2 * keep) return;
    const std::uintptr_t top = (here - keep) & ~(page - 1);
    unsigned char resident = 0;
    if (::mincore(reinterpret_cast<void*>(top - page), page, &resident) != 0 || (resident & 1U) == 0) return;
    ::madvise(reinterpret_cast<void*>(stack_low_), top - stack_low_, MADV_DONTNEED);
  }

  std::binary_semaphore go_{0};
  std::binary_semaphore done_{0};
  const std::function<void()>* task_ = nullptr;
  std::exception_ptr error_;
  std::uintptr_t stack_low_ = 0;
};

// Idle workers, reused by whichever thread asks next; as many exist as requests ever ran at once.
// Never destroyed: workers outlive static destruction, blocked on their semaphores.
std::mutex idle_mutex;
std::vector<BigStackWorker*>& idle_workers() {
  static auto* workers = new std::vector<BigStackWorker*>;
  return *workers;
}

}  // namespace

void run_on_big_stack(const std::function<void()>& task) {
  // On a worker already (a fetching thread of the walk runs on one): no hand-over, two thread switches
  // fewer per request.
  if (BigStackWorker* self = BigStackWorker::here(); self != nullptr) {
    self->run_here(task);
    return;
  }
  BigStackWorker* worker = nullptr;
  {
    const std::lock_guard lock(idle_mutex);
    if (!idle_workers().empty()) {
      worker = idle_workers().back();
      idle_workers().pop_back();
    }
  }
  if (worker == nullptr) worker = BigStackWorker::start();
  if (worker == nullptr) {
    throw std::system_error(EAGAIN, std::generic_category(), "cannot start a thread for the request");
  }
  const auto give_back = [worker] {
    const std::lock_guard lock(idle_mutex);
    idle_workers().push_back(worker);
  };
  try {
    worker->run(task);
  } catch (...) {
    give_back();
    throw;
  }
  give_back();
}

}  // namespace entimg::contract::detail

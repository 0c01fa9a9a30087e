#include "connection_front.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <queue>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bulk_lane.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "pagination.hpp"

namespace entimg::mock::detail {

namespace {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
constexpr TimePoint kNever = TimePoint::max();

// epoll data of the three descriptors that are not connections; connections count up from kFirstConn.
constexpr std::uint64_t kListen = 1, kReady = 2, kStop = 3, kFirstConn = 16;
constexpr std::size_t kReadChunk = 65536;
constexpr std::size_t kEventsPerWait = 8;
// After an answer that closes a connection whose client may still be sending, its bytes are read and
// dropped before the close, so that the close does not reset the answer away (nginx's lingering close:
// until the client pauses kLingerTime, at most kLingerMax in all). A client that sends a whole refused
// body before it reads therefore still reads its 413. Reading is bounded per turn, so a fast sender
// holds a worker no longer than any other connection does.
constexpr Millis kLingerTime{2000};
constexpr Millis kLingerMax{30000};
constexpr std::size_t kLingerReadsPerTurn = 64;
constexpr Millis kTrickleTick{100};  // --slow-body: a tenth of the rate every 100 ms
// A body made in pieces (HttpResponse::source: a picture of its file's size) is made this much at a time, as
// the socket takes it, so that a 2 GB body costs a piece of memory, not 2 GB.
constexpr std::size_t kSourcePiece = 256 * 1024;

struct Conn {
  Conn(std::uint64_t id_, int fd_, const ConnectionLimits& limits) : id(id_), fd(fd_), parser(limits) {}
  const std::uint64_t id;
  const int fd;

  // Shared with the timer thread and other workers, under `mutex`.
  std::mutex mutex;
  bool busy = false;         // a worker is serving it; nobody else touches the fields below
  bool wake = false;         // something happened while it was busy: serve it again before letting go
  std::uint32_t missed = 0;  // the epoll events that came meanwhile
  bool closed = false;
  std::optional<HttpResponse> computed;  // the bulk lane's answer to `pending`, once it is made
  bool bulk_slot = false;                // that answer holds a slot of the lane until sent or closed
  TimePoint deadline = kNever;           // when it must be looked at again
  TimePoint scheduled = kNever;          // the timer entry that stands for it

  // Owned by the worker that holds `busy`.
  TimePoint next_deadline = kNever;
  std::string in;
  RequestParser parser;
  bool timing = false;  // a request has begun: its head deadline runs
  TimePoint request_began{}, last_read{}, idle_since{};
  bool continue_sent = false;
  bool peer_eof = false;
  bool hung_up = false;    // the client shut its side (or reset): a delay under way ends
  bool maybe_more = true;  // the socket may hold bytes not read yet
  // The answer being written: head, then body (trickled when `trickle` > 0); a body made in pieces goes
  // through out_body a piece at a time, `source_at` of it made so far.
  std::string out_head, out_body;
  std::size_t head_sent = 0, body_sent = 0;
  std::shared_ptr<const BodySource> out_source;
  std::uint64_t source_at = 0;
  std::string_view out_held;  // a source's body held whole (HeldBody): sent from there, not through out_body
  std::uint64_t trickle = 0, allowance = 0;
  TimePoint next_tick{}, last_progress{};
  bool close_after = false;
  bool lingering = false;
  TimePoint linger_until{}, linger_end{};
  // A request waiting out its delay, or (computing) for the bulk lane's answer.
  std::optional<HttpRequest> pending;
  bool computing = false;
  Plan pending_plan;
  int pending_minor = 1;
  bool pending_keep_alive = true;
  TimePoint delay_until{}, admitted_at{};

  std::string_view body() const { return out_held.empty() ? std::string_view(out_body) : out_held; }
  bool writing() const {
    return head_sent < out_head.size() || body_sent < body().size() ||
           (out_source && source_at < out_source->size());
  }
  /// The body to write after the head (none for HEAD, 1xx, 204, 304): held, or made in pieces from its
  /// source.
  void take_body(HttpResponse& response, bool sent, std::uint64_t rate) {
    out_source.reset();
    source_at = 0;
    out_held = {};
    out_body.clear();
    if (sent) {
      out_body = std::move(response.body);
      out_source = std::move(response.source);
    }
    head_sent = body_sent = 0;
    trickle = out_body.empty() && !out_source ? 0 : rate;
  }
  /// The next piece of a body made in pieces, once the last one is sent (a held one: all of it, in place).
  void next_piece() {
    if (body_sent < body().size() || !out_source || source_at >= out_source->size()) return;
    if (!out_source->held().empty()) {
      out_held = out_source->held();
      source_at = out_held.size();
      body_sent = 0;
      return;
    }
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(kSourcePiece, out_source->size() - source_at));
    out_body.resize(n);
    out_source->write(source_at, out_body.data(), n);
    source_at += n;
    body_sent = 0;
  }
  /// Between requests (kept alive, or nothing sent yet), nothing to write: what nginx may close for room.
  bool idle() const { return !timing && in.empty() && !pending && !writing() && !lingering && !close_after; }
};

struct TimerEntry {
  TimePoint at;
  std::uint64_t id;
  bool operator>(const TimerEntry& other) const { return at > other.at; }
};

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// The Date header every answer carries (RFC 9110 §6.6.1: an origin server with a clock sends it), in
// IMF-fixdate, as gunicorn and nginx write it.
std::string date_header() {
  const std::time_t now = std::time(nullptr);
  thread_local std::time_t cached_at = -1;  // one formatting a second per thread, not one a request
  thread_local std::string cached;
  if (now == cached_at) return cached;
  std::tm utc{};
  gmtime_r(&now, &utc);
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char text[64];
  const int n = std::snprintf(text, sizeof text, "Date: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n",
                              kDays[utc.tm_wday % 7], utc.tm_mday, kMonths[utc.tm_mon % 12],
                              utc.tm_year + 1900, utc.tm_hour, utc.tm_min, utc.tm_sec);
  cached.assign(text, static_cast<std::size_t>(std::max(n, 0)));
  cached_at = now;
  return cached;
}

// The answer to a request the front refuses: nginx's page for a body over --max-body (as documented for
// that flag), else the status and a line naming the limit or the fault; the connection closes after it.
std::string refusal(int status, std::string_view message) {
  HttpResponse r = failure_response(413);
  if (status != 413) {
    r.content_type = "text/plain; charset=utf-8";
    r.body = std::to_string(status) + " " + std::string(reason_phrase(status)) + "\n" + std::string(message) +
             "\n";
  }
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) + "\r\n" +
         date_header() + "Content-Type: " + r.content_type +
         "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\nConnection: close\r\n\r\n" + r.body;
}

bool no_body_status(int status) {
  return status < 200 || status == 204 || status == 304;
}

}  // namespace

struct ConnectionFront::State {
  State(FrontOptions o, FrontHandler& h) : options(std::move(o)), handler(h) {}
  FrontOptions options;
  FrontHandler& handler;
  std::string authority;
  int listen_fd = -1, epoll_fd = -1, ready_fd = -1, stop_fd = -1, reserve_fd = -1;
  std::atomic<bool> stopping{false};

  std::mutex registry_mutex;
  std::unordered_map<std::uint64_t, std::shared_ptr<Conn>> conns;
  std::uint64_t next_id = kFirstConn;

  std::mutex ready_mutex;
  std::deque<std::uint64_t> ready;  // connections claimed by the timer, for a worker to serve

  std::optional<BulkLane> bulk;  // pages of more than --bulk-records records; from run() on

  std::mutex timer_mutex;
  std::condition_variable timer_cv;
  std::priority_queue<TimerEntry, std::vector<TimerEntry>, std::greater<>> timers;

  std::shared_ptr<Conn> find(std::uint64_t id) {
    const std::lock_guard lock(registry_mutex);
    const auto it = conns.find(id);
    return it == conns.end() ? nullptr : it->second;
  }

  // Under the connection's mutex: makes sure a timer entry fires no later than its deadline.
  void schedule_locked(Conn& c) {
    if (c.deadline >= c.scheduled) return;
    c.scheduled = c.deadline;
    const std::lock_guard lock(timer_mutex);
    const bool sooner = timers.empty() || c.deadline < timers.top().at;
    timers.push({c.deadline, c.id});
    if (sooner) timer_cv.notify_one();
  }

  void arm(int fd, std::uint32_t events, std::uint64_t id, int op = EPOLL_CTL_MOD) {
    epoll_event ev{};
    ev.events = events | EPOLLONESHOT;
    ev.data.u64 = id;
    epoll_ctl(epoll_fd, op, fd, &ev);
  }

  void make_ready(std::uint64_t id) {
    {
      const std::lock_guard lock(ready_mutex);
      ready.push_back(id);
    }
    const std::uint64_t one = 1;
    (void)!write(ready_fd, &one, sizeof one);
  }

  void timer_loop();
  void fire(const TimerEntry& entry);
  void worker();
  void accept_all();
  bool at_limit();
  std::shared_ptr<Conn> claim_idle();
  void claimed(const std::shared_ptr<Conn>& conn, std::uint32_t events);
  void serve(Conn& c, std::uint32_t events);
  // serve()'s steps, in order.
  enum class Turn { next_step, again, stop };  ///< go on to the next step, start the round again, stop
  Turn drain_lingering(Conn& c, TimePoint now, std::vector<char>& chunk);
  Turn write_queued(Conn& c, TimePoint now);
  Turn begin_close(Conn& c, TimePoint now);
  Turn answer_delayed(Conn& c, TimePoint& now);
  Turn advance_request(Conn& c, TimePoint& now, bool& in_body);
  Turn keep_time(Conn& c, TimePoint now, bool in_body);
  Turn read_more(Conn& c, TimePoint now, std::vector<char>& chunk);
  void close_conn(Conn& c);
  void answer(Conn& c, HttpRequest& request, const Plan& plan, int minor, bool keep_alive,
              TimePoint admitted);
  void deliver(Conn& c, const HttpRequest& request, HttpResponse response, const Plan& plan, int minor,
               bool keep_alive, TimePoint admitted);
  bool bulky(const HttpRequest& request) const;
  void to_bulk_lane(Conn& c, HttpRequest& request, const Plan& plan, int minor, bool keep_alive,
                    TimePoint admitted);
  void computed(const std::shared_ptr<Conn>& conn, HttpResponse response);
  void release_bulk_slot(Conn& c);
  void queue(Conn& c, HttpResponse response, const std::string& method, int minor, bool keep_alive,
             std::uint64_t trickle);
  void admit(Conn& c, ParsedRequest parsed);
  enum class Flush { done, blocked, tick, failed };
  Flush flush(Conn& c, TimePoint now);
};

void ConnectionFront::State::timer_loop() {
  std::unique_lock lock(timer_mutex);
  while (!stopping) {
    if (timers.empty()) {
      timer_cv.wait(lock);
      continue;
    }
    const TimerEntry top = timers.top();
    if (Clock::now() < top.at) {
      timer_cv.wait_until(lock, top.at);
      continue;
    }
    timers.pop();
    lock.unlock();
    fire(top);
    lock.lock();
  }
}

void ConnectionFront::State::fire(const TimerEntry& entry) {
  const std::shared_ptr<Conn> conn = find(entry.id);
  if (!conn) return;
  Conn& c = *conn;
  {
    const std::lock_guard lock(c.mutex);
    if (c.closed || c.scheduled != entry.at) return;  // a stale entry: another stands for it
    c.scheduled = kNever;
    if (c.deadline > Clock::now()) {  // the deadline moved on while the entry waited
      schedule_locked(c);
      return;
    }
    if (c.busy) {
      c.wake = true;
      return;
    }
    c.busy = true;
  }
  make_ready(c.id);
}

void ConnectionFront::State::worker() {
  epoll_event events[kEventsPerWait];
  while (!stopping) {
    const int n = epoll_wait(epoll_fd, events, kEventsPerWait, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < n; ++i) {
      const std::uint64_t id = events[i].data.u64;
      if (id == kStop || stopping) return;
      if (id == kListen) {
        accept_all();
        arm(listen_fd, EPOLLIN, kListen);
        continue;
      }
      if (id == kReady) {
        std::uint64_t count = 0;
        (void)!read(ready_fd, &count, sizeof count);
        std::uint64_t next = 0;
        bool more = false;
        {
          const std::lock_guard lock(ready_mutex);
          if (!ready.empty()) {
            next = ready.front();
            ready.pop_front();
          }
          more = !ready.empty();
        }
        if (more) {
          const std::uint64_t one = 1;
          (void)!write(ready_fd, &one, sizeof one);
        }
        arm(ready_fd, EPOLLIN, kReady);
        if (next == 0) continue;
        if (const auto conn = find(next)) claimed(conn, 0);
        continue;
      }
      const std::shared_ptr<Conn> conn = find(id);
      if (!conn) continue;
      {
        const std::lock_guard lock(conn->mutex);
        if (conn->closed) continue;
        if (conn->busy) {
          conn->wake = true;
          conn->missed |= events[i].events;
          continue;
        }
        conn->busy = true;
      }
      claimed(conn, events[i].events);
    }
  }
}

void ConnectionFront::State::accept_all() {
  for (int i = 0; i < 256; ++i) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && reserve_fd >= 0) {
        // Out of descriptors: take the waiting client with the spare one and tell it so, rather
        // than leave it in the queue while the listening socket stays readable.
        close(reserve_fd);
        fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
          const std::string answer = refusal(503, "the mock has no file descriptor left");
          (void)!send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
          close(fd);
        }
        reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
      }
      return;
    }
    const int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    if (at_limit()) {
      if (const std::shared_ptr<Conn> idle = claim_idle()) {
        close_conn(*idle);
      } else {
        const std::string answer =
            refusal(503, "more than " + std::to_string(options.limits.max_connections) +
                             " connections (--max-connections), none of them idle");
        (void)!send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
        close(fd);
        continue;
      }
    }
    std::shared_ptr<Conn> conn;
    {
      const std::lock_guard lock(registry_mutex);
      conn = std::make_shared<Conn>(next_id++, fd, options.limits);
      conns.emplace(conn->id, conn);
    }
    const TimePoint now = Clock::now();
    conn->idle_since = conn->last_progress = now;
    {
      const std::lock_guard lock(conn->mutex);
      conn->deadline = now + Millis(options.limits.head_timeout_ms);
      schedule_locked(*conn);
      // Edge-triggered and registered once: an event comes when bytes arrive or room to write opens,
      // and one that comes while a worker serves the connection makes that worker go round again.
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
      ev.data.u64 = conn->id;
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
  }
}

bool ConnectionFront::State::at_limit() {
  const std::lock_guard lock(registry_mutex);
  return conns.size() >= options.limits.max_connections;
}

// The connection idle longest (Conn::idle), claimed for closing as a worker claims one (busy), so that a
// new connection can take its place: nginx, out of worker_connections, closes its idle keep-alive
// connections the same way. One whose next request already waits in the socket is passed over. nullptr
// when no connection is idle (only one thread accepts at a time, so the room stays free until it is taken).
std::shared_ptr<Conn> ConnectionFront::State::claim_idle() {
  std::vector<std::pair<TimePoint, std::shared_ptr<Conn>>> idle;
  {
    const std::lock_guard lock(registry_mutex);
    for (const auto& [id, conn] : conns) {
      const std::lock_guard conn_lock(conn->mutex);
      if (!conn->busy && !conn->closed && conn->idle()) idle.emplace_back(conn->idle_since, conn);
    }
  }
  const std::size_t tries = std::min<std::size_t>(idle.size(), 8);
  std::partial_sort(idle.begin(), idle.begin() + static_cast<std::ptrdiff_t>(tries), idle.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < tries; ++i) {
    Conn& c = *idle[i].second;
    const std::lock_guard lock(c.mutex);
    if (c.busy || c.closed || !c.idle()) continue;
    char byte = 0;
    if (recv(c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0) continue;  // its next request came
    c.busy = true;  // no worker takes it now; close_conn marks it closed
    return idle[i].second;
  }
  return nullptr;
}

void ConnectionFront::State::claimed(const std::shared_ptr<Conn>& conn, std::uint32_t events) {
  Conn& c = *conn;
  for (;;) {
    serve(c, events);
    const std::lock_guard lock(c.mutex);
    if (c.closed) {
      c.busy = false;
      return;
    }
    if (c.wake) {
      c.wake = false;
      events = std::exchange(c.missed, 0);
      continue;
    }
    c.busy = false;
    c.deadline = c.next_deadline;
    schedule_locked(c);
    return;
  }
}

void ConnectionFront::State::release_bulk_slot(Conn& c) {
  bool slot = false;
  {
    const std::lock_guard lock(c.mutex);
    slot = std::exchange(c.bulk_slot, false);
  }
  if (slot) bulk->release();
}

void ConnectionFront::State::close_conn(Conn& c) {
  bool slot = false;
  {
    const std::lock_guard lock(c.mutex);
    c.closed = true;
    slot = std::exchange(c.bulk_slot, false);
    close(c.fd);
  }
  if (slot) bulk->release();
  if (c.pending) handler.finished(*c.pending, 0, 0, 0);  // a delay whose client left
  const std::lock_guard lock(registry_mutex);
  conns.erase(c.id);
}

ConnectionFront::State::Flush ConnectionFront::State::flush(Conn& c, TimePoint now) {
  while (c.writing()) {
    c.next_piece();
    std::size_t body_room = c.body().size() - c.body_sent;
    if (c.trickle > 0 && c.head_sent == c.out_head.size()) {
      if (c.allowance == 0) {
        if (now < c.next_tick) return Flush::tick;
        c.allowance = c.trickle;
        c.next_tick = now + kTrickleTick;
      }
      body_room = std::min<std::uint64_t>(body_room, c.allowance);
    }
    iovec parts[2];
    int count = 0;
    if (c.head_sent < c.out_head.size())
      parts[count++] = {c.out_head.data() + c.head_sent, c.out_head.size() - c.head_sent};
    if (body_room > 0 && (c.trickle == 0 || count == 0))
      parts[count++] = {const_cast<char*>(c.body().data()) + c.body_sent, body_room};
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t sent = sendmsg(c.fd, &message, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? Flush::blocked : Flush::failed;
    }
    auto left = static_cast<std::size_t>(sent);
    const std::size_t head_part = std::min(left, c.out_head.size() - c.head_sent);
    c.head_sent += head_part;
    left -= head_part;
    c.body_sent += left;
    if (c.trickle > 0) c.allowance -= std::min<std::uint64_t>(c.allowance, left);
    c.last_progress = now;
  }
  // Sent: the buffers go back (a page of the whole collection is hundreds of megabytes).
  std::string().swap(c.out_body);
  c.out_source.reset();
  c.source_at = 0;
  c.out_held = {};
  if (c.out_head.capacity() > 4096) std::string().swap(c.out_head);
  c.out_head.clear();
  c.head_sent = c.body_sent = 0;
  c.trickle = 0;
  return Flush::done;
}

void ConnectionFront::State::queue(Conn& c, HttpResponse response, const std::string& method, int minor,
                                   bool keep_alive, std::uint64_t trickle) {
  std::string& head = c.out_head;
  head.clear();
  head.append("HTTP/1.1 ").append(std::to_string(response.status)).append(" ");
  head.append(reason_phrase(response.status)).append("\r\n").append(date_header());
  bool close = !keep_alive;
  bool chunked = false;  // a handler asking for Transfer-Encoding: chunked gets its body sent in chunks
  for (const auto& [name, value] : response.headers) {
    if (common::iequals_ascii(name, "Connection")) {
      close = close || common::iequals_ascii(value, "close");
      continue;  // written once, below
    }
    chunked = chunked ||
              (common::iequals_ascii(name, "Transfer-Encoding") && common::iequals_ascii(value, "chunked"));
    head.append(name).append(": ").append(value).append("\r\n");
  }
  // An answer without a length (HttpResponse::without_content_length): gunicorn's framing.
  const bool unframed = response.without_content_length && !no_body_status(response.status);
  if (response.source && (unframed || chunked)) {  // framed here: made whole first
    response.body = whole_body(response);
    response.source.reset();
  }
  if (unframed && minor == 1 && method != "HEAD" && !chunked) {
    chunked = true;
    head.append("Transfer-Encoding: chunked\r\n");
  }
  if (unframed && minor == 0 && method != "HEAD") close = true;  // the close ends the body
  chunked = chunked && minor == 1 && !no_body_status(response.status);
  if (!response.content_type.empty())
    head.append("Content-Type: ").append(response.content_type).append("\r\n");
  if (!no_body_status(response.status) && !chunked && !unframed)
    head.append("Content-Length: ").append(std::to_string(body_size(response))).append("\r\n");
  if (chunked && method != "HEAD") {
    std::string framed;
    constexpr std::size_t kChunk = 4096;
    for (std::size_t at = 0; at < response.body.size(); at += kChunk) {
      const std::size_t n = std::min(kChunk, response.body.size() - at);
      char size[20];
      framed.append(size, static_cast<std::size_t>(std::snprintf(size, sizeof size, "%zx\r\n", n)));
      framed.append(response.body, at, n).append("\r\n");
    }
    response.body = std::move(framed.append("0\r\n\r\n"));
  }
  if (close)
    head.append("Connection: close\r\n");
  else if (minor == 0)
    head.append("Connection: keep-alive\r\n");
  head.append("\r\n");
  c.take_body(response, method != "HEAD" && !no_body_status(response.status), trickle);
  c.allowance = 0;
  c.next_tick = c.last_progress = Clock::now();  // --send-timeout runs from the answer's start
  c.next_tick += kTrickleTick;
  c.close_after = c.close_after || close;
}

void ConnectionFront::State::answer(Conn& c, HttpRequest& request, const Plan& plan, int minor,
                                    bool keep_alive, TimePoint admitted) {
  if (plan.drop) {
    handler.finished(request, 0, 0, 0);
    close_conn(c);
    return;
  }
  if (bulky(request)) return to_bulk_lane(c, request, plan, minor, keep_alive, admitted);
  deliver(c, request, handler.respond(request, plan), plan, minor, keep_alive, admitted);
}

void ConnectionFront::State::deliver(Conn& c, const HttpRequest& request, HttpResponse response,
                                     const Plan& plan, int minor, bool keep_alive, TimePoint admitted) {
  const std::uint64_t bytes = request.method == "HEAD" ? 0 : body_size(response);
  const int status = response.status;
  queue(c, std::move(response), request.method, minor, keep_alive, plan.slow_body_bps / 10);
  handler.finished(request, status, bytes,
                   std::chrono::duration<double, std::milli>(Clock::now() - admitted).count());
}

// A GET or HEAD asking for more than --bulk-records records (DRF's limit, as the page will read it).
bool ConnectionFront::State::bulky(const HttpRequest& request) const {
  if (!bulk || options.bulk_records == 0 || (request.method != "GET" && request.method != "HEAD"))
    return false;
  const std::size_t query = request.target.find('?');
  if (query == std::string::npos) return false;
  const std::string_view rest = std::string_view(request.target).substr(query + 1);
  return read_window(common::parse_query(rest.substr(0, rest.find('#')))).limit.saturated() >
         options.bulk_records;
}

// The answer is made on the bulk lane; the connection waits for it as for a delay (holding no worker),
// and a worker sends it once computed() hands it back.
void ConnectionFront::State::to_bulk_lane(Conn& c, HttpRequest& request, const Plan& plan, int minor,
                                          bool keep_alive, TimePoint admitted) {
  std::shared_ptr<Conn> conn = find(c.id);
  c.pending = request;
  c.pending_plan = plan;
  c.pending_minor = minor;
  c.pending_keep_alive = keep_alive;
  c.admitted_at = admitted;
  c.computing = true;
  bulk->run([this, conn = std::move(conn), job = std::move(request), plan] {
    bool gone = !conn;
    if (conn) {
      const std::lock_guard lock(conn->mutex);
      gone = conn->closed;
    }
    if (gone) return bulk->release();  // its client left while it waited: not computed
    computed(conn, handler.respond(job, plan));
  });
}

// On the bulk lane: the answer goes to its connection, which a worker then serves (as fire() hands over
// a delay that is over). A connection closed meanwhile was journalled as dropped when it closed.
void ConnectionFront::State::computed(const std::shared_ptr<Conn>& conn, HttpResponse response) {
  if (!conn) return;
  Conn& c = *conn;
  {
    const std::lock_guard lock(c.mutex);
    if (c.closed) return bulk->release();
    c.computed = std::move(response);
    c.bulk_slot = true;
    if (c.busy) {
      c.wake = true;
      return;
    }
    c.busy = true;
  }
  make_ready(c.id);
}

void ConnectionFront::State::admit(Conn& c, ParsedRequest parsed) {
  HttpRequest request;
  request.method = std::move(parsed.method);
  request.target = std::move(parsed.target);
  request.headers = std::move(parsed.headers);
  request.body = std::move(parsed.body);
  request.server_authority = authority;
  const TimePoint now = Clock::now();
  Admission admission = handler.admit(request);
  if (admission.response) {
    const int status = admission.response->status;
    const std::uint64_t bytes = request.method == "HEAD" ? 0 : body_size(*admission.response);
    queue(c, std::move(*admission.response), request.method, parsed.minor_version, parsed.keep_alive, 0);
    handler.finished(request, status, bytes,
                     std::chrono::duration<double, std::milli>(Clock::now() - now).count());
    return;
  }
  if (admission.plan.delay.count() > 0) {
    c.pending = std::move(request);
    c.pending_plan = admission.plan;
    c.pending_minor = parsed.minor_version;
    c.pending_keep_alive = parsed.keep_alive;
    c.delay_until = now + admission.plan.delay;
    c.admitted_at = now;
    return;
  }
  answer(c, request, admission.plan, parsed.minor_version, parsed.keep_alive, now);
}

// Moves a connection on as far as it can go without waiting: writes what is queued, answers what is
// whole, reads what is there (until the socket is empty, so that the next byte brings an edge). Leaves
// in c.next_deadline when it must be looked at again if no byte comes.
void ConnectionFront::State::serve(Conn& c, std::uint32_t events) {
  thread_local std::vector<char> chunk(kReadChunk);
  TimePoint now = Clock::now();
  c.next_deadline = kNever;
  if (events & EPOLLIN) c.maybe_more = true;
  if ((events & EPOLLERR) || ((events & EPOLLHUP) && !(events & EPOLLIN))) return close_conn(c);
  if (events & (EPOLLRDHUP | EPOLLHUP)) {
    c.maybe_more = true;  // the end of the stream is there to be read
    c.hung_up = true;
  }
  // Each step hands on to the next, starts the round again, or stops (closed, or c.next_deadline set).
  for (;;) {
    bool in_body = false;
    Turn turn = drain_lingering(c, now, chunk);
    if (turn == Turn::next_step) turn = write_queued(c, now);
    if (turn == Turn::next_step) turn = begin_close(c, now);
    if (turn == Turn::next_step) turn = answer_delayed(c, now);
    if (turn == Turn::next_step) turn = advance_request(c, now, in_body);
    if (turn == Turn::next_step) turn = keep_time(c, now, in_body);
    if (turn == Turn::next_step) turn = read_more(c, now, chunk);
    if (turn == Turn::stop) return;
  }
}

// After the last answer of a connection: read and drop what still comes, for a while, then close.
ConnectionFront::State::Turn ConnectionFront::State::drain_lingering(Conn& c, TimePoint now,
                                                                     std::vector<char>& chunk) {
  if (!c.lingering) return Turn::next_step;
  for (std::size_t reads = 0;; ++reads) {
    if (reads == kLingerReadsPerTurn) {  // more later: the timer brings it back at once
      c.next_deadline = now;
      return Turn::stop;
    }
    const ssize_t n = recv(c.fd, chunk.data(), chunk.size(), 0);
    if (n > 0 && now < c.linger_end) {
      c.linger_until = std::min(now + kLingerTime, c.linger_end);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && now < c.linger_until) {
      c.next_deadline = c.linger_until;
      return Turn::stop;
    }
    close_conn(c);
    return Turn::stop;
  }
}

// Sends what is queued; a client that takes none of it for --send-timeout is closed. Once that time is up
// (the timer brings the connection here) it is closed without a last try: a stalled socket's buffer grows and
// would take a few hundred KB more, which counted as progress and closed a client that read nothing only
// after twice --send-timeout (issue 43).
ConnectionFront::State::Turn ConnectionFront::State::write_queued(Conn& c, TimePoint now) {
  if (!c.writing()) return Turn::next_step;
  if (now - c.last_progress >= Millis(options.limits.send_timeout_ms)) return close_conn(c), Turn::stop;
  const Flush result = flush(c, now);
  if (result == Flush::failed) return close_conn(c), Turn::stop;
  if (result == Flush::blocked || result == Flush::tick) {
    c.next_deadline =
        result == Flush::tick ? c.next_tick : c.last_progress + Millis(options.limits.send_timeout_ms);
    return Turn::stop;
  }
  c.idle_since = now;
  release_bulk_slot(c);  // the answer is sent: its body is freed
  return Turn::next_step;
}

// Once the last answer is out: close, or shut the sending side and linger.
ConnectionFront::State::Turn ConnectionFront::State::begin_close(Conn& c, TimePoint now) {
  if (!c.close_after) return Turn::next_step;
  // Bytes the client sent that nobody read would turn the close into a reset, which can destroy
  // the answer before the client reads it: shut the sending side, then drain for a while.
  if (c.in.empty() && !c.parser.started() && !c.maybe_more) return close_conn(c), Turn::stop;
  shutdown(c.fd, SHUT_WR);
  c.lingering = true;
  c.linger_until = now + kLingerTime;
  c.linger_end = now + kLingerMax;
  std::string().swap(c.in);
  return Turn::again;
}

// A request admitted with a delay: answered when the delay is over.
ConnectionFront::State::Turn ConnectionFront::State::answer_delayed(Conn& c, TimePoint& now) {
  if (!c.pending) return Turn::next_step;
  if (c.computing) {  // on the bulk lane: nothing to do until computed() hands the answer back
    std::optional<HttpResponse> response;
    {
      const std::lock_guard lock(c.mutex);
      response.swap(c.computed);
    }
    if (!response) return c.next_deadline = kNever, Turn::stop;
    c.computing = false;
    HttpRequest request = std::move(*c.pending);
    c.pending.reset();
    deliver(c, request, std::move(*response), c.pending_plan, c.pending_minor, c.pending_keep_alive,
            c.admitted_at);
    if (c.closed) return Turn::stop;
    now = Clock::now();
    return Turn::again;
  }
  // A delay ends at its time, or when the client shuts its side (it left, or it waits for the
  // answer of a half-closed request: either way there is nothing more to wait for).
  if (now < c.delay_until && !c.peer_eof && !c.hung_up) {
    c.next_deadline = c.delay_until;
    return Turn::stop;
  }
  HttpRequest request = std::move(*c.pending);
  c.pending.reset();
  answer(c, request, c.pending_plan, c.pending_minor, c.pending_keep_alive, c.admitted_at);
  if (c.closed) return Turn::stop;
  now = Clock::now();
  return Turn::again;
}

// Parses what came: a refusal, a 100 Continue, or a whole request admitted.
ConnectionFront::State::Turn ConnectionFront::State::advance_request(Conn& c, TimePoint& now, bool& in_body) {
  const RequestParser::State state = c.parser.advance(c.in);
  if (c.parser.started() && !c.timing) {
    c.timing = true;
    c.request_began = c.last_read = now;
  }
  if (state == RequestParser::State::failed) {
    const ParseError& error = c.parser.error();
    c.out_head = refusal(error.status, error.message);
    c.head_sent = 0;
    c.close_after = true;
    return Turn::again;
  }
  if (c.parser.wants_continue() && !c.continue_sent) {
    c.continue_sent = true;
    c.out_head = "HTTP/1.1 100 Continue\r\n\r\n";
    c.head_sent = 0;
    return Turn::again;
  }
  if (state == RequestParser::State::complete) {
    std::size_t consumed = 0;
    ParsedRequest parsed = c.parser.take(consumed);
    c.in.erase(0, consumed);
    if (c.in.empty() && c.in.capacity() > 4096) std::string().swap(c.in);
    c.timing = c.continue_sent = false;
    admit(c, std::move(parsed));
    if (c.closed) return Turn::stop;
    now = Clock::now();
    return Turn::again;
  }
  in_body = state == RequestParser::State::body;
  return Turn::next_step;
}

// The request is not whole yet: --head-timeout and keep-alive's clock, and when to look again.
ConnectionFront::State::Turn ConnectionFront::State::keep_time(Conn& c, TimePoint now, bool in_body) {
  if (c.timing &&
      (in_body ? now - c.last_read : now - c.request_began) >= Millis(options.limits.head_timeout_ms)) {
    c.out_head =
        refusal(408, std::string(in_body ? "the body paused" : "the request head took") + " longer than " +
                         std::to_string(options.limits.head_timeout_ms) + " ms (--head-timeout)");
    c.head_sent = 0;
    c.close_after = true;
    return Turn::again;
  }
  // A connection that never sent a byte may wait as long as a head may take (nginx's
  // client_header_timeout runs from the accept); one that did, as long as keep-alive allows.
  const Millis idle_limit = c.last_read == TimePoint{} ? Millis(options.limits.head_timeout_ms)
                                                       : Millis(options.limits.keep_alive_timeout_ms);
  if (!c.timing && now - c.idle_since >= idle_limit) return close_conn(c), Turn::stop;
  // The client is done: answered all it sent, or left mid-request.
  if (c.peer_eof) return close_conn(c), Turn::stop;
  if (!c.maybe_more) {
    c.next_deadline = !c.timing ? c.idle_since + idle_limit
                      : in_body ? c.last_read + Millis(options.limits.head_timeout_ms)
                                : c.request_began + Millis(options.limits.head_timeout_ms);
    return Turn::stop;
  }
  return Turn::next_step;
}

// Reads what the socket holds, up to a chunk.
ConnectionFront::State::Turn ConnectionFront::State::read_more(Conn& c, TimePoint now,
                                                               std::vector<char>& chunk) {
  const ssize_t n = recv(c.fd, chunk.data(), chunk.size(), 0);
  if (n > 0) {
    c.in.append(chunk.data(), static_cast<std::size_t>(n));
    c.maybe_more = static_cast<std::size_t>(n) == chunk.size() || c.hung_up;  // read on to the end
    c.last_read = now;
    return Turn::again;
  }
  if (n == 0) {
    c.peer_eof = true;
    c.maybe_more = false;
    return Turn::again;
  }
  if (errno == EINTR) return Turn::again;
  if (errno == EAGAIN || errno == EWOULDBLOCK) {
    c.maybe_more = false;
    return Turn::again;
  }
  close_conn(c);
  return Turn::stop;
}

ConnectionFront::ConnectionFront(FrontOptions options, FrontHandler& handler)
    : state_(std::make_unique<State>(std::move(options), handler)) {}

ConnectionFront::~ConnectionFront() {
  stop();
  for (const int fd :
       {state_->listen_fd, state_->epoll_fd, state_->ready_fd, state_->stop_fd, state_->reserve_fd})
    if (fd >= 0) close(fd);
}

namespace {

// Thousands of clients each need a descriptor: take all the process may have.
void take_every_descriptor() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// A socket listening on host:port (the first address of it that binds), or std::runtime_error saying why not.
int listening_socket(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
    throw std::runtime_error("cannot listen on " + where + " (not an address of this machine?)");
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR for quick restarts; never SO_REUSEPORT, which would let a second mock share the port.
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    throw std::runtime_error("cannot listen on " + where + " (in use, or not an address of this machine?)");
  return fd;
}

// The port a socket is bound to (the one the system picked for port 0).
int bound_port(int fd) {
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size);
  return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace

int ConnectionFront::bind() {
  State& s = *state_;
  if (s.listen_fd >= 0) return s.options.port;
  take_every_descriptor();
  const int fd = listening_socket(s.options.host, s.options.port);
  s.options.port = bound_port(fd);
  set_nonblocking(fd);
  s.listen_fd = fd;
  s.authority = s.options.host + ":" + std::to_string(s.options.port);
  s.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  s.ready_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  s.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  s.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (s.epoll_fd < 0 || s.ready_fd < 0 || s.stop_fd < 0) throw std::runtime_error("cannot set up epoll");
  if (s.stopping) {  // stop() came first: run() returns at once
    const std::uint64_t one = 1;
    (void)!write(s.stop_fd, &one, sizeof one);
  }
  // Keep headroom for the files the service opens (state, datasets) under the descriptor limit.
  if (rlimit limit{};
      getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur > 128)
    s.options.limits.max_connections =
        std::min<std::size_t>(s.options.limits.max_connections, limit.rlim_cur - 64);
  s.arm(s.listen_fd, EPOLLIN, kListen, EPOLL_CTL_ADD);
  s.arm(s.ready_fd, EPOLLIN, kReady, EPOLL_CTL_ADD);
  epoll_event stop_event{};
  stop_event.events = EPOLLIN;  // level-triggered: every worker sees it
  stop_event.data.u64 = kStop;
  epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, s.stop_fd, &stop_event);
  return s.options.port;
}

bool ConnectionFront::run() {
  State& s = *state_;
  if (s.listen_fd < 0) return false;
  std::thread timer([&s] { s.timer_loop(); });
  s.bulk.emplace(s.options.bulk_records > 0 ? bulk_thread_count() : 0);
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < std::max<std::size_t>(1, s.options.threads); ++i)
    workers.emplace_back([&s] { s.worker(); });
  s.worker();
  for (auto& w : workers)
    w.join();
  {
    const std::lock_guard lock(s.timer_mutex);
    s.stopping = true;
  }
  s.timer_cv.notify_all();
  timer.join();
  s.bulk->stop();  // an answer under way is finished first
  // Delays and bulk answers under way end without an answer; every connection is closed.
  const std::lock_guard lock(s.registry_mutex);
  for (auto& [id, conn] : s.conns)
    close(conn->fd);
  s.conns.clear();
  return true;
}

void ConnectionFront::stop() {
  State& s = *state_;
  {
    const std::lock_guard lock(s.timer_mutex);
    s.stopping = true;
  }
  s.timer_cv.notify_all();
  if (s.stop_fd >= 0) {
    const std::uint64_t one = 1;
    (void)!write(s.stop_fd, &one, sizeof one);
  }
}

}  // namespace entimg::mock::detail

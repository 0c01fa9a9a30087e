// The WebAssembly front's C ABI over the mock's own core (detail::MockApp around Service::handle): the
// JavaScript package (mock/npm/) creates a mock from its options, hands each request in as bytes and
// gets the plan and the answer back as bytes. Single-threaded: one call at a time. docs/npm.md.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/live_dataset.hpp"
#include "entimg/mock/service.hpp"
#include "fault_statuses.hpp"
#include "flags.hpp"

namespace entimg::mock::wasm {
namespace {

EM_JS(void, js_log, (const char* line, std::size_t size), {
  if (Module.onLog) Module.onLog(UTF8ToString(line, size));
});

// Length-prefixed fields (u32, little-endian, as WebAssembly stores them) in both directions.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint32_t u32() {
    if (size_ - at_ < 4) throw std::runtime_error("request bytes end early");
    std::uint32_t v = 0;
    std::memcpy(&v, data_ + at_, 4);
    at_ += 4;
    return v;
  }
  std::string text() {
    const std::uint32_t n = u32();
    if (size_ - at_ < n) throw std::runtime_error("request bytes end early");
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

void put_text(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

// The body of the last answer a call returned, where its reply points: valid until the next call.
std::string held_body;
// The head (reason, content type, headers) of the last answer, and its serial: a head the same as the last
// one's keeps its serial, so that the front reads its texts again without decoding them (a list page's head
// always is). Serial 0 is no head.
std::string last_head;
std::uint32_t head_serial = 0;

// The answer: status, flags, the head's serial, the body's length and address, then the head (reason, content
// type, header count, headers: u32-length texts). The body is not copied into the reply: it is kept (moved)
// in held_body, which the front reads in place.
void put_response(std::string& out, HttpResponse& r) {
  std::size_t size = 64 + r.content_type.size();
  for (const auto& [name, value] : r.headers)
    size += 8 + name.size() + value.size();
  out.reserve(out.size() + size);  // one allocation at most, not the string's doublings
  // A body made in pieces (a picture of its file's size) is made whole here: the front reads it in place.
  held_body = r.source ? whole_body(r) : std::move(r.body);
  put_u32(out, static_cast<std::uint32_t>(r.status));
  put_u32(out, r.without_content_length ? 1u : 0u);  // flags: bit 0, framed without Content-Length
  const std::size_t serial_at = out.size();
  put_u32(out, 0);
  put_u32(out, static_cast<std::uint32_t>(held_body.size()));
  put_u32(out, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(held_body.data())));
  const std::size_t head_at = out.size();
  put_text(out, reason_phrase(r.status));
  put_text(out, r.content_type);
  put_u32(out, static_cast<std::uint32_t>(r.headers.size()));
  for (const auto& [name, value] : r.headers) {
    put_text(out, name);
    put_text(out, value);
  }
  const std::string_view head(out.data() + head_at, out.size() - head_at);
  if (head_serial == 0 || head != last_head) {
    last_head.assign(head);
    ++head_serial;
  }
  std::memcpy(out.data() + serial_at, &head_serial, 4);
}

struct Pending {
  HttpRequest request;
  Plan plan;
};

struct Mock {
  std::shared_ptr<LiveDataset> dataset;
  std::shared_ptr<const Service> service;
  std::unique_ptr<detail::MockApp> app;
  std::map<std::uint32_t, Pending> pending;  // admitted, not yet finished
  std::uint32_t next_ticket = 1;
};

std::map<int, std::unique_ptr<Mock>> mocks;
int next_mock = 1;
// The bytes the last call returns, after their length (u32): valid until the next call. The request bytes
// go into `input`, which the front asks for once (mock_input) and reuses, so a request costs one call.
std::string result;
std::string input;

// A result written in place: begin_reply() leaves room for the length, end_reply() fills it in. An answer's
// body stays where the core made it (held_body): the front copies it once, out of the WebAssembly memory.
std::string& begin_reply(char kind) {
  result.assign(4, '\0');
  result.push_back(kind);
  return result;
}

const char* end_reply() {
  const auto size = static_cast<std::uint32_t>(result.size() - 4);
  std::memcpy(result.data(), &size, 4);
  return result.data();
}

const char* reply(std::string_view bytes) {
  result.assign(4, '\0');
  result.append(bytes);
  return end_reply();
}

// A flag row's value in createMock()'s JSON (mock/npm/options.js checked it against the row): `value`
// into the member of Options the row's field or fault keys name; a two-key knob (latency) takes an array.
template <typename Member>
void set_member(Member& member, const nlohmann::json& value) {
  if constexpr (std::is_arithmetic_v<Member> || std::is_same_v<Member, std::string> ||
                std::is_same_v<Member, std::vector<std::string>>)
    member = value.get<Member>();
}

void set_from_row(const detail::Flag& flag, const nlohmann::json& value, Options& options) {
  std::visit(
      [&](auto field) {
        if constexpr (!std::is_same_v<decltype(field), std::monostate>) set_member(field(options), value);
      },
      flag.field);
  for (std::size_t i = 0; i < flag.keys.size(); ++i)
    if (!flag.keys[i].name.empty())
      std::visit(
          [&](auto member) { set_member(options.faults.*member, value.is_array() ? value.at(i) : value); },
          flag.keys[i].field);
}

// The options, already checked by the JavaScript front (mock/npm/options.js) against the flag rows
// (mock_flags), as one JSON object keyed by the rows' npm names. Where a flag's value is not one member
// (the collection, the user, the churn) it is read here by name.
std::unique_ptr<Mock> make_mock(const nlohmann::json& o) {
  Options options;
  for (const detail::Flag& flag : detail::kFlags)
    if (!flag.npm.empty() && o.contains(flag.npm)) set_from_row(flag, o.at(flag.npm), options);
  options.faults.seed = options.seed;  // --seed draws the faults too
  std::shared_ptr<const Dataset> dataset;
  if (o.contains("dataset"))
    dataset = load_dataset_text(o.at("dataset").get<std::string>(), o.value("datasetName", "dataset"));
  else
    dataset = make_generated_dataset(options.records, options.seed);
  if (o.contains("churn")) {
    const auto churn = o.at("churn").get<std::array<std::uint32_t, 2>>();
    dataset = make_churn_dataset(std::move(dataset), churn[0], churn[1], options.seed);
  }
  auto mock = std::make_unique<Mock>();
  mock->dataset = std::make_shared<LiveDataset>(dataset, std::nullopt, kMaxFileBytes, options.upload_bytes);
  std::optional<User> user;
  if (o.contains("user"))
    user = User{o.at("user").at(0).get<std::string>(), o.at("user").at(1).get<std::string>()};
  mock->service =
      std::make_shared<const Service>(mock->dataset, user, ServiceOptions{options.sized_pictures});

  const std::string log = o.value("log", "none");
  options.log = log == "text" ? LogFormat::text : log == "json" ? LogFormat::json : LogFormat::none;
  const auto service = mock->service;
  mock->app = std::make_unique<detail::MockApp>(
      [service](const HttpRequest& request) { return service->handle(request); }, options,
      [](const std::string& line) { js_log(line.data(), line.size()); });
  mock->app->set_reset_uploads([service] { return service->reset_uploads(); });
  return mock;
}

// The highest value the member a row sets can hold here (std::size_t is 32 bits in WebAssembly).
std::uint64_t highest_held(const detail::Flag& flag) {
  std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  const auto cap = [&](const auto& member) {
    using Member = std::remove_cvref_t<decltype(member)>;
    if constexpr (std::is_integral_v<Member>)
      most = std::min<std::uint64_t>(most, std::numeric_limits<Member>::max());
  };
  Options options;
  std::visit(
      [&](auto field) {
        if constexpr (!std::is_same_v<decltype(field), std::monostate>) cap(field(options));
      },
      flag.field);
  for (const detail::KnobKey& key : flag.keys)
    if (!key.name.empty()) std::visit([&](auto member) { cap(options.faults.*member); }, key.field);
  return std::min(flag.high, most);
}

// A row's value at the start, when --help shows it: the member's initializer in Options.
nlohmann::json default_of(const detail::Flag& flag) {
  nlohmann::json out;
  const auto take = [&](const auto& member) {
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(member)>>) out = member;
  };
  Options options;
  std::visit(
      [&](auto field) {
        if constexpr (!std::is_same_v<decltype(field), std::monostate>) take(field(options));
      },
      flag.field);
  if (!flag.keys[0].name.empty())
    std::visit([&](auto member) { take(options.faults.*member); }, flag.keys[0].field);
  return flag.shows_default ? out : nlohmann::json();
}

constexpr std::array<std::string_view, 12> kKindNames{"whole", "share",   "status", "latency",
                                                      "text",  "origins", "flag",   "log",
                                                      "user",  "churn",   "config", "help"};

// The whole-number flags npx's own front reads (kNpxFront: --port, --max-body, --head-timeout, ...): flag,
// value, help, range and default, by which the npx front checks and shows them.
nlohmann::json front_rows() {
  nlohmann::json rows = nlohmann::json::array();
  for (const detail::Flag& flag : detail::kFlags) {
    if (flag.kind != detail::FlagKind::whole ||
        std::find(detail::kNpxFront.begin(), detail::kNpxFront.end(), flag.name) == detail::kNpxFront.end())
      continue;
    nlohmann::json row = {{"flag", flag.name}, {"type", flag.type_name}, {"help", flag.help},
                          {"what", flag.what}, {"low", flag.low},        {"high", std::to_string(flag.high)}};
    if (const auto value = default_of(flag); !value.is_null()) row["default"] = value;
    rows.push_back(std::move(row));
  }
  return rows;
}

// The rows the npm mock takes, as JSON: what options.js checks createMock()'s options and the npx flags by
// ("high" as digits: a seed's 2^64-1 is no JavaScript number); the flags npx's front reads; and the flags
// npx refuses, with the reason.
std::string flag_table() {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::ordered_json native_only = nlohmann::ordered_json::object();  // in the table's order
  for (const detail::Flag& flag : detail::kFlags) {
    if (!flag.npm_absent.empty()) native_only[std::string(flag.name)] = flag.npm_absent;
    if (flag.npm.empty()) continue;
    nlohmann::json row = {
        {"name", flag.npm},       {"flag", flag.name},
        {"type", flag.type_name}, {"help", flag.help},
        {"what", flag.what},      {"kind", kKindNames.at(static_cast<std::size_t>(flag.kind))},
        {"low", flag.low},        {"high", std::to_string(highest_held(flag))}};
    if (const auto value = default_of(flag); !value.is_null()) row["default"] = value;
    if (flag.kind == detail::FlagKind::status) {
      row["choices"] = nlohmann::json::array();
      for (const detail::FaultStatus& s : detail::kFaultStatuses)
        row["choices"].push_back(s.status);
      row["help"] = detail::fault_status_choices();
    }
    rows.push_back(std::move(row));
  }
  return R"({"options":)" + rows.dump() + R"(,"front":)" + front_rows().dump() + R"(,"nativeOnly":)" +
         native_only.dump() + "}";
}

Mock* find(int id) {
  const auto it = mocks.find(id);
  if (it == mocks.end()) throw std::runtime_error("no such mock (closed?)");
  return it->second.get();
}

// "E" then the message: what a call returns when it throws, for the front to raise as an Error.
const char* failed(const std::exception& e) {
  return reply(std::string("E") + e.what());
}

}  // namespace
}  // namespace entimg::mock::wasm

using namespace entimg::mock;
using namespace entimg::mock::wasm;

extern "C" {

/// Where the front writes the next call's input: `size` bytes, valid until a larger size is asked for.
/// Each call below returns its result: a u32 length, then "E" and a message, or its answer.
EMSCRIPTEN_KEEPALIVE char* mock_input(std::size_t size) {
  input.resize(size);
  return input.data();
}

/// Creates a mock from its options (JSON); the result is "O" and its id as text, or "E" and why not.
EMSCRIPTEN_KEEPALIVE const char* mock_create(std::size_t size) {
  try {
    const auto o = nlohmann::json::parse(std::string_view(input.data(), size));
    mocks.emplace(next_mock, make_mock(o));
    return reply("O" + std::to_string(next_mock++));
  } catch (const std::exception& e) {
    return failed(e);
  }
}

EMSCRIPTEN_KEEPALIVE void mock_close(int id) {
  mocks.erase(id);
}

/// "R" + the answer a failing deployment gives for `status` (nginx's 413 for a body over --max-body).
EMSCRIPTEN_KEEPALIVE const char* mock_failure(int status) {
  HttpResponse response = failure_response(status);
  put_response(begin_reply('R'), response);
  return end_reply();
}

/// A request arrives: "A" + ticket, delay ms, drop, slow-body bytes/s (u32 each), then 1 and the answer
/// when it is known at once (a preflight, an admin route, a refused X-Mock-* header), else 0. With `serve`
/// (a front that answers at once, with no log or journal to time), a request its plan does not hold back
/// (no delay, no drop, no slow body) is answered and finished in the same call: 2 and the answer.
/// The request bytes: method, target, authority, body, header count, then name and value (u32 length each).
EMSCRIPTEN_KEEPALIVE const char* mock_admit(int id, std::size_t size, int serve) {
  try {
    Mock& mock = *find(id);
    Reader in(reinterpret_cast<const std::uint8_t*>(input.data()), size);
    Pending p;
    p.request.method = in.text();
    p.request.target = in.text();
    p.request.server_authority = in.text();
    p.request.body = in.text();
    const std::uint32_t headers = in.u32();
    for (std::uint32_t i = 0; i < headers; ++i) {
      std::string name = in.text();
      p.request.headers.emplace_back(std::move(name), in.text());
    }
    detail::Admission admission = mock.app->admit(p.request);
    const std::uint32_t ticket = mock.next_ticket++;
    std::string& out = begin_reply('A');
    put_u32(out, ticket);
    put_u32(out, static_cast<std::uint32_t>(admission.plan.delay.count()));
    put_u32(out, admission.plan.drop ? 1 : 0);
    put_u32(out, static_cast<std::uint32_t>(admission.plan.slow_body_bps));
    if (admission.response) {
      put_u32(out, 1);
      put_response(out, *admission.response);
    } else if (serve != 0 && admission.plan.delay.count() == 0 && !admission.plan.drop &&
               admission.plan.slow_body_bps == 0) {
      HttpResponse response = mock.app->respond(p.request, admission.plan);
      const bool no_body = p.request.method == "HEAD" || response.status == 204 || response.status == 205 ||
                           response.status == 304;
      mock.app->finished(p.request, response.status, no_body ? 0 : body_size(response), 0.0);
      put_u32(out, 2);
      put_response(out, response);
      return end_reply();  // finished: nothing pending
    } else {
      put_u32(out, 0);
    }
    p.plan = std::move(admission.plan);
    mock.pending.emplace(ticket, std::move(p));
    return end_reply();
  } catch (const std::exception& e) {
    return failed(e);
  }
}

/// The answer once the delay is over: "R" + status, reason phrase, content type, header count, headers,
/// body.
EMSCRIPTEN_KEEPALIVE const char* mock_respond(int id, std::uint32_t ticket) {
  try {
    Mock& mock = *find(id);
    const auto it = mock.pending.find(ticket);
    if (it == mock.pending.end()) throw std::runtime_error("no such request");
    HttpResponse response = mock.app->respond(it->second.request, it->second.plan);
    put_response(begin_reply('R'), response);
    return end_reply();
  } catch (const std::exception& e) {
    return failed(e);
  }
}

/// After the answer left (status 0: dropped): the journal and the log; the request is forgotten.
EMSCRIPTEN_KEEPALIVE void mock_finished(int id, std::uint32_t ticket, int status, double body_bytes,
                                        double milliseconds) {
  const auto m = mocks.find(id);
  if (m == mocks.end()) return;
  const auto it = m->second->pending.find(ticket);
  if (it == m->second->pending.end()) return;
  m->second->app->finished(it->second.request, status, static_cast<std::uint64_t>(body_bytes), milliseconds);
  m->second->pending.erase(it);
}

/// "O" + the flag rows the npm mock takes, as a JSON object: "options", an array (name, flag, type, help,
/// what, kind, low, high, default, choices), by which the package's options.js checks options; "front", the
/// whole-number flags of npx's own front (flag, type, help, what, low, high, default); "nativeOnly", the
/// flags npx refuses and why (read once, when the package is built).
EMSCRIPTEN_KEEPALIVE const char* mock_flags() {
  try {
    return reply("O" + flag_table());
  } catch (const std::exception& e) {
    return failed(e);
  }
}

/// "O" + a line describing the collection, e.g. "300000 generated records (seed 1)".
EMSCRIPTEN_KEEPALIVE const char* mock_describe(int id) {
  try {
    return reply("O" + find(id)->dataset->describe());
  } catch (const std::exception& e) {
    return failed(e);
  }
}

}  // extern "C"

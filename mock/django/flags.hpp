#pragma once
// The mock's flags declared once: each row gives a flag's name, value, help, range, where its value goes
// in Options, whether --config and PUT /__mock/faults take it and the X-Mock-* header that asks for it one
// request at a time. The command line (cli.cpp: CLI11's options, their checks, --config, --help and so the
// man page) and the admin routes (admin.cpp: GET and PUT /__mock/faults, their checks and messages) read
// it; a test holds docs/mock.md to it. A default is the member's initializer in Options (options.hpp).
#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "entimg/mock/faults.hpp"
#include "entimg/mock/options.hpp"

namespace entimg::mock::detail {

inline constexpr std::uint64_t kMaxDelayMs = 3'600'000;             ///< --latency's and --max-delay's top
inline constexpr std::uint64_t kMaxBytesPerSecond = 1'000'000'000;  ///< --slow-body's and X-Mock-Slow-Body's
inline constexpr std::uint64_t kMaxRecords = 1'000'000'000'000ULL;  ///< ids stay far inside 64 bits
inline constexpr std::uint64_t kMaxChurn = 100'000;        ///< --churn's inserts and deletes a minute
inline constexpr std::uint64_t kMaxConfigBytes = 1 << 20;  ///< --config FILE's size (read before the flags)

/// What a flag's value is, which decides how it is read and checked.
enum class FlagKind {
  whole,    ///< a whole number from low to high (PUT also takes 0, the value at the start: off)
  share,    ///< a number from 0 to 1
  status,   ///< one of kFaultStatuses
  latency,  ///< "MS[:JITTER]" on the command line, low..high each; in PUT two keys, each up to --max-delay
  text,     ///< a string that is not empty
  origins,  ///< a list of '*' or origins (--cors)
  flag,     ///< no value: sets a bool
  log,      ///< no value: sets the request log's format to log_format
  user,     ///< NAME:PASSWORD
  churn,    ///< INSERTS:DELETES a minute, each up to kMaxChurn, not both 0
  config,   ///< --config FILE
  help,     ///< -h,--help
};

/// Where a flag's value goes: a function returning the member of Options it sets. The alternatives are
/// the flags' value types, spelled as built-in types so that std::size_t and std::uint64_t make one
/// alternative where they are one type (64-bit Linux) and two where they are not (WebAssembly).
using Field =
    std::variant<std::monostate, std::string& (*)(Options&), int& (*)(Options&), unsigned& (*)(Options&),
                 unsigned long& (*)(Options&), unsigned long long& (*)(Options&), double& (*)(Options&),
                 bool& (*)(Options&), std::optional<std::filesystem::path>& (*)(Options&),
                 std::vector<std::string>& (*)(Options&)>;

/// The member reached through `Members`: at<&Options::limits, &ConnectionLimits::max_body> is
/// o.limits.max_body.
template <auto... Members>
inline constexpr auto at = +[](Options& o) -> auto& {
  return (o.*....*Members);
};

/// A FaultOptions field and its name in GET and PUT /__mock/faults.
using KnobField = std::variant<std::uint32_t FaultOptions::*, std::uint64_t FaultOptions::*,
                               int FaultOptions::*, double FaultOptions::*>;
struct KnobKey {
  std::string_view name;  ///< empty: no key
  KnobField field;
};

/// One flag.
struct Flag {
  std::string_view name;  ///< "--port"
  /// Its createMock() option in the npm package ("maxDelay"), when the npm mock takes it: the package reads
  /// these rows from the WebAssembly core (mock/wasm/binding.cpp, mock_flags) and checks its options by them.
  std::string_view npm = {};
  /// Why `npx entities-images-mock` refuses it (it says so and exits 2), for a flag the npm package has no
  /// use for; empty when it takes it: an option (npm above) or a flag of the npx front (kNpxFront).
  std::string_view npm_absent = {};
  std::string_view type_name = {};  ///< what --help shows after it: "N"
  std::string_view help;            ///< empty for --fail-status: kFaultStatuses says it
  std::string_view group;           ///< the --help section
  FlagKind kind;
  /// Where the value goes; empty for a fault knob (its first key's field in Options::faults) and for the
  /// kinds cli.cpp reads itself (latency, user, churn, log, config, help).
  Field field = {};
  std::uint64_t low = 0, high = 0;   ///< a whole number's range on the command line
  std::string_view what = {};        ///< how the checks name the value: "a port number" (from LOW to HIGH)
  bool shows_default = false;        ///< --help shows "=DEFAULT"
  std::string_view excludes = {};    ///< the flag it cannot be used with
  bool in_config = true;             ///< --config FILE takes it as a key
  std::array<KnobKey, 2> keys = {};  ///< a fault knob's keys in GET /__mock/faults
  bool in_put = false;               ///< PUT /__mock/faults takes those keys
  std::string_view header = {};      ///< the X-Mock-* request header that asks for it one request at a time
  LogFormat log_format = LogFormat::text;  ///< what a `log` flag sets
};

/// The flags `npx entities-images-mock` reads itself (mock/npm/bin/entities-images-mock.js): Node's server
/// where the native front's would be. Every other row is a createMock() option (npm) or says why npx
/// refuses it (npm_absent); mock/tests/cli_test.cpp holds the table to that.
inline constexpr std::array<std::string_view, 13> kNpxFront = {"--host",
                                                               "--port",
                                                               "--max-file-bytes",
                                                               "--max-body",
                                                               "--max-head",
                                                               "--head-timeout",
                                                               "--keep-alive-timeout",
                                                               "--max-connections",
                                                               "--quiet",
                                                               "--log-json",
                                                               "--config",
                                                               "--version",
                                                               "-h,--help"};

inline constexpr std::string_view kServing = "Serving";
inline constexpr std::string_view kLimits = "Limits (as nginx and gunicorn bound requests)";
inline constexpr std::string_view kFaults = "Latency and faults";
inline constexpr std::string_view kBrowsers = "Browsers and logs";
inline constexpr std::string_view kProgram = "Options";

// In --help's order.
inline constexpr auto kFlags = std::to_array<Flag>({
    // Serving
    {.name = "--host",
     .type_name = "ADDR",
     .help = "address to listen on",
     .group = kServing,
     .kind = FlagKind::text,
     .field = at<&Options::host>,
     .what = "an address",
     .shows_default = true},
    {.name = "--port",
     .type_name = "N",
     .help = "port to listen on; 0 picks a free one",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::port>,
     .high = 65535,
     .what = "a port number",
     .shows_default = true},
    {.name = "--records",
     .npm = "records",
     .type_name = "N",
     .help = "size of the generated collection",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::records>,
     .high = kMaxRecords,
     .what = "a whole number",
     .shows_default = true},
    {.name = "--seed",
     .npm = "seed",
     .type_name = "S",
     .help = "seed of the generated collection and of the faults below",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::seed>,
     .high = std::numeric_limits<std::uint64_t>::max(),
     .what = "a whole number",
     .shows_default = true},
    {.name = "--dataset",
     .npm = "dataset",
     .type_name = "PATH",
     .help = "serve the records of PATH instead: a JSON Lines file, a JSON array, or\n"
             "a snapshot directory written by `entities-images-contract record`",
     .group = kServing,
     .kind = FlagKind::text,
     .field = at<&Options::dataset>,
     .what = "a file or a snapshot directory",
     .excludes = "--records"},
    {.name = "--churn",
     .npm = "churn",
     .type_name = "INSERTS:DELETES",
     .help = "a live collection: this many records inserted and deleted a minute\n"
             "(seeded by --seed; X-Mock-Time: MS replays a moment; not with --user)",
     .group = kServing,
     .kind = FlagKind::churn,
     .high = kMaxChurn,
     .header = "X-Mock-Time"},
    {.name = "--sized-pictures",
     .npm = "sizedPictures",
     .help = "serve each record's picture at its file_size in bytes (padding inside\n"
             "the picture, sent as it is read), as a deployment's storage would;\n"
             "by default a small placeholder of a few kB",
     .group = kServing,
     .kind = FlagKind::flag,
     .field = at<&Options::sized_pictures>},
    {.name = "--threads",
     .npm_absent = "Node's event loop answers one request at a time",
     .type_name = "N",
     .help = "worker threads that compute answers; 0 is one per core plus two\n"
             "(idle connections, slow clients and delays hold none)",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::threads>,
     .high = 4096,
     .what = "a whole number",
     .shows_default = true},
    {.name = "--user",
     .npm = "user",
     .type_name = "NAME:PASSWORD",
     .help = "a user HTTP Basic authenticates, as DRF's BasicAuthentication does:\n"
             "OPTIONS then lists POST's fields, PUT/PATCH/DELETE get 405, wrong\n"
             "credentials 403; the user's multipart POST (image, entity, order, key)\n"
             "creates a record (201)",
     .group = kServing,
     .kind = FlagKind::user,
     .excludes = "--churn"},
    {.name = "--state",
     .npm_absent = "uploads are kept in memory only (no --state directory)",
     .type_name = "DIR",
     .help = "keep uploaded records and files in DIR across restarts: each is on\n"
             "disk before its 201 (default: in memory, gone when the mock stops)",
     .group = kServing,
     .kind = FlagKind::text,
     .field = at<&Options::state>,
     .what = "a directory"},
    {.name = "--upload-bytes",
     .npm = "uploadBytes",
     .type_name = "BYTES",
     .help = "keep at most this many bytes of uploads in memory (each its file, its\n"
             "names and 1 KiB); an upload beyond them gets 507 (--state: on disk,\n"
             "not bounded)",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::upload_bytes>,
     .low = 1,
     .high = std::uint64_t{1} << 40,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--max-file-bytes",
     .type_name = "BYTES",
     .help = "read a --dataset file, a snapshot's and --state's files only when\n"
             "each is a regular file of at most this size: a FIFO, a device such\n"
             "as /dev/zero or a larger file is refused at once (--config FILE: a\n"
             "regular file of at most 1 MiB)",
     .group = kServing,
     .kind = FlagKind::whole,
     .field = at<&Options::max_file_bytes>,
     .low = 1,
     .high = std::uint64_t{1} << 40,
     .what = "a size in bytes",
     .shows_default = true},

    // Limits (docs/mock.md, "Connections")
    {.name = "--max-body",
     .type_name = "BYTES",
     .help = "answer a request body above this size 413, as nginx does",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_body>,
     .low = 1,
     .high = std::uint64_t{1} << 40,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--max-request-line",
     .npm_absent = "Node's HTTP parser bounds requests itself",
     .type_name = "BYTES",
     .help = "answer a longer request line 414, as nginx does",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_request_line>,
     .low = 64,
     .high = 1 << 20,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--max-header-line",
     .npm_absent = "Node's HTTP parser bounds requests itself",
     .type_name = "BYTES",
     .help = "answer a longer header line 431, as gunicorn does",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_header_line>,
     .low = 64,
     .high = 1 << 20,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--max-headers",
     .npm_absent = "Node's HTTP parser bounds requests itself",
     .type_name = "N",
     .help = "answer a request with more header lines 431",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_headers>,
     .low = 1,
     .high = 100000,
     .what = "a whole number",
     .shows_default = true},
    {.name = "--max-head",
     .type_name = "BYTES",
     .help = "answer a longer request head (line and headers) 431",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_head>,
     .low = 256,
     .high = 1 << 24,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--max-chunk-line",
     .npm_absent = "Node's HTTP parser bounds requests itself",
     .type_name = "BYTES",
     .help = "answer a longer chunk-size line of a chunked body 400",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_chunk_line>,
     .low = 16,
     .high = 1 << 20,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--head-timeout",
     .type_name = "MS",
     .help = "answer 408 and close when a head is not whole this long after its\n"
             "first byte, or a body pauses as long; a connection that sends nothing\n"
             "is closed after it",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::head_timeout_ms>,
     .low = 1,
     .high = 86'400'000,
     .what = "milliseconds",
     .shows_default = true},
    {.name = "--keep-alive-timeout",
     .type_name = "MS",
     .help = "close a keep-alive connection idle this long",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::keep_alive_timeout_ms>,
     .low = 1,
     .high = 86'400'000,
     .what = "milliseconds",
     .shows_default = true},
    {.name = "--send-timeout",
     .npm_absent = "Node's server times connections itself",
     .type_name = "MS",
     .help = "close a connection whose client takes no byte of its answer this long",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::send_timeout_ms>,
     .low = 1,
     .high = 86'400'000,
     .what = "milliseconds",
     .shows_default = true},
    {.name = "--max-connections",
     .type_name = "N",
     .help = "at this many open connections, close the one idle longest for a new\n"
             "one (as nginx); answer 503 and close when none is idle (at most the\n"
             "open-file limit allows)",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::limits, &ConnectionLimits::max_connections>,
     .low = 1,
     .high = 1'000'000,
     .what = "a whole number",
     .shows_default = true},
    {.name = "--memo-bytes",
     .npm_absent = "every answer is computed",
     .type_name = "BYTES",
     .help = "keep answers to GET/HEAD requests asked again (equal target and headers,\n"
             "unchanged data) up to this many bytes; 0 computes every answer",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::memo_bytes>,
     .high = std::uint64_t{1} << 32,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--bulk-records",
     .npm_absent = "npx answers pages of more than 1,000 records in a worker thread of its own",
     .type_name = "N",
     .help = "a GET whose page asks for more records than this (?limit=) is computed\n"
             "on the bulk lane (one thread for two cores), never on the\n"
             "workers, so cheap requests are answered while it is built; 0: off",
     .group = kLimits,
     .kind = FlagKind::whole,
     .field = at<&Options::bulk_records>,
     .high = kMaxRecords,
     .what = "a whole number",
     .shows_default = true},

    // Latency and faults (docs/mock.md, "Latency, faults, CORS, log")
    {.name = "--latency",
     .npm = "latency",
     .type_name = "MS[:JITTER]",
     .help = "delay every answer MS milliseconds, plus 0..JITTER",
     .group = kFaults,
     .kind = FlagKind::latency,
     .high = kMaxDelayMs,
     .what = "milliseconds",
     .keys = {{{"latency_ms", &FaultOptions::latency_ms}, {"jitter_ms", &FaultOptions::jitter_ms}}},
     .in_put = true,
     .header = "X-Mock-Latency"},
    {.name = "--max-delay",
     .npm = "maxDelay",
     .type_name = "MS",
     .help = "the longest delay a request may ask for with X-Mock-Latency (longer:\n"
             "400); --latency MS+JITTER may not exceed it either",
     .group = kFaults,
     .kind = FlagKind::whole,
     .high = kMaxDelayMs,
     .what = "milliseconds",
     .shows_default = true,
     .keys = {{{"max_delay_ms", &FaultOptions::max_delay_ms}, {}}}},
    {.name = "--fail-rate",
     .npm = "failRate",
     .type_name = "P",
     .help = "answer this share of requests with --fail-status instead",
     .group = kFaults,
     .kind = FlagKind::share,
     .keys = {{{"fail_rate", &FaultOptions::fail_rate}, {}}},
     .in_put = true,
     .header = "X-Mock-Fail"},
    {.name = "--fail-status",
     .npm = "failStatus",
     .type_name = "N",
     .help = "",
     .group = kFaults,
     .kind = FlagKind::status,
     .shows_default = true,
     .keys = {{{"fail_status", &FaultOptions::fail_status}, {}}},
     .in_put = true,
     .header = "X-Mock-Fail"},
    {.name = "--drop-rate",
     .npm = "dropRate",
     .type_name = "P",
     .help = "close this share of connections without answering",
     .group = kFaults,
     .kind = FlagKind::share,
     .keys = {{{"drop_rate", &FaultOptions::drop_rate}, {}}},
     .in_put = true,
     .header = "X-Mock-Drop"},
    {.name = "--slow-body",
     .npm = "slowBody",
     .type_name = "BYTES_PER_S",
     .help = "send bodies at this rate",
     .group = kFaults,
     .kind = FlagKind::whole,
     .low = 1,
     .high = kMaxBytesPerSecond,
     .what = "bytes a second",
     .keys = {{{"slow_body_bps", &FaultOptions::slow_body_bps}, {}}},
     .in_put = true,
     .header = "X-Mock-Slow-Body"},

    // Browsers and logs
    {.name = "--cors",
     .npm = "cors",
     .type_name = "ORIGIN",
     .help = "allow this origin (repeatable) or '*' any, as django-cors-headers would",
     .group = kBrowsers,
     .kind = FlagKind::origins,
     .field = at<&Options::cors, &CorsOptions::origins>,
     .what = "'*' or an origin such as http://localhost:3000 (no path)"},
    {.name = "--gzip",
     .npm = "gzip",
     .help = "gzip answers for clients that accept it, as Django's GZipMiddleware does\n"
             "(with Vary: Accept-Encoding); without it nothing is compressed, as with DRF",
     .group = kBrowsers,
     .kind = FlagKind::flag,
     .field = at<&Options::gzip>},
    {.name = "--no-security-headers",
     .npm = "noSecurityHeaders",
     .help = "send none of the headers of Django's SecurityMiddleware and\n"
             "XFrameOptionsMiddleware (X-Frame-Options, X-Content-Type-Options,\n"
             "Referrer-Policy), for a deployment whose MIDDLEWARE leaves them out",
     .group = kBrowsers,
     .kind = FlagKind::flag,
     .field = at<&Options::no_security_headers>},
    {.name = "--admin",
     .npm = "admin",
     .help = "serve the admin routes under /__mock/: the request journal\n"
             "(GET/DELETE /__mock/requests, GET /__mock/requests/count), POST\n"
             "/__mock/reset, GET/PUT /__mock/faults (docs/mock.md)",
     .group = kBrowsers,
     .kind = FlagKind::flag,
     .field = at<&Options::admin>},
    {.name = "--admin-port",
     .npm_absent = "the admin routes are served on the mock's own port (--admin)",
     .type_name = "N",
     .help = "serve the admin routes on this port instead (0 picks a free one);\nimplies --admin",
     .group = kBrowsers,
     .kind = FlagKind::whole,
     .field = at<&Options::admin_port>,
     .high = 65535,
     .what = "a port number"},
    {.name = "--journal-size",
     .npm = "journalSize",
     .type_name = "N",
     .help = "the number of requests the journal keeps, the latest",
     .group = kBrowsers,
     .kind = FlagKind::whole,
     .field = at<&Options::journal_size>,
     .low = 1,
     .high = 10'000'000,
     .what = "a whole number",
     .shows_default = true},
    {.name = "--journal-bytes",
     .npm = "journalBytes",
     .type_name = "BYTES",
     .help = "and at most this many bytes of them (an entry counts as its JSON;\n"
             "of a body it keeps the first 16 KiB, its length and sha256)",
     .group = kBrowsers,
     .kind = FlagKind::whole,
     .field = at<&Options::journal_bytes>,
     .low = 65536,
     .high = std::uint64_t{1} << 34,
     .what = "a size in bytes",
     .shows_default = true},
    {.name = "--journal-credentials",
     .npm = "journalCredentials",
     .help = "keep the values of Authorization, Cookie and other credential headers\n"
             "in the journal (by default each is \"*****\")",
     .group = kBrowsers,
     .kind = FlagKind::flag,
     .field = at<&Options::journal_credentials>},
    {.name = "--admin-host",
     .npm = "adminHost",
     .type_name = "HOST",
     .help = "a Host the admin routes also accept ('*': any), besides localhost,\n"
             "*.localhost, 127.0.0.1, [::1] and the --host address; and an Origin\n"
             "with it may write",
     .group = kBrowsers,
     .kind = FlagKind::text,
     .field = at<&Options::admin_host>,
     .what = "a host name, without a port"},
    {.name = "--quiet",
     .help = "no request log (default: one line a request on stderr)",
     .group = kBrowsers,
     .kind = FlagKind::log,
     .log_format = LogFormat::none},
    {.name = "--log-json",
     .help = "the request log as JSON lines",
     .group = kBrowsers,
     .kind = FlagKind::log,
     .excludes = "--quiet",
     .log_format = LogFormat::json},

    // The program
    {.name = "--config",
     .type_name = "FILE",
     .help = "read flags from a JSON object, e.g. {\"port\": 8000, \"cors\":\n"
             "[\"http://localhost:3000\"], \"latency\": \"200:50\", \"quiet\": true};\n"
             "flags on the command line win",
     .group = kProgram,
     .kind = FlagKind::config,
     .in_config = false},
    {.name = "-h,--help",
     .help = "print this help and exit",
     .group = kProgram,
     .kind = FlagKind::help,
     .in_config = false},
    {.name = "--version",
     .help = "print the version and exit",
     .group = kProgram,
     .kind = FlagKind::flag,
     .field = at<&Options::version>,
     .in_config = false},
});

/// "WHAT from LOW to HIGH": "milliseconds from 0 to 3600000" (2^64-1 for the largest whole number).
std::string flag_range(const Flag& flag, std::uint64_t low);
/// The keys PUT /__mock/faults takes, as its messages list them: "latency_ms, jitter_ms, ...".
std::string put_keys();

}  // namespace entimg::mock::detail

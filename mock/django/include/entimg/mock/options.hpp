#pragma once
// Every option the mock takes, as plain values: the server's (ServerOptions, what MockServer is handed) and
// the command line's (Options: the server's and what picks the collection). Each flag is one row of
// flags.hpp, which fills these; a default is an initializer here. Declared in the django layer, below the
// front, because the admin routes (PUT /__mock/faults) read the same rows.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "entimg/mock/cors.hpp"
#include "entimg/mock/dataset.hpp"
#include "entimg/mock/faults.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/request_log.hpp"

namespace entimg::mock {

/// How the front takes connections: where it listens, its workers, how requests are bounded.
struct FrontOptions {
  std::string host = "127.0.0.1";
  int port = 8000;          ///< 0 picks a free port
  std::size_t threads = 0;  ///< workers that compute answers; 0: one per core, plus two
  /// --bulk-records: a GET/HEAD whose ?limit= asks for more records is computed on the bulk lane (threads
  /// of its own), so that a few huge pages cannot take every worker; 0 computes every answer on the workers.
  std::uint64_t bulk_records = 1000;
  ConnectionLimits limits;  ///< sizes and timeouts of requests and connections (--max-body, ...)
};

/// The application's (MockApp, natively and in the WebAssembly build): its middleware and admin routes.
struct AppOptions {
  FaultOptions faults;  ///< latency and faults (X-Mock-* headers work whatever these are)
  CorsOptions cors;
  LogFormat log = LogFormat::none;  ///< the request log, on stderr
  /// --gzip: Django's GZipMiddleware in front of the view (gzip when asked, Vary: Accept-Encoding);
  /// without it no answer is compressed, as DRF sends none.
  bool gzip = false;
  /// --no-security-headers: a deployment whose MIDDLEWARE leaves out SecurityMiddleware and
  /// XFrameOptionsMiddleware; by default their three headers go on every answer Django makes.
  bool no_security_headers = false;
  /// --admin: the routes under /__mock/ (journal, reset, faults); --admin-port N (0: any free port)
  /// serves them on a port of their own instead; -1 keeps them on the service's port.
  bool admin = false;
  int admin_port = -1;
  std::size_t journal_size = 10000;  ///< --journal-size: the requests the journal keeps (the latest)
  /// --journal-bytes: and at most this many bytes of them (each entry counted as its listing's JSON)
  std::size_t journal_bytes = std::size_t{32} << 20;
  /// --journal-credentials: the journal keeps Authorization, Cookie and the like in clear (masked otherwise)
  bool journal_credentials = false;
  /// --admin-host: a host name the admin routes also accept ('*': any), besides the loopback names and
  /// listen_host (as Django's ALLOWED_HOSTS: a foreign Host is a DNS-rebinding page's)
  std::string admin_host;
  /// The address the server listens on, set by the front (FrontOptions::host): a Host the admin routes
  /// accept.
  std::string listen_host;
};

/// MockServer's: the front's and the application's, each handed on as it is, and the memo's.
struct ServerOptions : FrontOptions, AppOptions {
  /// --memo-bytes: answers to repeated GET/HEAD requests (same target, every header the same) on
  /// unchanged data are kept up to this many bytes and sent again; 0 computes every answer.
  std::size_t memo_bytes = std::size_t{8} << 20;
};

/// Options with an address and a worker count, the rest left as they are by default.
inline ServerOptions listen_on(std::string host, int port, std::size_t threads) {
  ServerOptions o;
  o.host = std::move(host);
  o.port = port;
  o.threads = threads;
  return o;
}

/// The command line of entities-images-mock: the server's options, handed to MockServer as they are, and
/// what picks the collection. Each flag is one row of flags.hpp; a default is an initializer here
/// (or in ServerOptions).
struct Options : ServerOptions {
  Options() { log = LogFormat::text; }  // the program logs each request unless told not to
  std::uint64_t records = 300000;
  std::uint64_t seed = 1;  ///< --seed: the generated collection's, the faults' (faults.seed) and --churn's
  std::optional<std::filesystem::path> dataset;
  /// --sized-pictures: each record's picture at its file_size (ServiceOptions::sized_pictures)
  bool sized_pictures = false;
  std::optional<User> user;  ///< --user NAME:PASSWORD: the one user HTTP Basic authenticates
  std::optional<std::filesystem::path> state;  ///< --state DIR: uploads kept on disk
  /// --max-file-bytes: the largest dataset, snapshot or --state file read (each a regular file)
  std::uint64_t max_file_bytes = kMaxFileBytes;
  /// --upload-bytes: the uploads kept in memory (without --state), each its file, names and 1 KiB
  std::uint64_t upload_bytes = kUploadBytes;
  std::uint32_t churn_inserts = 0;  ///< --churn INSERTS:DELETES a minute: a live collection
  std::uint32_t churn_deletes = 0;
  std::optional<std::filesystem::path> config;  ///< --config FILE; flags on the command line win
  bool help = false;                            ///< --help: print usage() and exit
  bool version = false;
};

}  // namespace entimg::mock

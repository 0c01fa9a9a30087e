// The tool against hostile deployments and hostile snapshots (docs/contract.md, "Against hostile
// servers"): each case ends in bounded time with bounded output, a message naming the real cause and
// exit 1 or 2. The tool runs as a child process, so its console, --json and --junit are measured.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "broken/answer_edit.hpp"
#include "broken/e2e_support.hpp"
#include "broken/raw_server.hpp"
#include "entimg/common/snapshot.hpp"
#include "entimg/mock/gzip.hpp"

namespace {

using namespace entimg;
using namespace std::chrono_literals;
using broken::e2e::correct_service;
using broken::e2e::Served;
using Catch::Matchers::Contains;
using mock::HttpRequest;
using mock::HttpResponse;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A hang guard, not a speed check: the child is killed here, which fails the case (no exit code 1 or 2).
// Each case is bounded by the work it checks (pages, bytes, values, memory, the reports written); the
// slowest, four ~60 MiB pages through the Debug-built tool, took 22 s alone on a quiet 2-core machine and
// several times that beside other builds, so a bound of 20 s failed CI at random (issue 43). Kept under
// the cases' ctest TIMEOUT (contract/tests/CMakeLists.txt), so a hang is reported with its console.
constexpr auto kHangGuard = 180s;
// Console, JSON and JUnit of one run, each: a few hundred failures of a few hundred bytes.
constexpr std::uintmax_t kMaxOutputBytes = 512 * 1024;

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A directory of its own under the system's temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "entimg-hostile-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct ToolRun {
  int exit_code = -1;  ///< -1: killed at kHangGuard
  std::chrono::milliseconds elapsed{0};
  std::string console;    ///< stdout then stderr
  long peak_rss_kib = 0;  ///< the tool's peak resident set (getrusage's ru_maxrss)
};

// Runs entities-images-contract with args (and env set in the child), its output into dir.
ToolRun run_tool(const fs::path& dir, const std::vector<std::string>& args,
                 const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  // ENTIMG_CONTRACT_EXE in the environment runs another build of the tool (an older one, say).
  const char* other = std::getenv("ENTIMG_CONTRACT_EXE");
  std::vector<std::string> argv_text = {other != nullptr ? other : ENTIMG_CONTRACT_EXE};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto started = Clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(127);
    for (const auto& [name, value] : env)
      ::setenv(name.c_str(), value.c_str(), 1);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ToolRun run;
  int status = 0;
  for (;;) {
    rusage usage{};
    const pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) {
      run.peak_rss_kib = usage.ru_maxrss;
      run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (Clock::now() - started > kHangGuard) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  run.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  run.console = read_all(out) + read_all(err);
  return run;
}

// Ended by itself (not killed at kHangGuard) with exit 1 or 2, every output bounded; the reports that were
// asked for exist. The time is shown, never checked: how fast this machine is today proves nothing.
void check_bounded(const ToolRun& run, const std::vector<fs::path>& reports = {}) {
  INFO(run.console.substr(0, 4000));
  INFO("ended after " << run.elapsed.count() << " ms"
                      << (run.exit_code == -1 ? ", killed at the hang guard" : ""));
  CHECK(run.exit_code >= 1);
  CHECK(run.exit_code <= 2);
  CHECK(run.console.size() < kMaxOutputBytes);
  for (const fs::path& report : reports) {
    INFO(report);
    REQUIRE(fs::exists(report));
    CHECK(fs::file_size(report) < kMaxOutputBytes);
  }
}

std::vector<std::string> check_args(const std::string& url, const fs::path& dir) {
  return {"--base-url",
          url,
          "--mode",
          "full",
          "--seed",
          "42",
          "--no-progress",
          "--retries",
          "0",
          "--timeout",
          "60",  // a hang guard: no case here stalls, and a ~60 MiB page may come slowly on a busy machine
          "--json",
          (dir / "report.json").string(),
          "--junit",
          (dir / "report.xml").string()};
}

// A quick run against url, checked bounded, its reports in dir.
ToolRun quick_run(const std::string& url, const fs::path& dir) {
  auto args = check_args(url, dir);
  args[3] = "quick";  // --mode quick
  const ToolRun run = run_tool(dir, args);
  check_bounded(run, {dir / "report.json", dir / "report.xml"});
  return run;
}

// Every page a full page of correct records, `count` 10^18 and a next link one page further, for ever.
HttpResponse endless_page(const HttpRequest& r) {
  const auto offset = broken::number_param(broken::query_of(r), "offset").value_or(0);
  HttpResponse response =
      correct_service().handle(broken::with_query(r, {{"offset", std::to_string(offset % 228)}}));
  broken::edit_page(response, [&](broken::Json& page) {
    page["count"] = 1'000'000'000'000'000'000ULL;
    page["next"] = "http://" + r.header("Host").value_or("") +
                   "/edw/api/entities-images/?offset=" + std::to_string(offset + 12);
  });
  return response;
}

}  // namespace

TEST_CASE("hostile: count 10^18 and endless next links stop at the page cap and at the byte cap",
          "[e2e][hostile]") {
  struct Case {
    const char* name;
    std::vector<std::string> flags;
    const char* message;
  };
  const std::vector<Case> cases = {
      // --max-requests ends the walk long before any cap: the message shows the default cap.
      {"the default page cap is at most 100,000 pages, not count/limit + 2",
       {"--max-requests", "80"},
       "within the page cap (100000 pages, --page-cap), got"},
      // --page-cap counts the walk's pictures too.
      {"page cap", {"--page-cap", "150"}, "within the page cap (150 pages and pictures, --page-cap), got"},
      {"byte cap", {"--byte-cap", "300000"}, "within the byte cap (300000 bytes, --byte-cap)"},
  };
  Served server(endless_page);
  for (const Case& c : cases) {
    SECTION(c.name) {
      TempDir dir;
      auto args = check_args(server.url(), dir.path());
      args.insert(args.end(), c.flags.begin(), c.flags.end());
      const ToolRun run = run_tool(dir.path(), args);
      check_bounded(run, {dir.path() / "report.json", dir.path() / "report.xml"});
      CHECK(run.exit_code == 1);
      CHECK_THAT(run.console, Contains(c.message));
    }
  }
}

TEST_CASE("hostile: a 5 MB number and a 5 MB next link are quoted cut short in every report",
          "[e2e][hostile]") {
  const std::string digits(5'000'000, '9');
  Served server([&](const HttpRequest& r) {
    HttpResponse response = correct_service().handle(r);
    if (broken::query_of(r).empty())
      response.body = R"({"count":)" + digits + R"(,"next":null,"previous":null,"results":[]})";
    else if (broken::has_exactly(broken::query_of(r), {{"offset", "12"}}))  // the second page
      broken::edit_page(response, [&](broken::Json& page) {
        page["next"] =
            "http://" + r.header("Host").value_or("") + "/edw/api/entities-images/?offset=" + digits;
      });
    return response;
  });
  TempDir dir;
  const ToolRun run = run_tool(dir.path(), check_args(server.url(), dir.path()));
  check_bounded(run, {dir.path() / "report.json", dir.path() / "report.xml"});
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.console, Contains("it holds a number of 5000000 characters (at most 4096 are read)"));
  CHECK(run.console.find(std::string(10'000, '9')) == std::string::npos);
}

TEST_CASE("hostile: diff refuses a snapshot line nested 100,000 deep, without a crash", "[e2e][hostile]") {
  TempDir dir;
  const fs::path fixture = fs::path(ENTIMG_FIXTURES_DIR) / "snapshots" / "mock-seed-7-60";
  const fs::path deep = dir.path() / "deep";
  fs::copy(fixture, deep, fs::copy_options::recursive);
  std::string records = read_all(deep / "records.jsonl");
  const std::string nested = R"({"id":1,"x":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  records.replace(0, records.find('\n'), nested);
  std::ofstream(deep / "records.jsonl", std::ios::binary | std::ios::trunc) << records;
  auto manifest = nlohmann::json::parse(read_all(deep / "manifest.json"));
  for (auto& file : manifest["files"])
    if (file["name"] == "records.jsonl") {
      std::uint64_t bytes = 0;
      file["sha256"] = common::sha256_file(deep / "records.jsonl", &bytes);
      file["bytes"] = bytes;
    }
  std::ofstream(deep / "manifest.json", std::ios::trunc) << manifest.dump();

  const ToolRun run = run_tool(dir.path(), {"diff", "--snapshot", deep.string(), "--against",
                                            fixture.string(), "--json", (dir.path() / "diff.json").string()});
  check_bounded(run);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.console, Contains("records.jsonl line 1: nests arrays/objects deeper than 128 levels"));
}

TEST_CASE("hostile: a secret the server echoes appears in no output, report or snapshot", "[e2e][hostile]") {
  const std::string secret = "Bearer s3cr3t-7f1e2d9c";
  // Like a Django DEBUG page: the request's Authorization comes back in a header, in the links and in
  // every record.
  Served server([](const HttpRequest& r) {
    const std::string echoed = r.header("Authorization").value_or("");
    HttpResponse response = correct_service().handle(r);
    broken::set_header(response, "X-Debug-Request-Authorization", echoed);
    broken::set_header(response, "Allow", "GET, HEAD, OPTIONS, " + echoed);
    broken::edit_page(response, [&](broken::Json& page) {
      broken::edit_links(page, [&](std::string_view, const std::string& url) {
        return broken::edit_link(url, [&](common::QueryParams& p) { p.emplace_back("debug", echoed); });
      });
      for (auto& record : page["results"])
        record["description"] = "HTTP_AUTHORIZATION = '" + echoed + "'";
    });
    return response;
  });
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> env = {{"ENTIMG_HOSTILE_SECRET", secret}};
  auto args = check_args(server.url(), dir.path());
  args.insert(args.end(), {"--header-from-env", "Authorization=ENTIMG_HOSTILE_SECRET"});
  const ToolRun check = run_tool(dir.path(), args, env);
  check_bounded(check, {dir.path() / "report.json", dir.path() / "report.xml"});
  CHECK(check.exit_code == 1);
  CHECK(check.console.find("s3cr3t") == std::string::npos);
  CHECK(read_all(dir.path() / "report.json").find("s3cr3t") == std::string::npos);
  CHECK(read_all(dir.path() / "report.xml").find("s3cr3t") == std::string::npos);
  // The masked links are still reported: the echo is seen, the secret is not.
  CHECK_THAT(check.console, Contains("debug"));

  const fs::path snapshot = dir.path() / "snapshot";
  const ToolRun record =
      run_tool(dir.path(),
               {"record", "--base-url", server.url(), "--out", snapshot.string(), "--no-progress",
                "--header-from-env", "Authorization=ENTIMG_HOSTILE_SECRET"},
               env);
  INFO(record.console);
  CHECK(record.exit_code == 0);
  CHECK(record.console.find("s3cr3t") == std::string::npos);
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(snapshot)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    INFO(entry.path());
    CHECK(read_all(entry.path()).find("s3cr3t") == std::string::npos);
  }
  CHECK(files >= 5);
  CHECK_THAT(read_all(snapshot / "records.jsonl"), Contains("HTTP_AUTHORIZATION = '*****"));
}

TEST_CASE("hostile: a records.jsonl that is a FIFO, /dev/zero or a link out of the snapshot is refused",
          "[e2e][hostile]") {
  TempDir dir;
  const fs::path fixture = fs::path(ENTIMG_FIXTURES_DIR) / "snapshots" / "mock-seed-7-60";
  const fs::path snapshot = dir.path() / "snapshot";
  fs::copy(fixture, snapshot, fs::copy_options::recursive);
  const fs::path records = snapshot / "records.jsonl";
  const auto expect_refused = [&](const std::string& fragment) {
    // The library, as the mock's --dataset reads it, and the tool's diff.
    CHECK_THROWS_WITH(common::open_snapshot(snapshot), Contains(fragment));
    const ToolRun run =
        run_tool(dir.path(), {"diff", "--snapshot", snapshot.string(), "--against", fixture.string()});
    check_bounded(run);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.console, Contains(fragment));
  };
  fs::remove(records);
  SECTION("a FIFO") {
    REQUIRE(::mkfifo(records.c_str(), 0600) == 0);
    expect_refused("records.jsonl is not a regular file");
  }
  SECTION("a symlink to /dev/zero") {
    fs::create_symlink("/dev/zero", records);
    expect_refused("records.jsonl leads out of the snapshot directory");
  }
  SECTION("a symlink to an identical file outside the snapshot") {
    fs::copy_file(fixture / "records.jsonl", dir.path() / "outside.jsonl");
    fs::create_symlink(dir.path() / "outside.jsonl", records);
    expect_refused("records.jsonl leads out of the snapshot directory");
  }
  SECTION("a FIFO behind a symlink inside the snapshot") {
    REQUIRE(::mkfifo((snapshot / "pages" / "fifo").c_str(), 0600) == 0);
    fs::create_symlink("pages/fifo", records);
    expect_refused("records.jsonl is not a regular file");
  }
}

TEST_CASE("hostile: a gzip body nobody asked for is named as such", "[e2e][hostile]") {
  const std::string gzip_bytes(
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\xae\x05\x00\x43\xbf\xa6\xa3\x02\x00\x00\x00", 22);
  SECTION("with Content-Encoding: gzip") {
    Served server([&](const HttpRequest&) {
      return HttpResponse{200, "application/json", {{"Content-Encoding", "gzip"}}, gzip_bytes};
    });
    TempDir dir;
    const ToolRun run = run_tool(dir.path(), check_args(server.url(), dir.path()));
    check_bounded(run, {dir.path() / "report.json", dir.path() / "report.xml"});
    CHECK(run.exit_code == 1);
    CHECK_THAT(
        run.console,
        Contains(
            R"(got a body compressed with Content-Encoding: "gzip", which the request did not ask for (it sent no Accept-Encoding))"));
  }
  SECTION("without a Content-Encoding") {
    Served server([&](const HttpRequest&) { return HttpResponse{200, "application/json", {}, gzip_bytes}; });
    TempDir dir;
    const ToolRun run = run_tool(dir.path(), check_args(server.url(), dir.path()));
    check_bounded(run);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.console, Contains("got a body compressed with gzip (its magic bytes 1f 8b)"));
  }
}

TEST_CASE("hostile: a chunk size that is not hexadecimal is named as such", "[e2e][hostile]") {
  broken::RawServer server([](broken::RawServer::Connection& c) {
    c.send(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "zz\r\n{\"count\":0}\r\n0\r\n\r\n");
    c.pause(2s);
  });
  TempDir dir;
  const ToolRun run = run_tool(dir.path(), check_args(server.url(), dir.path()));
  check_bounded(run, {dir.path() / "report.json", dir.path() / "report.xml"});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.console, Contains("could not be read: a chunk size that is not hexadecimal"));
  server.stop();
}

TEST_CASE("hostile: pages near the 64 MiB body cap keep the suite's memory a small multiple of the cap",
          "[e2e][hostile]") {
  // A page of 12 records whose descriptions make it ~60 MiB, for the first page, its format=json twin
  // and the middle page fetched twice: the pages the quick plan holds two at a time (format_json_same,
  // refetch_same_ids). Long strings cost memory as records would, without the CPU of 150,000 records.
  const std::string big = [] {
    broken::Json page = *broken::page_of(correct_service().handle(
        {"GET", "/edw/api/entities-images/", {{"Host", "127.0.0.1"}}, "127.0.0.1:80", ""}));
    for (broken::Json& record : page["results"])
      record["description"] = std::string(5u << 20, 'd');
    return page.dump();
  }();
  REQUIRE(big.size() > (56u << 20));
  REQUIRE(big.size() < (64u << 20));
  // Only the listing's pages: other paths asked without a query (pictures, detail routes) got the big body
  // too, which cost most of this case's time (22 s to 42 s) and none of what it checks.
  Served server([&](const HttpRequest& r) {
    HttpResponse response = correct_service().handle(r);
    const auto query = broken::query_of(r);
    const bool held_in_pairs = query.empty() || broken::has_exactly(query, {{"format", "json"}}) ||
                               (common::last_value(query, "format") != nullptr && query.size() == 3);
    if (r.method == "GET" && broken::path_of(r) == "/edw/api/entities-images/" && held_in_pairs)
      response.body = big;
    return response;
  });
  TempDir dir;
  const ToolRun run = quick_run(server.url(), dir.path());
  const double cap_mib = 64, peak_mib = static_cast<double>(run.peak_rss_kib) / 1024;
  INFO("peak RSS " << peak_mib << " MiB, " << peak_mib / cap_mib << "x the body cap");
#if defined(__SANITIZE_ADDRESS__)
  SUCCEED("not bounded under AddressSanitizer, whose shadow memory and quarantine add their own");
#else
  // Two pages at a time, each its body and its parsed strings (4x the cap), plus the program: the run
  // held three pages and two nlohmann copies (5.8x) before the quick plan was reordered.
  CHECK(peak_mib < 4.5 * cap_mib);
#endif
}

// What only a request offering gzip gets (the compression side's first request), gzipped: a 60 MB page of
// 20 million empty arrays in 58 KB, or 60 MB of empty gzip members, which decode to nothing at all.
TEST_CASE("hostile: a gzip page of 20 million values is refused at the value bound, in bounded memory",
          "[e2e][hostile]") {
  struct Case {
    const char* name;
    std::string body;
    const char* json_body;
  };
  const std::string empty_arrays = [] {
    std::string page = R"({"count":1,"next":null,"previous":null,"results":[[])";
    page.reserve(60u << 20);
    while (page.size() < (60u << 20))
      page += ",[]";
    return mock::gzip_compress(page + "]}");
  }();
  std::string empty_members;
  for (const std::string member = mock::gzip_compress(""); empty_members.size() < (60u << 20);)
    empty_members += member;
  const std::vector<Case> cases = {
      {"a page of empty arrays", empty_arrays,
       "it holds more than 1000000 values (arrays, objects, strings, numbers, literals: at most 1000000 are "
       "read)"},
      {"empty gzip members", empty_members, "got not JSON: "},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Served server([&](const HttpRequest& r) {
        HttpResponse response = correct_service().handle(r);
        if (r.header("Accept-Encoding").value_or("").find("gzip") == std::string::npos) return response;
        response.body = c.body;
        broken::set_header(response, "Content-Encoding", "gzip");
        broken::set_header(response, "Vary", "Accept-Encoding");
        return response;
      });
      TempDir dir;
      const ToolRun run = quick_run(server.url(), dir.path());
      INFO(run.console.substr(0, 6000));
      CHECK(run.exit_code == 1);
      CHECK_THAT(run.console, Contains(c.json_body));
      CHECK_THAT(run.console, Contains("FAIL  compressed_as_asked"));
      CHECK_THAT(run.console, Contains("with Accept-Encoding: gzip: expected the gzip body to decode to the "
                                       "plain answer's JSON"));
      CHECK(run.console.find("decoding to the plain answer's JSON") == std::string::npos);
      const double cap_mib = 64, peak_mib = static_cast<double>(run.peak_rss_kib) / 1024;
      INFO("peak RSS " << peak_mib << " MiB, " << peak_mib / cap_mib << "x the body cap");
#if !defined(__SANITIZE_ADDRESS__)
      CHECK(peak_mib < 4 * cap_mib);  // the documented bound; 2,062 MiB before the value bound
#endif
    }
  }
}

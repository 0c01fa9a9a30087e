#include "entimg/contract/cli.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

using namespace entimg::contract;
using namespace std::chrono_literals;

namespace {

// The environment the command lines below see: one secret, one with a line break.
const std::map<std::string, std::string> kEnvironment = {
    {"API_TOKEN", "Bearer s3cr3t"}, {"BROKEN_TOKEN", "s3cr3t\r\nX-Evil: 1"}, {"EMPTY_TOKEN", ""}};

ParsedCli parse(const std::vector<std::string_view>& args) {
  return parse_contract_command_line(args, [](const std::string& name) -> std::optional<std::string> {
    const auto it = kEnvironment.find(name);
    return it == kEnvironment.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

std::string error_of(const std::vector<std::string_view>& args) {
  return parse(args).error;
}

}  // namespace

TEST_CASE("a check run: defaults", "[cli]") {
  const auto p = parse({"--base-url", "http://127.0.0.1:8000"});
  REQUIRE(p.error.empty());
  const CliOptions& o = p.options;
  CHECK(o.command == Command::check);
  CHECK(o.client.base_url == "http://127.0.0.1:8000");
  CHECK(o.run.mode == Mode::Quick);
  CHECK(o.run.concurrency == 2);
  CHECK(o.run.walk_limit == 0);
  CHECK(o.run.order_key == "id");
  CHECK(o.run.page_cap == 0);  // count/limit + 2, at most kMaxWalkPages
  CHECK(o.run.byte_cap == std::uint64_t{4} << 30);
  CHECK(o.client.retries == 3);
  CHECK(o.client.connect_timeout == std::chrono::seconds(5));
  CHECK_FALSE(o.seed_given);
  CHECK(o.progress);
  CHECK(o.reports.empty());
  CHECK_FALSE(o.help);
}

TEST_CASE("a check run: values, as separate words or after '='", "[cli]") {
  const auto p = parse({"--base-url=https://api.example.org/prefix", "--mode", "full", "--walk-limit=500",
                        "--seed", "010", "--only", "next_link_offset,status_ok", "--only=json_body", "--rate",
                        "2.5", "--connect-timeout", "0.5", "--retries", "100", "--junit", "r.xml",
                        "--no-progress", "--insecure"});
  REQUIRE(p.error.empty());
  const CliOptions& o = p.options;
  CHECK(o.run.mode == Mode::Full);
  CHECK(o.run.walk_limit == 500);
  CHECK(o.run.seed == 10);  // leading zeros are not octal
  CHECK(o.seed_given);
  CHECK(o.run.only == std::vector<std::string>{"next_link_offset", "status_ok", "json_body"});
  CHECK(o.client.rate == 2.5);
  CHECK(o.client.connect_timeout == std::chrono::milliseconds(500));
  CHECK(o.client.retries == 20);
  CHECK(o.report_file("--junit") == std::filesystem::path("r.xml"));
  CHECK_FALSE(o.progress);
  CHECK(o.client.insecure);
}

TEST_CASE("a check run: --alt-host names a second host name of the deployment", "[cli]") {
  CHECK(parse({"--base-url", "http://x"}).options.run.alt_host.empty());
  CHECK(parse({"--base-url", "http://x", "--alt-host", "api.example.org:8443"}).options.run.alt_host ==
        "api.example.org:8443");
  CHECK(parse({"--base-url", "http://x", "--alt-host", "[::1]:8000"}).options.run.alt_host == "[::1]:8000");
  CHECK(error_of({"--base-url", "http://x", "--alt-host", "https://h/"}) ==
        "option --alt-host needs a host name, host:port or [IPv6]:port, got 'https://h/'");
  CHECK(error_of({"--base-url", "http://x", "--alt-host", "a b"}) ==
        "option --alt-host needs a host name, host:port or [IPv6]:port, got 'a b'");
}

TEST_CASE("a check run: the walk's caps", "[cli]") {
  const auto p = parse({"--base-url", "http://x", "--mode", "full", "--page-cap", "40", "--byte-cap", "0"});
  REQUIRE(p.error.empty());
  CHECK(p.options.run.page_cap == 40);
  CHECK(p.options.run.byte_cap == 0);  // no byte cap
}

TEST_CASE("a bad command line gets one line saying what is wrong", "[cli]") {
  const std::vector<std::pair<std::vector<std::string_view>, std::string>> cases = {
      // what each command needs
      {{}, "a check run needs --base-url URL"},
      {{"record", "--base-url", "http://x"}, "record needs --out DIR"},
      {{"record", "--out", "snap"}, "record needs --base-url URL"},
      {{"diff", "--against", "new"}, "diff needs --snapshot DIR"},
      {{"diff", "--snapshot", "old"}, "diff needs either --base-url URL or --against DIR"},
      {{"diff", "--snapshot", "old", "--base-url", "http://x", "--against", "new"},
       "diff takes either --base-url URL or --against DIR, not both"},
      // values: choices, ranges, forms
      {{"--base-url", "http://x", "--mode", "slow"}, "option --mode is quick or full, got 'slow'"},
      {{"--base-url", "http://x", "--concurrency", "65"},
       "option --concurrency needs a whole number from 1 to 64, got '65'"},
      {{"--base-url", "http://x", "--walk-limit", "0"},
       "option --walk-limit needs a whole number of at least 1, got '0'"},
      {{"--base-url", "http://x", "--page-cap", "1e3"}, "option --page-cap needs a whole number, got '1e3'"},
      {{"--base-url", "http://x", "--rate", "0"},
       "option --rate needs a positive number of requests a second, got '0'"},
      {{"--base-url", "http://x", "--timeout", "-1"},
       "option --timeout needs a positive number of seconds, got '-1'"},
      {{"--base-url", "ftp://x"},
       "option --base-url needs an absolute http:// or https:// URL, got 'ftp://x'"},
      {{"--base-url", "http://x", "--only", "next_link_offset,nosuchrule"},
       "option --only names unknown rule 'nosuchrule' (--list prints them)"},
      // rules left in that no run of this mode could check: refused before any request
      {{"--base-url", "http://x", "--only", "walk_count_matches,walk_no_duplicates"},
       "--only and --skip leave only rules of the full walk (walk_no_duplicates, walk_count_matches), which "
       "quick mode never checks: add --mode full, or name other rules"},
      {{"--base-url", "http://x", "--only", "status_ok", "--skip", "status_ok"},
       "--only and --skip leave no rule to check"},
      {{"--base-url", "http://x", "--timeout"}, "option --timeout needs a value"},
      {{"--base-url", "http://x", "--insecure=yes"}, "option --insecure takes no value"},
      {{"--help=yes"}, "option --help takes no value"},
      // words in the wrong place
      {{"--base-url", "http://x", "--bogus"}, "unknown option '--bogus'"},
      {{"--base-url", "http://x", "--strict-host"},
       "option --strict-host is not one of a check run's (it belongs to diff)"},
      {{"record", "--base-url", "http://x", "--out", "x", "--mode", "full"},
       "option --mode is not one of record's (it belongs to a check run)"},
      {{"record", "--base-url", "http://x", "--out", "x", "--junit", "r.xml"},
       "option --junit is not one of record's (it belongs to a check run and diff)"},
      {{"diff", "--snapshot", "old", "--against", "new", "--out", "x"},
       "option --out is not one of diff's (it belongs to record)"},
      {{"--rate", "5", "record", "--base-url", "http://x", "--out", "x"},
       "record must be the first word, before --rate"},
  };
  for (const auto& [args, message] : cases)
    CHECK(error_of(args) == message);
}

TEST_CASE("a walk rule left in by --only is refused only where no walk runs", "[cli]") {
  CHECK(error_of({"--base-url", "http://x", "--mode", "full", "--only", "walk_count_matches"}).empty());
  CHECK(error_of({"--base-url", "http://x", "--only", "walk_count_matches,status_ok"}).empty());
  CHECK(error_of({"--base-url", "http://x", "--only", "walk_count_matches", "--list"}).empty());
}

TEST_CASE("stand-alone flags: --list, --version and --help", "[cli]") {
  CHECK(parse({"--list"}).options.list);
  CHECK(parse({"--version"}).options.version);
  CHECK(parse({"record", "--version"}).options.version);  // every command, as before CLI11
  CHECK(parse({"diff", "--version"}).options.version);
  CHECK(parse({"--help"}).options.help);
  const auto p = parse({"record", "--help"});
  CHECK(p.options.help);
  CHECK(p.options.command == Command::record);
}

TEST_CASE("record: its own options and the shared ones", "[cli]") {
  const auto p = parse({"record", "--base-url", "http://x", "--out", "snap", "--force", "--rate", "5"});
  REQUIRE(p.error.empty());
  CHECK(p.options.command == Command::record);
  CHECK(p.options.out == std::filesystem::path("snap"));
  CHECK(p.options.force);
  CHECK(p.options.client.rate == 5);
}

TEST_CASE("diff: a snapshot against the deployment or a second snapshot", "[cli]") {
  auto p = parse({"diff", "--snapshot", "old", "--against", "new", "--ignore", "author,file_size", "--ignore",
                  "alt", "--strict-host", "--json", "d.json"});
  REQUIRE(p.error.empty());
  CHECK(p.options.command == Command::diff);
  CHECK(p.options.snapshot == std::filesystem::path("old"));
  CHECK(p.options.against == std::filesystem::path("new"));
  CHECK(p.options.client.base_url.empty());
  CHECK(p.options.ignore == std::vector<std::string>{"author", "file_size", "alt"});
  CHECK(p.options.strict_host);
  CHECK(p.options.report_file("--json") == std::filesystem::path("d.json"));
  p = parse({"diff", "--snapshot", "old", "--base-url", "http://x", "--walk-limit", "1000"});
  REQUIRE(p.error.empty());
  CHECK(p.options.client.base_url == "http://x");
  CHECK(p.options.run.walk_limit == 1000);
}

TEST_CASE("secrets from the environment are sent, never echoed", "[cli]") {
  const auto p = parse({"--base-url", "http://x", "--header-from-env", "Authorization=API_TOKEN", "--header",
                        "X-Team:  frontend"});
  REQUIRE(p.error.empty());
  CHECK(p.options.client.headers == Headers{{"X-Team", "frontend"}, {"Authorization", "Bearer s3cr3t"}});
  CHECK(p.options.client.secrets == std::vector<std::string>{"Bearer s3cr3t"});  // masked in every answer
  CHECK(
      error_of({"--base-url", "http://x", "--header-from-env", "Authorization=NO_SUCH_TOKEN"}) ==
      "option --header-from-env cannot send Authorization: environment variable NO_SUCH_TOKEN is not set or "
      "empty");
  CHECK(error_of({"--base-url", "http://x", "--header-from-env", "Authorization=EMPTY_TOKEN"})
            .ends_with("is not set or empty"));
  CHECK(error_of({"--base-url", "http://x", "--header-from-env", "Authorization=BROKEN_TOKEN"}) ==
        "option --header-from-env cannot send Authorization: environment variable BROKEN_TOKEN holds a line "
        "break");
  CHECK(error_of({"--base-url", "http://x", "--header-from-env", "Authorization"}) ==
        "option --header-from-env needs Name=VARIABLE");
  for (const auto& args : std::vector<std::vector<std::string_view>>{
           {"--base-url", "http://x", "--header", "Authorization: Bearer s3cr3t\r\nX-Evil: 1"},
           {"--base-url", "http://x", "--header-from-env", "Authorization=API_TOKEN", "--timeout", "soon"},
           {"--base-url", "http://x", "--header", "Bad Name: s3cr3t"},
           {"--base-url", "http://u:s3cr3t@x/"}}) {
    const std::string error = error_of(args);
    CHECK_FALSE(error.empty());
    CHECK(error.find("s3cr3t") == std::string::npos);
  }
}

TEST_CASE("the help is generated from the declarations", "[cli]") {
  const std::string check = contract_usage();
  CHECK_THAT(check, Catch::Contains("Usage: entities-images-contract --base-url URL [OPTIONS]"));
  CHECK_THAT(check,
             Catch::Contains("   or: entities-images-contract record --base-url URL --out DIR [OPTIONS]"));
  CHECK_THAT(check, Catch::Contains("   or: entities-images-contract diff --snapshot DIR (--base-url URL | "
                                    "--against DIR) [OPTIONS]"));
  CHECK_THAT(check, Catch::Contains("Safety:") && Catch::Contains("--header-from-env Name=VAR"));
  const std::string record = contract_usage(Command::record);
  CHECK_THAT(record, Catch::StartsWith("Walks the deployment"));
  CHECK_THAT(record, Catch::Contains("--force") && Catch::Contains("--rate N"));
  CHECK(record.find("--mode") == std::string::npos);
  CHECK_THAT(contract_usage(Command::diff), Catch::Contains("Compared with (exactly one):"));
}

TEST_CASE("every report format is an option in --help and a row of docs/reports.md", "[cli][report]") {
  std::ifstream file(std::string(ENTIMG_DOCS_DIR) + "/reports.md");
  REQUIRE(file);
  std::stringstream docs;
  docs << file.rdbuf();
  const std::string check_help = contract_usage(Command::check), diff_help = contract_usage(Command::diff);
  for (const ReportFormat& format : report_formats()) {
    const std::string option = std::string(format.flag) + " FILE";
    INFO(option);
    CHECK(check_help.find(option) != std::string::npos);
    CHECK((diff_help.find(option) != std::string::npos) == static_cast<bool>(format.write_diff));
    CHECK(docs.str().find("| `" + option + "` |") != std::string::npos);
  }
}

TEST_CASE("the command that repeats a run carries its seed", "[report][cli]") {
  const auto getenv = [](const std::string&) { return std::optional<std::string>("Bearer abcdefgh"); };
  std::vector<std::string_view> args = {"--base-url", "http://x", "--header-from-env", "Authorization=TOKEN"};
  ParsedCli parsed = parse_contract_command_line(args, getenv);
  REQUIRE(parsed.error.empty());
  parsed.options.run.seed = 77;  // main() draws it from the clock
  CHECK(command_to_repeat("entities-images-contract", args, parsed.options) ==
        "entities-images-contract --base-url http://x --header-from-env Authorization=TOKEN --seed 77");
  REQUIRE(parsed.options.shown_headers.size() == 1);
  CHECK(parsed.options.shown_headers[0].variable == "TOKEN");
  CHECK(parsed.options.shown_headers[0].value.empty());  // never the secret

  // The secret typed on the command line as well is masked there.
  args.push_back("--header=X-Copy: Bearer abcdefgh");
  CHECK(
      command_to_repeat("c", args, parsed.options).ends_with("'--header=X-Copy: ***************' --seed 77"));

  args = {"--base-url", "http://x", "--seed", "5", "--only", "a b"};
  parsed = parse_contract_command_line({"--base-url", "http://x", "--seed", "5"}, getenv);
  CHECK(command_to_repeat("/opt/bin/c", args, parsed.options) ==
        "/opt/bin/c --base-url http://x --seed 5 --only 'a b'");
}

TEST_CASE("monitor: its options, and bad ones as one line", "[monitor][cli]") {
  const auto p = parse({"monitor", "--base-url", "http://127.0.0.1:8000", "--interval", "2s", "--listen",
                        "[::1]:0", "--runs", "3", "--rate", "5"});
  REQUIRE(p.error.empty());
  CHECK(p.options.command == Command::monitor);
  CHECK(p.options.monitor.interval == 2s);
  CHECK(p.options.monitor.listen_host == "::1");
  CHECK(p.options.monitor.listen_port == 0);
  CHECK(p.options.monitor.runs == 3);
  CHECK(p.options.client.rate == 5);
  const auto defaults = parse({"monitor", "--base-url", "http://127.0.0.1:8000"}).options.monitor;
  CHECK(defaults.interval == 5min);
  CHECK(defaults.listen_host == "127.0.0.1");
  CHECK(defaults.listen_port == 9464);

  const std::map<std::vector<std::string_view>, std::string> bad = {
      {{"--interval", "5"}, "option --interval needs a duration such as 30s, 5m, 1h or 1h30m"},
      {{"--interval", "0s"}, "option --interval needs a duration above 0"},
      {{"--listen", "9464"}, "option --listen needs HOST:PORT"},
      {{"--listen", "127.0.0.1:65536"}, "option --listen needs HOST:PORT"},
      {{"--runs", "0"}, "option --runs needs"},
      {{"--walk-limit", "5"}, "option --walk-limit is not one of monitor's"},
  };
  for (const auto& [extra, message] : bad) {
    std::vector<std::string_view> args = {"monitor", "--base-url", "http://127.0.0.1:8000"};
    args.insert(args.end(), extra.begin(), extra.end());
    INFO(extra.front());
    CHECK_THAT(parse(args).error, Catch::StartsWith(message));
  }
  CHECK(parse({"monitor"}).error == "monitor needs --base-url URL");
}

TEST_CASE("monitor: each run's report repeats it as a check run with its seed", "[monitor][cli]") {
  const std::vector<std::string_view> args = {
      "monitor",     "--base-url", "http://h:1", "--interval=1m", "--listen",
      "127.0.0.1:0", "--rate",     "2",          "--runs",        "4"};
  const auto p = parse(args);
  REQUIRE(p.error.empty());
  CHECK(monitor_run_to_repeat("contract", args, p.options, 42) ==
        "contract --base-url http://h:1 --rate 2 --seed 42");
}

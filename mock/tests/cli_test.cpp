#include "entimg/mock/cli.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "flags.hpp"

using namespace entimg::mock;

TEST_CASE("defaults", "[cli]") {
  const auto p = parse_command_line({});
  REQUIRE(p.error.empty());
  CHECK(p.options.host == "127.0.0.1");
  CHECK(p.options.port == 8000);
  CHECK(p.options.records == 300000);
  CHECK_FALSE(p.options.dataset);
}

TEST_CASE("values as separate words or after '='", "[cli]") {
  const auto p = parse_command_line({"--port", "0", "--records=10", "--seed", "9", "--host=0.0.0.0"});
  REQUIRE(p.error.empty());
  CHECK(p.options.port == 0);
  CHECK(p.options.records == 10);
  CHECK(p.options.seed == 9);
  CHECK(p.options.host == "0.0.0.0");
  CHECK(parse_command_line({"--dataset", "x.jsonl"}).options.dataset == std::filesystem::path("x.jsonl"));
}

TEST_CASE("bad command lines get one clear line", "[cli]") {
  CHECK(parse_command_line({"--bogus"}).error == "unknown option '--bogus'");
  CHECK(parse_command_line({"--port"}).error == "option --port needs a value");
  CHECK(parse_command_line({"--port", "-1"}).error ==
        "option --port needs a port number from 0 to 65535, got '-1'");
  CHECK(parse_command_line({"--records", "1e6"}).error.find("whole number") != std::string::npos);
  CHECK(parse_command_line({"--seed", "99999999999999999999"}).error.find("2^64-1") != std::string::npos);
  CHECK(parse_command_line({"--help=yes"}).error == "option --help takes no value");
  CHECK(
      parse_command_line({"--dataset", "x", "--records", "5"}).error.find("cannot be used with --dataset") !=
      std::string::npos);
  CHECK(parse_command_line({"--threads", "4097"}).error.find("from 0 to 4096") != std::string::npos);
}

TEST_CASE("latency, faults, CORS and log flags", "[cli]") {
  const auto p =
      parse_command_line({"--latency", "200:50", "--fail-rate", "0.25", "--fail-status", "429",
                          "--drop-rate=0.1", "--slow-body", "1000", "--cors", "http://localhost:3000",
                          "--cors", "https://app.example", "--log-json", "--seed", "7"});
  REQUIRE(p.error.empty());
  CHECK(p.options.faults.latency_ms == 200);
  CHECK(p.options.faults.jitter_ms == 50);
  CHECK(p.options.faults.fail_rate == 0.25);
  CHECK(p.options.faults.fail_status == 429);
  CHECK(p.options.faults.drop_rate == 0.1);
  CHECK(p.options.faults.slow_body_bps == 1000);
  CHECK(p.options.faults.seed == 7);
  CHECK(p.options.cors.origins == std::vector<std::string>{"http://localhost:3000", "https://app.example"});
  CHECK(p.options.log == LogFormat::json);
  CHECK(parse_command_line({"--quiet"}).options.log == LogFormat::none);
  CHECK(parse_command_line({}).options.log == LogFormat::text);
  CHECK_THAT(parse_command_line({"--latency", "fast"}).error, Catch::Contains("MS or MS:JITTER"));
  CHECK_THAT(parse_command_line({"--fail-rate", "1.5"}).error, Catch::Contains("share from 0 to 1"));
  CHECK_THAT(parse_command_line({"--fail-status", "404"}).error, Catch::Contains("500, 502, 503 or 429"));
  CHECK_THAT(parse_command_line({"--cors", "localhost:3000"}).error, Catch::Contains("an origin"));
  CHECK_THAT(parse_command_line({"--cors", "http://a.example/path"}).error, Catch::Contains("no path"));
}

TEST_CASE("a config file: a JSON object of flags, overridden by the command line", "[cli]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("entimg-cli-config-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&dir](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string team = write("team.json", R"({"port": 9000, "cors": ["http://localhost:3000"],
      "latency": "200:50", "quiet": true, "fail-rate": 0.5})");
  auto p = parse_command_line({"--config", team});
  REQUIRE(p.error.empty());
  CHECK(p.options.port == 9000);
  CHECK(p.options.cors.origins == std::vector<std::string>{"http://localhost:3000"});
  CHECK(p.options.faults.latency_ms == 200);
  CHECK(p.options.faults.fail_rate == 0.5);
  CHECK(p.options.log == LogFormat::none);
  p = parse_command_line({"--port", "0", "--config=" + team, "--cors", "*"});
  REQUIRE(p.error.empty());
  CHECK(p.options.port == 0);                                      // the command line wins
  CHECK(p.options.cors.origins == std::vector<std::string>{"*"});  // and replaces the list
  CHECK_THAT(parse_command_line({"--config", write("typo.json", R"({"prot": 1})")}).error,
             Catch::Contains("unknown key \"prot\"") && Catch::Contains("typo.json"));
  CHECK_THAT(parse_command_line({"--config", write("bad.json", "{")}).error,
             Catch::Contains("not valid JSON"));
  CHECK_THAT(parse_command_line({"--config", write("list.json", "[1]")}).error,
             Catch::Contains("JSON object"));
  CHECK_THAT(parse_command_line({"--config", write("kind.json", R"({"quiet": "yes"})")}).error,
             Catch::Contains("true or false"));
  CHECK_THAT(parse_command_line({"--config", (dir / "missing.json").string()}).error,
             Catch::Contains("cannot be read"));
  CHECK_THAT(parse_command_line({"--config", write("bad-value.json", R"({"port": 70000})")}).error,
             Catch::Contains("0 to 65535"));
  for (const std::string key : {"help", "version", "config", "h"})
    CHECK_THAT(parse_command_line({"--config", write("k.json", "{\"" + key + "\": true}")}).error,
               Catch::Contains("unknown key \"" + key + "\""));
  CHECK_THAT(parse_command_line({"--config", write("list.json", R"({"port": [1, 2]})")}).error,
             Catch::EndsWith("\"port\" needs a string or a number"));
  // A flag on the line replaces the file's choice of the ones it excludes.
  CHECK(parse_command_line({"--config", team, "--log-json"}).options.log == LogFormat::json);
  p = parse_command_line({"--config", write("off.json", R"({"quiet": false, "cors": "*"})")});
  REQUIRE(p.error.empty());
  CHECK(p.options.log == LogFormat::text);
  CHECK(p.options.cors.origins == std::vector<std::string>{"*"});
  std::filesystem::remove_all(dir);
}

TEST_CASE("a user as NAME:PASSWORD", "[cli]") {
  const auto p = parse_command_line({"--user", "alice:s3:cret"});
  REQUIRE(p.error.empty());
  REQUIRE(p.options.user);
  CHECK(p.options.user->name == "alice");
  CHECK(p.options.user->password == "s3:cret");
  CHECK(parse_command_line({"--user", "alice"}).error == "option --user needs NAME:PASSWORD");
  CHECK(parse_command_line({"--user", ":x"}).error == "option --user needs NAME:PASSWORD");
}

TEST_CASE("strict values and a generated help", "[cli]") {
  CHECK(parse_command_line({"--port", "010"}).options.port == 10);  // not read as octal
  CHECK(parse_command_line({"--cors", "http://a.example", "http://b.example"}).error ==
        "unknown option 'http://b.example'");
  CHECK(parse_command_line({"--quiet", "--log-json"}).error ==
        "option --quiet cannot be used with --log-json");
  CHECK(parse_command_line({"--quiet=yes"}).error == "option --quiet takes no value");
  CHECK(parse_command_line({"--host", ""}).error == "option --host needs an address, got ''");
  CHECK(parse_command_line({"-h"}).options.help);
  CHECK(parse_command_line({"--version"}).options.version);
  const std::string help = usage();
  CHECK_THAT(help, Catch::Contains("Usage: entities-images-mock [OPTIONS]"));
  CHECK_THAT(help, Catch::Contains("Latency and faults:") && Catch::Contains("--port N=8000") &&
                       Catch::Contains("--config FILE"));
}

// Each flag has one story in the npm package: a createMock() option, a flag npx's own front reads, or a
// reason npx refuses it with (the package reads the first and the last from the table).
TEST_CASE("every flag is an npm option, an npx front flag or says why npm has no use for it", "[cli]") {
  std::set<std::string_view> front(detail::kNpxFront.begin(), detail::kNpxFront.end());
  for (const detail::Flag& flag : detail::kFlags) {
    INFO(flag.name);
    const int stories = (flag.npm.empty() ? 0 : 1) + (flag.npm_absent.empty() ? 0 : 1) +
                        (front.erase(flag.name) == 1 ? 1 : 0);
    CHECK(stories == 1);
  }
  INFO("kNpxFront names flags the table does not declare");
  CHECK(front.empty());
}

// The docs read the flags' table too: README's options table names each flag (docs/mock.md says more),
// and no other; docs/mock.md names each X-Mock-* header and each key of PUT /__mock/faults.
TEST_CASE("the docs name each flag of the table, and no other", "[cli]") {
  const auto read = [](const char* name) {
    std::ifstream in(std::string(ENTIMG_FIXTURES_DIR) + "/../" + name);
    REQUIRE(in);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string readme = read("README.md"), mock_md = read("docs/mock.md"), help = usage();
  std::set<std::string> declared;
  for (const detail::Flag& flag : detail::kFlags) {
    const std::string name(flag.name.substr(flag.name.rfind(',') + 1));  // "-h,--help": "--help"
    declared.insert(name);
    CHECK_THAT(help, Catch::Contains(name));
    if (flag.kind != detail::FlagKind::help && name != "--version")
      CHECK_THAT(readme, Catch::Contains("`" + name));
    if (!flag.header.empty()) CHECK_THAT(mock_md, Catch::Contains("`" + std::string(flag.header)));
    for (const detail::KnobKey& key : flag.keys)
      if (flag.in_put && !key.name.empty())
        CHECK_THAT(mock_md, Catch::Contains("`" + std::string(key.name) + "`"));
  }
  const std::regex flag_in_docs("`(--[a-z-]+)");
  std::istringstream lines(readme);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("| `--"))
      for (std::sregex_iterator it(line.begin(), line.end(), flag_in_docs), end; it != end; ++it) {
        INFO("README's options table names " << (*it)[1].str()
                                             << ", which mock/django/flags.hpp does not declare");
        CHECK(declared.count((*it)[1].str()) == 1);
      }
}

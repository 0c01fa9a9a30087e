#include "entimg/mock/cli.hpp"

#include <catch2/catch.hpp>

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
  CHECK(parse_command_line({"--threads", "0"}).error.find("from 1 to 4096") != std::string::npos);
}

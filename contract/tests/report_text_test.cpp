#include "report_text.hpp"

#include <catch2/catch.hpp>

#include "entimg/contract/cli.hpp"

using namespace entimg::contract;
using namespace entimg::contract::detail;

TEST_CASE("shell words: plain text as is, the rest single-quoted", "[report]") {
  CHECK(shell_quoted("--base-url") == "--base-url");
  CHECK(shell_quoted("http://x:8000/a?b=1&c=2") == "'http://x:8000/a?b=1&c=2'");
  CHECK(shell_quoted("it's") == "'it'\\''s'");
  CHECK(shell_quoted("") == "''");
  CHECK(shell_quoted("$HOME") == "'$HOME'");
}

TEST_CASE("replay: the method the rule judged, the headers sent, a secret from the environment", "[report]") {
  const std::string url = "http://x/edw/api/entities-images/";
  CHECK(replay_command("GET", url, {}) ==
        "curl -sS -i -H 'User-Agent: entimg-contract (cpp-httplib)' http://x/edw/api/entities-images/");
  CHECK(replay_command("HEAD", url, {{"User-Agent", "mine", ""}}) ==
        "curl -sS --head -H 'User-Agent: mine' http://x/edw/api/entities-images/");
  CHECK(replay_command("OPTIONS", url, {{"Authorization", "", "TOKEN"}})
            .starts_with("curl -sS -i -X OPTIONS -H 'Authorization: '\"$TOKEN\" "));
  // A literal '$' in a --header value is not expanded by the shell.
  CHECK(replay_command("GET", url, {{"X-Price", "$5", ""}}).find("-H 'X-Price: $5'") != std::string::npos);
  // A side's own headers go too, in place of a --header of the same name.
  CHECK(replay_command("GET", url, {{"Accept-Encoding", "gzip", ""}, {"Authorization", "", "TOKEN"}},
                       {{"accept-encoding", "br"}, {"Host", "h:81"}}) ==
        "curl -sS -i -H 'Authorization: '\"$TOKEN\" -H 'accept-encoding: br' -H 'Host: h:81' -H 'User-Agent: "
        "entimg-contract (cpp-httplib)' http://x/edw/api/entities-images/");
}

TEST_CASE("messages split into expected and got", "[report]") {
  const auto parts = split_expected_got("expected 12 records (count 300), got 11");
  REQUIRE(parts);
  CHECK(parts->expected == "12 records (count 300)");
  CHECK(parts->got == "11");
  CHECK_FALSE(split_expected_got("Missing required property 'alt'."));
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

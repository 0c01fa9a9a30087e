#include "report_text.hpp"

#include <catch2/catch.hpp>

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

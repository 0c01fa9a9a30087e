// The table of rules (rules.cpp): every row complete and callable, and docs/contract-rules.md in step with
// it.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "entimg/contract/rules.hpp"

using namespace entimg::contract;

namespace {

// The cells of a Markdown table row, "\|" read as "|" and trimmed.
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The text without Markdown's code marks: the doc may set a rule's words in `code`.
std::string without_backticks(std::string text) {
  std::erase(text, '`');
  return text;
}

// The rows of the rules table of docs/contract-rules.md (the one headed "| Rule | Group |").
std::vector<std::vector<std::string>> documented_rules() {
  std::ifstream file(std::string(ENTIMG_DOCS_DIR) + "/contract-rules.md");
  REQUIRE(file);
  std::vector<std::vector<std::string>> rows;
  bool in_table = false;
  for (std::string line; std::getline(file, line);) {
    if (line.starts_with("| Rule | Group |")) {
      in_table = true;
    } else if (in_table && !line.starts_with("|")) {
      break;
    } else if (in_table && !line.starts_with("|---")) {
      rows.push_back(table_cells(line));
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("all_rules lists every rule once, in report order, with a source", "[rules]") {
  const auto& rules = all_rules();
  // As many as docs/contract-rules.md documents (the next test holds them to the same names and order): a
  // new rule changes no count here.
  REQUIRE(rules.size() == documented_rules().size());
  REQUIRE(rules.size() > 1);
  CHECK(rules.front().name == "status_ok");
  std::set<std::string_view> names;
  for (const auto& r : rules) {
    CHECK(names.insert(r.name).second);
    CHECK(!r.group.empty());
    CHECK(!r.summary.empty());
    CHECK(!r.source.empty());
    CHECK(find_rule(r.name) == &r);
    // Every row holds a function to call (a walk rule at least one of its two).
    const bool callable = std::visit(
        [](const auto& shape) {
          if constexpr (std::is_same_v<std::decay_t<decltype(shape)>, WalkPages>)
            return shape.page != nullptr || shape.end != nullptr;
          else
            return shape.check != nullptr;
        },
        r.check);
    CHECK(callable);
  }
  CHECK(find_rule("no_such_rule") == nullptr);
  CHECK(find_rule("head_matches_get")->method() == "HEAD");
  CHECK(find_rule("options_ok")->method() == "OPTIONS");
  CHECK(find_rule("status_ok")->method() == "GET");
  CHECK_THROWS_AS(rule_check<PagePair>("status_ok"), std::logic_error);
}

TEST_CASE("docs/contract-rules.md lists every rule of the table, in report order, as the table says",
          "[rules][docs]") {
  const auto rows = documented_rules();
  std::vector<std::string> documented;
  for (const auto& cells : rows) {
    REQUIRE(cells.size() == 5);  // rule, group, what it checks, source, how it fails
    const std::string name = without_backticks(cells[0]);
    documented.push_back(name);
    INFO(name);
    const Rule* rule = find_rule(name);
    CHECK(rule != nullptr);  // no rule the table does not know
    if (rule == nullptr) continue;
    CHECK(cells[1] == rule->group);
    // The doc's "what it checks" starts with the summary --list prints, and may say more after it.
    CHECK_THAT(without_backticks(cells[2]), Catch::StartsWith(std::string(rule->summary)));
    CHECK(cells[3] == rule->source);
  }
  std::vector<std::string> names;
  for (const Rule& rule : all_rules())
    names.emplace_back(rule.name);
  CHECK(documented == names);
}

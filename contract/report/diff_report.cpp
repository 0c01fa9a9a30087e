// The diff's console and JSON reports (the JUnit one is junit_report.cpp's).
#include <ostream>

#include "entimg/common/terminal_text.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/diff_report.hpp"

namespace entimg::contract {
namespace {

constexpr std::size_t kConsoleListed = 20;

// A snapshot's value on the console: JSON, cut, control and bidi characters escaped (common::printable).
std::string shown(const nlohmann::json& value, std::size_t max = 160) {
  return common::printable(
      common::utf8_cut(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), max, "..."));
}

std::string shown(const std::optional<nlohmann::json>& value) {
  return value ? shown(*value, 100) : "(absent)";
}

std::string shown(const std::optional<std::string>& value) {
  return value ? shown(nlohmann::json(*value), 200) : "(absent)";
}

std::string id_text(const nlohmann::json& record) {
  const auto id = record.is_object() ? record.find("id") : record.end();
  return record.is_object() && id != record.end() ? id->dump() : "?";
}

template <typename List, typename Line>
void list_some(std::ostream& out, const List& items, std::uint64_t total, Line line) {
  std::size_t n = 0;
  for (const auto& item : items) {
    if (n++ == kConsoleListed) break;
    out << "  " << line(item) << "\n";
  }
  if (total > std::min<std::uint64_t>(items.size(), kConsoleListed))
    out << "  ... and " << total - std::min<std::uint64_t>(items.size(), kConsoleListed)
        << " more (the JSON report lists up to " << items.size() << ")\n";
}

}  // namespace

void write_diff_console(std::ostream& out, const DiffReport& r) {
  if (!r.before_source.empty()) out << "diff: " << r.before_source << "\n   -> " << r.after_source << "\n";
  if (!r.error.empty()) {
    out << "error: " << common::printable(r.error) << "\n";
    return;
  }
  out << "records: " << r.before_records << " before, " << r.after_records << " after\n";
  if (r.count_changed()) out << "count: " << r.before_count << " -> " << r.after_count << "\n";
  if (r.added) {
    out << "added: " << r.added << " record" << (r.added == 1 ? "" : "s") << "\n";
    list_some(out, r.added_records, r.added,
              [](const auto& rec) { return "+ id " + id_text(rec) + ": " + shown(rec); });
  }
  if (r.removed) {
    out << "removed: " << r.removed << " record" << (r.removed == 1 ? "" : "s") << "\n";
    list_some(out, r.removed_records, r.removed,
              [](const auto& rec) { return "- id " + id_text(rec) + ": " + shown(rec); });
  }
  if (r.changed) {
    out << "changed: " << r.changed << " record" << (r.changed == 1 ? "" : "s") << "\n";
    list_some(out, r.changed_records, r.changed, [](const RecordChange& c) {
      std::string line = "~ id " + std::to_string(c.id) + ":";
      for (const auto& f : c.fields)
        line += " " + common::printable(f.field) + " " + shown(f.before) + " -> " + shown(f.after) + ";";
      line.pop_back();
      return line;
    });
  }
  if (r.drift()) {
    out << "schema drift:\n";
    for (const auto& f : r.fields_added)
      out << "  field added: " << common::printable(f) << "\n";
    for (const auto& f : r.fields_removed)
      out << "  field removed: " << common::printable(f) << "\n";
    for (const auto& t : r.types_changed)
      out << "  type changed: " << common::printable(t.field) << " " << t.before << " -> " << t.after << "\n";
  }
  if (!r.headers.empty()) {
    out << "headers changed (first page):\n";
    for (const auto& h : r.headers)
      out << "  " << common::printable(h.name) << ": " << shown(h.before) << " -> " << shown(h.after) << "\n";
  }
  if (!r.any_change()) {
    out << "no changes\n";
    return;
  }
  std::string summary;
  const auto add = [&summary](bool on, const std::string& text) {
    if (on) summary += (summary.empty() ? "" : ", ") + text;
  };
  add(r.count_changed(), "count");
  add(r.added, std::to_string(r.added) + " added");
  add(r.removed, std::to_string(r.removed) + " removed");
  add(r.changed, std::to_string(r.changed) + " changed");
  add(r.drift(), std::to_string(r.fields_added.size() + r.fields_removed.size() + r.types_changed.size()) +
                     " schema drift");
  add(!r.headers.empty(), std::to_string(r.headers.size()) + " header" + (r.headers.size() == 1 ? "" : "s"));
  out << "changes: " << summary << "\n";
}

void write_diff_json(std::ostream& out, const DiffReport& r, const DiffOptions& options) {
  using nlohmann::json;
  // A field or header that changed: what names it, and its value before and after where it had one.
  const auto before_after = [](json item, const auto& before, const auto& after) {
    if (before) item["before"] = *before;
    if (after) item["after"] = *after;
    return item;
  };
  json changed = json::array();
  for (const auto& c : r.changed_records) {
    json fields = json::array();
    for (const auto& f : c.fields)
      fields.push_back(before_after({{"field", f.field}}, f.before, f.after));
    changed.push_back({{"id", c.id}, {"fields", std::move(fields)}});
  }
  json types = json::array();
  for (const auto& t : r.types_changed)
    types.push_back({{"field", t.field}, {"before", t.before}, {"after", t.after}});
  json headers = json::array();
  for (const auto& h : r.headers)
    headers.push_back(before_after({{"name", h.name}}, h.before, h.after));
  const json doc = {
      {"before", r.before_source},
      {"after", r.after_source},
      {"error", r.error.empty() ? json() : json(r.error)},
      {"changes", r.error.empty() && r.any_change()},
      {"ignored_fields", options.ignore},
      {"strict_host", options.strict_host},
      {"count", {{"before", r.before_count}, {"after", r.after_count}}},
      {"records", {{"before", r.before_records}, {"after", r.after_records}}},
      {"added", {{"total", r.added}, {"listed", r.added_records}}},
      {"removed", {{"total", r.removed}, {"listed", r.removed_records}}},
      {"changed", {{"total", r.changed}, {"listed", std::move(changed)}}},
      {"schema_drift",
       {{"fields_added", r.fields_added},
        {"fields_removed", r.fields_removed},
        {"types_changed", std::move(types)}}},
      {"headers", std::move(headers)},
  };
  out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace entimg::contract

// `diff`: a snapshot against a live deployment or a second snapshot. Both sides are read in id order and
// joined like a merge, so memory stays bounded by a page and the listed changes, whatever the size.
#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "entimg/common/ascii.hpp"
#include "entimg/common/snapshot.hpp"
#include "entimg/common/url.hpp"
#include "entimg/contract/snapshot.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "page_stream.hpp"

namespace entimg::contract {
namespace fs = std::filesystem;
// Records are compared as nlohmann values: equality and order of keys do not matter there.
using Json = nlohmann::json;

namespace {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One side of the comparison: its records in order, its count and the first page's headers.
class Side {
 public:
  virtual ~Side() = default;
  /// The next record; nullopt at the end. Throws std::runtime_error on what cannot be read.
  virtual std::optional<Json> next() = 0;
  virtual std::uint64_t count() const = 0;
  std::string description;
  HeaderList headers;
};

HeaderList interesting(const HeaderList& all) {
  HeaderList out;
  for (const auto& [name, value] : all)
    if (!volatile_header(name)) out.emplace_back(name, value);
  return out;
}

class SnapshotSide : public Side {
 public:
  explicit SnapshotSide(const fs::path& dir) : dir_(dir), manifest_(common::open_snapshot(dir)) {
    description =
        "snapshot " + dir.string() + " (" + manifest_.base_url + ", recorded " + manifest_.recorded_at + ")";
    in_.open(common::snapshot_file(dir, "records.jsonl"), std::ios::binary);
    if (!in_) throw std::runtime_error(dir.string() + "/records.jsonl cannot be opened");
    std::ifstream head;
    if (fs::exists(fs::symlink_status(dir / "pages" / "page-1.head.json")))
      head.open(common::snapshot_file(dir, "pages/page-1.head.json"), std::ios::binary);
    if (head) {
      try {
        const auto doc = nlohmann::json::parse(head);
        for (const auto& pair : doc.at("headers"))
          headers.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(dir.string() +
                                 "/pages/page-1.head.json: " + detail::parse_error_text(e.what()));
      }
      headers = interesting(headers);
    }
  }
  std::optional<Json> next() override {
    if (!std::getline(in_, line_)) return std::nullopt;
    ++line_number_;
    // Comparing, dumping and describing a record recurse once per level: a deep line is refused first.
    if (detail::nesting_depth(line_) > detail::kMaxJsonDepth)
      throw std::runtime_error(dir_.string() + "/records.jsonl line " + std::to_string(line_number_) +
                               ": nests arrays/objects deeper than " + std::to_string(detail::kMaxJsonDepth) +
                               " levels");
    try {
      return detail::parse_json(line_);
    } catch (const std::exception& e) {  // nlohmann's parse error, or a number too long to read
      throw std::runtime_error(dir_.string() + "/records.jsonl line " + std::to_string(line_number_) +
                               ": not JSON: " + detail::parse_error_text(e.what()));
    }
  }
  std::uint64_t count() const override { return manifest_.count; }

 private:
  fs::path dir_;
  common::SnapshotManifest manifest_;
  std::ifstream in_;
  std::string line_;
  std::uint64_t line_number_ = 0;
};

class LiveSide : public Side {
 public:
  LiveSide(Client& client, const DiffOptions& options)
      : client_(client),
        options_(options),
        walk_(client, client.base_path() + "/edw/api/entities-images/", options.limit, options.concurrency) {
    description = "deployment " + client.origin() + client.base_path();
    const HttpExchange first = client.request("GET", client.base_path() + "/edw/api/entities-images/");
    if (first.status != 200)
      throw std::runtime_error("GET " + first.url + " answered " +
                               (first.status == 0 ? first.error : "status " + std::to_string(first.status)));
    headers = interesting(first.headers);
  }
  std::optional<Json> next() override {
    while (index_ >= page_.size()) {
      const auto page = walk_.next();
      if (!page) return std::nullopt;
      page_ = detail::to_nlohmann(*detail::results_array(*page));
      index_ = 0;
      seen_ += page_.size();
      if (options_.on_progress) options_.on_progress({seen_, walk_.count(), 0, {}});
    }
    return std::move(page_[index_++]);
  }
  std::uint64_t count() const override { return walk_.count(); }

 private:
  Client& client_;
  const DiffOptions& options_;
  detail::CollectionWalk walk_;
  Json page_ = Json::array();
  std::size_t index_ = 0;
  std::uint64_t seen_ = 0;
};

// The record's integer id when it fits 64 bits signed.
std::optional<std::int64_t> integer_id(const Json& record) {
  if (!record.is_object()) return std::nullopt;
  const auto id = record.find("id");
  if (id == record.end() || !id->is_number_integer()) return std::nullopt;
  if (id->is_number_unsigned() && id->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    return std::nullopt;
  return id->get<std::int64_t>();
}

// JSON kinds as JSON Schema names them.
enum Kind : unsigned {
  kNull = 1,
  kBoolean = 2,
  kInteger = 4,
  kNumber = 8,
  kString = 16,
  kArray = 32,
  kObject = 64
};

unsigned kind_of(const Json& v) {
  if (v.is_null()) return kNull;
  if (v.is_boolean()) return kBoolean;
  if (v.is_number_integer()) return kInteger;
  if (v.is_number()) return kNumber;
  if (v.is_string()) return kString;
  return v.is_array() ? kArray : kObject;
}

std::string kinds_text(unsigned kinds) {
  static constexpr std::array<std::pair<unsigned, const char*>, 7> kNames = {{{kNull, "null"},
                                                                              {kBoolean, "boolean"},
                                                                              {kInteger, "integer"},
                                                                              {kNumber, "number"},
                                                                              {kString, "string"},
                                                                              {kArray, "array"},
                                                                              {kObject, "object"}}};
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (kinds & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "absent" : out;
}

// `image` without its scheme and authority, unless --strict-host: a snapshot of staging compares with
// production on what matters, the path.
Json comparable(const std::string& field, const Json& value, const DiffOptions& options) {
  if (options.strict_host || field != "image" || !value.is_string()) return value;
  const auto parts = common::split_url(value.get_ref<const std::string&>());
  if (!parts.ok) return value;
  return parts.path + (parts.query.empty() ? "" : "?" + parts.query);
}

class Differ {
 public:
  Differ(const DiffOptions& options, DiffReport& report) : options_(options), report_(report) {}

  void run(Side& before, Side& after);

 private:
  // The id of a record, or a runtime_error: records are joined by it.
  std::int64_t id_of(const Json& record, const char* side, std::optional<std::int64_t>& last) {
    const auto id = integer_id(record);
    if (!id)
      throw std::runtime_error(std::string("a record of the ") + side +
                               " side has no integer id: " + record.dump().substr(0, 200));
    if (last && *id <= *last)
      throw std::runtime_error(std::string("the ") + side + " side's ids do not ascend (id " +
                               std::to_string(*id) + " after " + std::to_string(*last) +
                               "); diff joins the two sides in id order");
    last = id;
    return *id;
  }
  bool ignored(const std::string& field) const {
    return std::find(options_.ignore.begin(), options_.ignore.end(), field) != options_.ignore.end();
  }
  void note_fields(const Json& record, std::map<std::string, unsigned>& kinds) {
    if (!record.is_object()) return;
    for (const auto& [key, value] : record.items())
      if (!ignored(key)) kinds[key] |= kind_of(value);
  }
  void compare(std::int64_t id, const Json& a, const Json& b);
  void finish(Side& before, Side& after);

  const DiffOptions& options_;
  DiffReport& report_;
  std::map<std::string, unsigned> before_kinds_, after_kinds_;
  // Records whose only differences are fields present on one side: whether they count as changed is
  // known only at the end (a field absent from a whole side is schema drift, reported once).
  struct Pending {
    std::int64_t id;
    std::vector<std::string> fields;
  };
  std::vector<Pending> presence_only_;
};

void Differ::compare(std::int64_t id, const Json& a, const Json& b) {
  RecordChange change{id, {}};
  bool value_changed = false;
  std::set<std::string> keys;
  for (const Json* side : {&a, &b})
    if (side->is_object())
      for (const auto& item : side->items())
        keys.insert(item.key());
  for (const auto& key : keys) {
    if (ignored(key)) continue;
    const auto in_a = a.is_object() ? a.find(key) : a.end();
    const auto in_b = b.is_object() ? b.find(key) : b.end();
    const bool has_a = a.is_object() && in_a != a.end(), has_b = b.is_object() && in_b != b.end();
    if (has_a && has_b) {
      if (comparable(key, *in_a, options_) == comparable(key, *in_b, options_)) continue;
      value_changed = true;
      change.fields.push_back({key, *in_a, *in_b});
    } else {
      change.fields.push_back({key, has_a ? std::optional<Json>(*in_a) : std::nullopt,
                               has_b ? std::optional<Json>(*in_b) : std::nullopt});
    }
  }
  if (change.fields.empty()) return;
  if (!value_changed) {
    Pending pending{id, {}};
    for (const auto& f : change.fields)
      pending.fields.push_back(f.field);
    presence_only_.push_back(std::move(pending));
  } else {
    ++report_.changed;
  }
  if (report_.changed_records.size() < options_.listed) report_.changed_records.push_back(std::move(change));
}

void Differ::run(Side& before, Side& after) {
  using Keyed = std::optional<std::pair<std::int64_t, Json>>;
  std::optional<std::int64_t> last_a, last_b;
  const auto pull = [this](Side& side, const char* name, std::optional<std::int64_t>& last) -> Keyed {
    auto record = side.next();
    if (!record) return std::nullopt;
    const std::int64_t id = id_of(*record, name, last);
    return std::pair(id, std::move(*record));
  };
  Keyed a = pull(before, "old", last_a), b = pull(after, "new", last_b);
  while (a || b) {
    if (a && b && a->first == b->first) {
      ++report_.before_records, ++report_.after_records;
      note_fields(a->second, before_kinds_), note_fields(b->second, after_kinds_);
      compare(a->first, a->second, b->second);
      a = pull(before, "old", last_a), b = pull(after, "new", last_b);
    } else if (a && (!b || a->first < b->first)) {
      ++report_.before_records, ++report_.removed;
      note_fields(a->second, before_kinds_);
      if (report_.removed_records.size() < options_.listed)
        report_.removed_records.push_back(std::move(a->second));
      a = pull(before, "old", last_a);
    } else {
      ++report_.after_records, ++report_.added;
      note_fields(b->second, after_kinds_);
      if (report_.added_records.size() < options_.listed)
        report_.added_records.push_back(std::move(b->second));
      b = pull(after, "new", last_b);
    }
  }
  finish(before, after);
}

void Differ::finish(Side& before, Side& after) {
  report_.before_count = before.count();
  report_.after_count = after.count();
  std::set<std::string> drift;
  for (const auto& [field, kinds] : after_kinds_)
    if (!before_kinds_.contains(field)) report_.fields_added.push_back(field), drift.insert(field);
  for (const auto& [field, kinds] : before_kinds_) {
    const auto other = after_kinds_.find(field);
    if (other == after_kinds_.end()) {
      report_.fields_removed.push_back(field);
      drift.insert(field);
    } else if (other->second != kinds) {
      report_.types_changed.push_back({field, kinds_text(kinds), kinds_text(other->second)});
    }
  }
  // A field missing from one record only is that record's change; missing from a whole side, drift.
  std::set<std::int64_t> drift_only;
  for (const auto& p : presence_only_) {
    const bool all_drift =
        std::all_of(p.fields.begin(), p.fields.end(), [&](const auto& f) { return drift.contains(f); });
    if (all_drift)
      drift_only.insert(p.id);
    else
      ++report_.changed;
  }
  auto& listed = report_.changed_records;
  for (auto& change : listed)
    std::erase_if(change.fields, [&](const FieldChange& f) { return drift.contains(f.field); });
  std::erase_if(listed, [&](const RecordChange& c) { return c.fields.empty() || drift_only.contains(c.id); });

  // Headers, by name (case-insensitive), several values of one name joined as a list.
  const auto fold = [](const HeaderList& list) {
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : list) {
      auto [it, fresh] = out.emplace(common::ascii_lowered(name), value);
      if (!fresh) it->second += ", " + value;
    }
    return out;
  };
  const auto hb = fold(before.headers), ha = fold(after.headers);
  for (const auto& [name, value] : hb) {
    const auto other = ha.find(name);
    if (other == ha.end())
      report_.headers.push_back({name, value, std::nullopt});
    else if (other->second != value)
      report_.headers.push_back({name, value, other->second});
  }
  for (const auto& [name, value] : ha)
    if (!hb.contains(name)) report_.headers.push_back({name, std::nullopt, value});
}

}  // namespace

DiffReport diff_snapshot(const fs::path& before, const std::optional<fs::path>& after, Client* client,
                         const DiffOptions& options) {
  DiffReport report;
  try {
    SnapshotSide old_side(before);
    std::unique_ptr<Side> new_side;
    if (after) {
      new_side = std::make_unique<SnapshotSide>(*after);
    } else {
      if (client == nullptr) throw std::runtime_error("no deployment and no second snapshot to compare with");
      new_side = std::make_unique<LiveSide>(*client, options);
    }
    report.before_source = old_side.description;
    report.after_source = new_side->description;
    Differ(options, report).run(old_side, *new_side);
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  return report;
}

}  // namespace entimg::contract

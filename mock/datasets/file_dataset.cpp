// A collection loaded from a file of recorded or hand-written records (JSON Lines or a JSON array).
#include <algorithm>
#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "entimg/common/url.hpp"
#include "entimg/mock/dataset.hpp"
#include "record_json.hpp"

namespace entimg::mock {
namespace {

using nlohmann::json;

enum class Kind { Integer, String, NullableString, NullableInteger };

struct FieldSpec {
  const char* name;
  Kind kind;
};

// The 15 fields of spec §2.1 (reference §1.6 for the nullable ones); `image` is rebuilt per request.
constexpr std::array<FieldSpec, 15> kFields = {{{"id", Kind::Integer},
                                                {"image", Kind::String},
                                                {"file", Kind::String},
                                                {"original_filename", Kind::NullableString},
                                                {"file_size", Kind::Integer},
                                                {"author", Kind::String},
                                                {"name", Kind::String},
                                                {"default_caption", Kind::String},
                                                {"alt", Kind::String},
                                                {"description", Kind::String},
                                                {"subject_location", Kind::String},
                                                {"mime_type", Kind::String},
                                                {"order", Kind::Integer},
                                                {"key", Kind::NullableInteger},
                                                {"entity", Kind::Integer}}};

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Integer:
      return "an integer";
    case Kind::String:
      return "a string";
    case Kind::NullableString:
      return "a string or null";
    case Kind::NullableInteger:
      return "an integer or null";
  }
  return "?";
}

bool is_int64(const json& v) {
  return v.is_number_integer() && (v.is_number_unsigned() ? v.get<std::uint64_t>() <= INT64_MAX : true);
}

// A record is flat: nesting this deep is no record, and refusing it while parsing keeps both the parse and
// the message that quotes the value (a recursive dump) off a deep stack.
constexpr int kMaxNesting = 64;
// A message quotes at most this many bytes of a value or of the parser's last token.
constexpr std::size_t kMaxQuoted = 120;

std::string quoted(const std::string& text) {
  if (text.size() <= kMaxQuoted) return text;
  return common::utf8_cut(text, kMaxQuoted, "…") + " (" + std::to_string(text.size()) + " bytes)";
}

// Whether text nests arrays/objects deeper than kMaxNesting, strings skipped: one linear pass. (nlohmann's
// parser with a callback, which checked it before, walks the enclosing array at the end of every object in
// it, looking for a discarded value: a JSON array of 100,000 records took 264 s to load, its JSON Lines 12
// s.)
bool nests_too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// json::parse, refusing nesting deeper than kMaxNesting; a parse error's message is cut to a readable size.
// `at` names where a byte of the text is ("data.jsonl:3").
json parse_limited(std::string_view text, const std::function<std::string(std::size_t byte)>& at) {
  if (nests_too_deep(text))
    throw DatasetError(at(0) + ": nests arrays/objects deeper than " + std::to_string(kMaxNesting) +
                       " levels (a record's fields are flat)");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw DatasetError(at(e.byte) + ": invalid JSON: " + quoted(e.what()));
  } catch (const json::exception& e) {  // a number too large for any integer or double
    throw DatasetError(at(0) + ": invalid JSON: " + quoted(e.what()));
  }
}

bool fits(const json& v, Kind kind) {
  switch (kind) {
    case Kind::Integer:
      return is_int64(v);
    case Kind::String:
      return v.is_string();
    case Kind::NullableString:
      return v.is_null() || v.is_string();
    case Kind::NullableInteger:
      return v.is_null() || is_int64(v);
  }
  return false;
}

// Checks one record object; returns "" or the problem.
std::string check_record(const json& obj) {
  if (!obj.is_object()) return std::string("expected a JSON object (a record), got ") + obj.type_name();
  for (const auto& item : obj.items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 (em++) cannot capture one
    const json& value = item.value();
    const auto spec =
        std::find_if(kFields.begin(), kFields.end(), [&](const FieldSpec& f) { return key == f.name; });
    if (spec == kFields.end())
      return "unknown field \"" + quoted(key) + "\" (a record has the 15 fields of spec 2.1)";
    if (!fits(value, spec->kind))
      return "field \"" + quoted(key) + "\" must be " + kind_name(spec->kind) + ", got " +
             quoted(value.dump());
  }
  for (const auto& f : kFields)
    if (std::string_view(f.name) != "image" && !obj.contains(f.name))
      return std::string("missing field \"") + f.name + "\"";
  if (obj["file_size"].get<std::int64_t>() < 0) return "field \"file_size\" must be >= 0";
  return "";
}

Record to_record(const json& obj) {
  Record r;
  r.id = obj["id"].get<std::int64_t>();
  r.file = obj["file"].get<std::string>();
  if (!obj["original_filename"].is_null()) r.original_filename = obj["original_filename"].get<std::string>();
  r.file_size = obj["file_size"].get<std::int64_t>();
  r.author = obj["author"].get<std::string>();
  r.name = obj["name"].get<std::string>();
  r.default_caption = obj["default_caption"].get<std::string>();
  r.alt = obj["alt"].get<std::string>();
  r.description = obj["description"].get<std::string>();
  r.subject_location = obj["subject_location"].get<std::string>();
  r.mime_type = obj["mime_type"].get<std::string>();
  r.order = obj["order"].get<std::int64_t>();
  if (!obj["key"].is_null()) r.key = obj["key"].get<std::int64_t>();
  r.entity = obj["entity"].get<std::int64_t>();
  return r;
}

std::size_t line_of_offset(const std::string& text, std::size_t offset) {
  return 1 +
         static_cast<std::size_t>(std::count(
             text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

class FileDataset final : public Dataset {
 public:
  FileDataset(std::vector<Record> records, std::string origin)
      : records_(std::move(records)), origin_(std::move(origin)) {
    // The service lists by Meta.ordering = ('order',) with ties in id order (reference §5.1).
    std::stable_sort(records_.begin(), records_.end(), [](const Record& a, const Record& b) {
      return a.order != b.order ? a.order < b.order : a.id < b.id;
    });
    for (std::size_t i = 0; i < records_.size(); ++i) {
      by_entity_[records_[i].entity].push_back(i);
      by_file_.emplace(records_[i].file, i);
      by_id_.emplace(records_[i].id, i);
      max_id_ = std::max(max_id_, records_[i].id);
    }
  }

  std::int64_t max_id() const override { return max_id_; }

  std::optional<Record> find_by_id(std::int64_t id) const override {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) return std::nullopt;
    return records_[it->second];
  }

  std::optional<Record> find_by_file(std::string_view file) const override {
    const auto it = by_file_.find(std::string(file));
    if (it == by_file_.end()) return std::nullopt;
    return records_[it->second];
  }

  std::uint64_t count(const Selection& selection) const override {
    if (selection.matches_nothing) return 0;
    if (!selection.entity) return records_.size();
    const auto it = by_entity_.find(*selection.entity);
    return it == by_entity_.end() ? 0 : it->second.size();
  }

  void page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
            std::vector<Record>& out) const override {
    const std::uint64_t total = count(selection);
    if (offset >= total) return;
    const std::uint64_t end = offset + std::min(limit, total - offset);
    const std::vector<std::size_t>* positions = nullptr;
    if (selection.entity) positions = &by_entity_.at(*selection.entity);
    for (std::uint64_t k = offset; k < end; ++k)
      out.push_back(records_[positions ? (*positions)[k] : k]);
  }

  std::string describe() const override {
    return std::to_string(records_.size()) + " records from " + origin_;
  }

 private:
  std::vector<Record> records_;
  std::string origin_;
  std::unordered_map<std::int64_t, std::vector<std::size_t>> by_entity_;
  std::unordered_map<std::string, std::size_t> by_file_;
  std::unordered_map<std::int64_t, std::size_t> by_id_;
  std::int64_t max_id_ = 0;
};

}  // namespace

namespace detail {

std::string check_record_json(const nlohmann::json& obj) {
  return check_record(obj);
}

Record record_from_json(const nlohmann::json& obj) {
  return to_record(obj);
}

nlohmann::json record_to_json(const Record& r) {
  nlohmann::json o;
  o["id"] = r.id;
  o["file"] = r.file;
  o["original_filename"] = r.original_filename ? nlohmann::json(*r.original_filename) : nullptr;
  o["file_size"] = r.file_size;
  o["author"] = r.author;
  o["name"] = r.name;
  o["default_caption"] = r.default_caption;
  o["alt"] = r.alt;
  o["description"] = r.description;
  o["subject_location"] = r.subject_location;
  o["mime_type"] = r.mime_type;
  o["order"] = r.order;
  o["key"] = r.key ? nlohmann::json(*r.key) : nullptr;
  o["entity"] = r.entity;
  return o;
}

}  // namespace detail

void Dataset::each_batch(std::uint64_t offset, std::uint64_t limit, std::uint64_t batch,
                         const std::function<void(std::uint64_t, std::uint64_t, std::vector<Record>&)>& fetch,
                         const std::function<void(std::vector<Record>&)>& each) {
  std::vector<Record> records;
  for (std::uint64_t done = 0; done < limit;) {
    records.clear();
    fetch(offset + done, std::min(batch, limit - done), records);
    if (records.empty()) return;  // the selection ended
    done += records.size();
    each(records);
  }
}

void Dataset::page_in_batches(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                              std::uint64_t batch,
                              const std::function<void(std::vector<Record>&)>& each) const {
  each_batch(
      offset, limit, batch,
      [&](std::uint64_t from, std::uint64_t n, std::vector<Record>& out) { page(selection, from, n, out); },
      each);
}

void Dataset::each_record(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                          RecordSink& sink) const {
  page_in_batches(selection, offset, limit, kRecordBatch, [&sink](std::vector<Record>& records) {
    for (const Record& r : records)
      sink.record(view_of(r));
  });
}

std::int64_t Dataset::max_id() const {
  std::int64_t max = 0;
  std::vector<Record> chunk;
  const std::uint64_t total = count({});
  for (std::uint64_t offset = 0; offset < total; offset += 4096) {
    chunk.clear();
    page({}, offset, 4096, chunk);
    for (const Record& r : chunk)
      max = std::max(max, r.id);
  }
  return max;
}

std::unique_ptr<Dataset> load_dataset_text(const std::string& text, const std::string& where) {
  std::vector<Record> records;
  std::unordered_set<std::int64_t> ids;
  auto add = [&](const json& obj, const std::string& at) {
    if (const std::string problem = check_record(obj); !problem.empty())
      throw DatasetError(at + ": " + problem);
    Record r = to_record(obj);
    if (!ids.insert(r.id).second) throw DatasetError(at + ": duplicate id " + std::to_string(r.id));
    records.push_back(std::move(r));
  };

  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    const json doc = parse_limited(text, [&](std::size_t byte) {
      return byte == 0 ? where : where + ":" + std::to_string(line_of_offset(text, byte));
    });
    for (std::size_t i = 0; i < doc.size(); ++i)
      add(doc[i], where + ": record #" + std::to_string(i + 1));
  } else {
    std::size_t line_no = 0, start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++line_no;
      const std::string_view line(text.data() + start, end - start);
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      const std::string at = where + ":" + std::to_string(line_no);
      add(parse_limited(line, [&at](std::size_t) { return at; }), at);
    }
  }
  return std::make_unique<FileDataset>(std::move(records), where);
}

}  // namespace entimg::mock

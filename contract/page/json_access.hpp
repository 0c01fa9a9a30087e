#pragma once
// Reading a page's body whatever shape it has: members, results, counts and ids when they are what the
// checks need, nullopt otherwise; JSON pointers for messages.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "entimg/contract/observation.hpp"

namespace entimg::contract::detail {

/// A value of a page's body (simdjson's DOM: read-only, valid while the page's json_document lives).
using Json = simdjson::dom::element;
using JsonArray = simdjson::dom::array;

/// The body when the answer is a 200 JSON object; rules that read fields skip the page otherwise.
std::optional<Json> body_object(const Page& page);
/// Member `key` of an object, or nullopt (also when obj is not an object). Inline, as the next two: a call
/// returned the value through memory in a way that stalled the caller's load of it (rules look up several
/// members of every record).
inline std::optional<Json> member(Json obj, std::string_view key);
/// `results` of a 200 JSON object when it is an array.
std::optional<JsonArray> results_array(const Page& page);
/// The members the record rules read of one item of results, by one pass over its keys (none when it is not
/// an object). For a body without repeated keys, which parse_json_dom leaves.
RecordMembers members_of(Json record);

/// The items of a page's results with the members the record rules read: the ones the parse kept
/// (Page::json_records), or, for a page it kept none for (a huge array of tiny items), each found as the
/// range reaches it.
class RecordRange {
 public:
  class Iterator {
   public:
    explicit Iterator(const RecordMembers* kept) : kept_(kept) {}
    explicit Iterator(JsonArray::iterator item) : item_(item), found_(true) {}
    const RecordMembers& operator*() {
      if (!found_) return *kept_;
      current_ = members_of(*item_);
      return current_;
    }
    Iterator& operator++() {
      if (found_)
        ++item_;
      else
        ++kept_;
      return *this;
    }
    bool operator!=(const Iterator& other) const {
      return found_ ? item_ != other.item_ : kept_ != other.kept_;
    }

   private:
    const RecordMembers* kept_ = nullptr;
    JsonArray::iterator item_{};
    bool found_ = false;
    RecordMembers current_;
  };
  RecordRange(std::span<const RecordMembers> kept, JsonArray items, std::size_t size)
      : kept_(kept), items_(items), size_(size) {}
  Iterator begin() const { return size_ == kept_.size() ? Iterator(kept_.data()) : Iterator(items_.begin()); }
  Iterator end() const {
    return size_ == kept_.size() ? Iterator(kept_.data() + kept_.size()) : Iterator(items_.end());
  }
  std::size_t size() const { return size_; }

 private:
  std::span<const RecordMembers> kept_;
  JsonArray items_;
  std::size_t size_;
};

/// The items of results_array(page) with the members the record rules read, under the same conditions; a
/// rule that reads every record goes through these instead of member().
std::optional<RecordRange> result_records(const Page& page);
/// A non-negative integer that fits 64 bits (count, offsets); nullopt for any other value.
std::optional<std::uint64_t> as_count(std::optional<Json> value);
/// The record's integer `id` when it fits 64 bits signed.
inline std::optional<std::int64_t> record_id(Json record);
/// record_id of the record, from its members.
inline std::optional<std::int64_t> record_id(const RecordMembers& record);
/// The text of a string value; nullopt for any other value.
inline std::optional<std::string_view> as_string(std::optional<Json> value);
/// The last item of a non-empty array.
Json last_item(JsonArray array);
/// The last item of results_array(page) (non-empty): from the members the parse kept, without a walk over
/// the array, when it kept them.
Json last_result(const Page& page, JsonArray results);
/// Whether the value is an integer (of any sign and size simdjson keeps: int64 or uint64).
bool is_integer(Json value);
/// An integer value as decimal text ("-3", "18446744073709551615"); "" for any other value.
std::string integer_text(std::optional<Json> value);

/// A key escaped as an RFC 6901 pointer token ("~" → "~0", "/" → "~1").
std::string pointer_token(std::string_view key);
/// "/results/3/id": pointer to a field of a record (the key escaped as RFC 6901 wants).
std::string record_pointer(std::size_t index, std::string_view key = {});

// ---- the inline ones ----

inline std::optional<Json> member(Json obj, std::string_view key) {
  if (obj.type() != simdjson::dom::element_type::OBJECT) return std::nullopt;
  // parse_json_dom leaves no repeated key, so the first match is the only one.
  // A copy: value_unsafe() of a temporary result refers into it, so a range-for over it would dangle.
  const simdjson::dom::object object = obj.get_object().value_unsafe();
  // By the iterator, not a range-for: the pair a range-for makes was copied through the stack in a way that
  // stalled the load after it (a third of this function's time). The first byte before the rest: a
  // record's keys of one size all differ there, so memcmp runs once, on the key looked for.
  for (auto field = object.begin(), end = object.end(); field != end; ++field) {
    if (field.key_length() != key.size()) continue;
    const char* name = field.key_c_str();
    if ((key.empty() || name[0] == key[0]) && std::memcmp(name, key.data(), key.size()) == 0)
      return field.value();
  }
  return std::nullopt;
}

inline std::optional<std::int64_t> record_id(Json record) {
  const auto id = member(record, "id");
  if (!id || id->type() != simdjson::dom::element_type::INT64) return std::nullopt;  // UINT64: beyond int64
  return id->get_int64().value_unsafe();
}

inline std::optional<std::int64_t> record_id(const RecordMembers& record) {
  const auto id = record.id();
  if (!id || id->type() != simdjson::dom::element_type::INT64) return std::nullopt;
  return id->get_int64().value_unsafe();
}

inline std::optional<std::string_view> as_string(std::optional<Json> value) {
  if (!value || value->type() != simdjson::dom::element_type::STRING) return std::nullopt;
  return value->get_string().value_unsafe();
}

}  // namespace entimg::contract::detail

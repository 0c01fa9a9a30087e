// Rules that judge one page on its own: status, body, schemas, the record's cross-field rules and
// the page length.
#include <algorithm>
#include <array>
#include <cstring>

#include "checks_links.hpp"
#include "entimg/contract/checks.hpp"
#include "failure_budget.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "links.hpp"
#include "message_text.hpp"
#include "mime_types.hpp"
#include "rule_tables.hpp"
#include "text_scan.hpp"

namespace entimg::contract {
namespace {

using detail::ExpectedMime;
using detail::ImageType;
using detail::Json;

// The endpoint's own path (spec §4.1), to tell a deployment prefix in front of /media/.
constexpr std::string_view kCollectionTail = "/edw/api/entities-images/";

// "/prefix" when the collection lives under one, "" otherwise.
std::string_view path_prefix(const CheckContext& context) {
  const std::string_view path = context.collection_path;
  return path.ends_with(kCollectionTail) ? path.substr(0, path.size() - kCollectionTail.size())
                                         : std::string_view{};
}

// The path of an absolute URL or of an origin-relative one; nullopt for anything else.
std::optional<std::string_view> url_path(std::string_view url) {
  if (const std::size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    const std::string_view rest = url.substr(scheme + 3);
    const std::size_t slash = detail::first_of(rest, "/?#");
    if (slash == rest.size() || rest[slash] != '/') return std::string_view{};
    url = rest.substr(slash);
  } else if (!url.starts_with('/')) {
    return std::nullopt;
  }
  return url.substr(0, detail::first_of(url, "?#"));
}

// Which bytes are lowercase hex digits, as a table: a file's hex digits are random, so a test of the form
// "digit or a-f" mispredicts on every other one (that branch was most of file_layout's time in a walk).
constexpr std::array<bool, 256> kLowerHex = [] {
  std::array<bool, 256> table{};
  for (const char c : std::string_view("0123456789abcdef"))
    table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool is_lower_hex(char c) {
  return kLowerHex[static_cast<unsigned char>(c)];
}

// Whether every byte of s is a lowercase hex digit, without a branch per byte.
bool all_lower_hex(std::string_view s) {
  bool all = true;
  for (const char c : s)
    all &= is_lower_hex(c);
  return all;
}

// text.substr(at, size) where the caller has made sure that text holds it: without substr's check,
// whose throw kept it out of line (a dozen calls per record cost 2 % of a walk).
std::string_view part(std::string_view text, std::size_t at, std::size_t size) {
  return {text.data() + at, size};
}

// Whether uuid (36 bytes) is 8-4-4-4-12 lowercase hex digits, without a branch per byte.
bool is_hyphenated_uuid(std::string_view uuid) {
  return uuid[8] == '-' && uuid[13] == '-' && uuid[18] == '-' && uuid[23] == '-' &&
         all_lower_hex(part(uuid, 0, 8)) && all_lower_hex(part(uuid, 9, 4)) &&
         all_lower_hex(part(uuid, 14, 4)) && all_lower_hex(part(uuid, 19, 4)) &&
         all_lower_hex(part(uuid, 24, 12));
}

// What is wrong with a stored path, or "" when it has filer's randomized layout (reference §4).
// Sets uuid_v4 to whether the uuid is version 4 with the RFC 4122 variant.
std::string file_layout_problem(std::string_view file, bool& uuid_v4) {
  constexpr std::string_view kRoot = "filer_public/";
  uuid_v4 = false;
  if (!file.starts_with(kRoot)) return "expected it to start with filer_public/";
  std::string_view rest = part(file, kRoot.size(), file.size() - kRoot.size());
  if (rest.size() < 6 || rest[2] != '/' || rest[5] != '/' || !all_lower_hex(part(rest, 0, 2)) ||
      !all_lower_hex(part(rest, 3, 2)))
    return "expected two folders of 2 lowercase hex digits after filer_public/";
  const std::string_view folders = part(rest, 0, 5);
  rest.remove_prefix(6);
  if (rest.size() < 37 || rest[36] != '/')
    return "expected a lowercase hyphenated uuid (8-4-4-4-12 hex digits) folder after the hex folders";
  const std::string_view uuid = part(rest, 0, 36);
  if (!is_hyphenated_uuid(uuid))
    return "expected a lowercase hyphenated uuid (8-4-4-4-12 hex digits) folder, got " + detail::quote(uuid);
  if (folders[0] != uuid[0] || folders[1] != uuid[1] || folders[3] != uuid[2] || folders[4] != uuid[3])
    return "expected the folders to be the uuid's first four hex digits (" + std::string(uuid.substr(0, 2)) +
           "/" + std::string(uuid.substr(2, 2)) + "), got " + std::string(folders);
  const std::string_view name = part(rest, 37, rest.size() - 37);
  if (name.empty()) return "expected a file name after the uuid folder";
  if (name.find('/') != std::string_view::npos)
    return "expected one file name after the uuid folder, got a path";
  uuid_v4 = uuid[14] == '4' && (uuid[19] == '8' || uuid[19] == '9' || uuid[19] == 'a' || uuid[19] == 'b');
  return {};
}

// is_valid, with a validator exception counted as "not valid" (then explained by schema_errors).
template <typename Document>
bool schema_valid(const common::SchemaValidator& schema, const Document& doc) {
  try {
    return schema.is_valid(doc);
  } catch (const std::exception&) {
    return false;
  }
}

// The same for a record whose members were found under the record keys (RecordMembers::whole).
bool schema_valid(const common::SchemaValidator& schema, Json record,
                  const common::SchemaValidator::MemberSlots& slots, const RecordMembers& members) {
  try {
    return schema.is_valid(record, slots, members.by_key, members.present);
  } catch (const std::exception&) {
    return false;
  }
}

// The violations of doc. Every member of our envelope (but results) and of a record is a scalar, and
// valijson throws on an array or object where a string with a "format" belongs, so such members are
// reported here and replaced by null before the validator sees them.
std::vector<common::SchemaError> schema_errors(const common::SchemaValidator& schema,
                                               const nlohmann::json& doc) {
  std::vector<common::SchemaError> out;
  nlohmann::json sanitized;
  const nlohmann::json* target = &doc;
  if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() == "results" || !it->is_structured()) continue;
      if (target == &doc) {
        sanitized = doc;
        target = &sanitized;
      }
      sanitized[it.key()] = nullptr;
      out.push_back({"/" + detail::pointer_token(it.key()),
                     "expected a string, a number or null here, got " + detail::describe(*it)});
    }
  }
  const std::size_t replaced = out.size();
  try {
    for (auto& error : schema.validate(*target)) {
      const auto same_place = [&](const common::SchemaError& e) { return e.pointer == error.pointer; };
      if (std::none_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(replaced), same_place))
        out.push_back(std::move(error));
    }
  } catch (const std::exception& e) {
    out.push_back(
        {"", "the schema validator could not judge this value: " + common::utf8_replace_invalid(e.what())});
  }
  if (out.empty()) out.push_back({"", "the schema validator rejected this value without saying why"});
  return out;
}

/// "Success status 200 OK" (spec §4.1).
void status_ok(const CheckContext&, const Page& page, Findings& findings) {
  const HttpExchange& ex = page.exchange;
  if (ex.status == 200) {
    findings.pass("status_ok");
    return;
  }
  std::string got =
      ex.status == 0 ? "no answer: " + detail::quote(ex.error) : "status " + std::to_string(ex.status);
  if (ex.status >= 300 && ex.status < 400)
    if (const auto location = ex.header("Location")) got += " to " + detail::quote(*location);
  // Throttling is waited for and retried (Retry-After honoured, at most --max-retry-wait a wait): what stands
  // is a throttle that outlasted the suite's budget, which is what the user can change.
  if ((ex.status == 429 || ex.status == 503) && ex.attempts > 1)
    got += " after " + std::to_string(ex.attempts) + " attempts (" + std::to_string(ex.attempts - 1) +
           " retries, each after the Retry-After asked or a backoff): the deployment still " +
           (ex.status == 429 ? "throttles" : "is unavailable") +
           " when the suite's retries are spent (--retries; each wait at most 30 s; --rate sends fewer "
           "requests)";
  findings.fail({"status_ok", "expected status 200, got " + got, ex.url, "", std::nullopt});
}

/// "Response body: page envelope" (spec §4.1): a 200 body is one JSON object, without the byte-order
/// mark RFC 8259 §8.1 forbids senders to add (parsers skip it, so clients differ on such a body).
void json_body(const CheckContext&, const Page& page, Findings& findings) {
  if (page.exchange.status != 200) return;
  if (page.exchange.body.starts_with("\xEF\xBB\xBF")) {
    findings.fail(
        {"json_body",
         "expected a JSON object, got a UTF-8 byte-order mark (EF BB BF) before it: RFC 8259 §8.1 says "
         "a sender must not add one",
         page.exchange.url, "", std::nullopt});
    return;
  }
  if (page.json && page.json->is_object()) {
    if (page.json_repeated_key) {
      findings.fail({"json_body",
                     "expected each name once in a JSON object, got " +
                         detail::quote(*page.json_repeated_key) +
                         " twice: RFC 8259 §4 leaves which value counts to each receiver",
                     page.exchange.url, "", std::nullopt});
      return;
    }
    findings.pass("json_body");
    return;
  }
  const std::string got = page.json
                              ? detail::describe(*page.json)
                              : (page.json_error.empty() ? "a body that was not parsed" : page.json_error);
  findings.fail({"json_body", "expected a JSON object, got " + got, page.exchange.url, "", std::nullopt});
}

/// "Page envelope: count, next, previous, results" (spec §2.2), against schema/page.schema.json.
void page_schema(const CheckContext& context, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  if (!body || context.page_schema == nullptr) return;
  // The records are record_schema's: validating them here as well would double the costliest work
  // of a run, so the envelope is checked with an empty results array in their place.
  nlohmann::json envelope = nlohmann::json::object();
  const simdjson::dom::object members = body->get_object().value_unsafe();
  for (const auto field : members) {
    envelope[std::string(field.key)] = field.key == "results" && field.value.is_array()
                                           ? nlohmann::json::array()
                                           : detail::to_nlohmann(field.value);
  }
  detail::FailureBudget budget(findings, "page_schema", page.exchange.url);
  if (schema_valid(*context.page_schema, envelope)) {
    budget.pass();
  } else {
    for (auto& error : schema_errors(*context.page_schema, envelope))
      budget.fail(std::move(error.message), std::move(error.pointer));
  }
  budget.finish();
}

/// "Image record: the 15 fields and their types" (spec §2.1), against schema/image-record.schema.json.
void record_schema(const CheckContext& context, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results || context.record_schema == nullptr) return;
  detail::FailureBudget budget(findings, "record_schema", page.exchange.url);
  const common::SchemaValidator& schema = *context.record_schema;
  // An item whose members the parse found under the record keys, and no other, is checked by slot.
  const common::SchemaValidator::MemberSlots slots = schema.member_slots(kRecordKeys);
  std::size_t i = 0;
  for (const RecordMembers& members : *results) {
    const std::size_t index = i++;
    const Json record = members.record;
    const bool valid =
        members.whole ? schema_valid(schema, record, slots, members) : schema_valid(schema, record);
    if (valid) {  // the fast path: explain only what fails
      budget.pass();
      continue;
    }
    if (!budget.room()) {
      budget.fail("");  // counted in the "… and N more" line
      continue;
    }
    const auto id = detail::record_id(record);
    for (auto& error : schema_errors(schema, detail::to_nlohmann(record)))
      budget.fail(std::move(error.message), detail::record_pointer(index) + error.pointer, id);
  }
  budget.finish();
}

/// "file equals the part of image that follows the media prefix" (spec §2.1; reference §4: Django's
/// filepath_to_uri may percent-encode it, so the paths are compared decoded).
void image_matches_file(const CheckContext& context, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results) return;
  const std::string_view prefix = path_prefix(context);
  const auto own_origin = detail::normalised_origin(context.origin);
  detail::FailureBudget budget(findings, "image_matches_file", page.exchange.url);
  std::string decoded;
  std::size_t i = 0;
  for (const RecordMembers& record : *results) {
    const std::size_t index = i++;
    const auto image = detail::as_string(record.image());
    const auto file = detail::as_string(record.file());
    if (!image || !file) continue;
    const std::string_view image_url = *image;
    const std::string_view stored = *file;
    const auto raw_path = url_path(image_url);
    if (!raw_path) {
      budget.fail("expected image to be a URL ending in /media/" + std::string(stored) + ", got " +
                      detail::quote(image_url),
                  detail::record_pointer(index, "image"), detail::record_id(record));
      continue;
    }
    std::string_view path = *raw_path;
    if (detail::first_of(path, "%") != path.size()) {
      decoded = common::percent_decode(path, false);
      path = decoded;
    }
    bool ok = path.size() >= stored.size() + 7 && path.ends_with(stored) &&
              path.substr(0, path.size() - stored.size()).ends_with("/media/");
    if (ok) {
      const std::string_view before = path.substr(0, path.size() - stored.size() - 7);
      // A media host of its own (a CDN MEDIA_URL) may have any path prefix; link_origin judges the host.
      ok = before.empty() || before == prefix || detail::normalised_origin(image_url) != own_origin;
    }
    if (ok) {
      budget.pass();
      continue;
    }
    budget.fail("expected image's path (percent-decoded) to be " + std::string(prefix) + "/media/ + file = " +
                    detail::quote(std::string(prefix) + "/media/" + std::string(stored)) + ", got " +
                    detail::quote(path),
                detail::record_pointer(index, "image"), detail::record_id(record));
  }
  budget.finish();
}

/// "media/filer_public/<2 hex>/<2 hex>/<uuid>/<stored file name>" (spec §2.1); the folders are the
/// uuid's first four hex digits (reference §4, django-filer's randomized generator).
void file_layout(const CheckContext&, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results) return;
  detail::FailureBudget budget(findings, "file_layout", page.exchange.url);
  bool all_v4 = true;
  std::size_t i = 0;
  for (const RecordMembers& record : *results) {
    const std::size_t index = i++;
    const auto file = detail::as_string(record.file());
    if (!file) continue;
    bool v4 = false;
    const std::string problem = file_layout_problem(*file, v4);
    if (problem.empty()) {
      budget.pass();
      all_v4 = all_v4 && v4;
      continue;
    }
    budget.fail(problem + " in file " + detail::quote(*file), detail::record_pointer(index, "file"),
                detail::record_id(record));
  }
  budget.finish();
  // Not a failure: the spec says only <uuid>, and files imported by other routes may use other uuids.
  if (!all_v4)
    findings.note(
        "file_layout",
        "some file uuids are not version 4 (django-filer's randomized generator uses uuid4); accepted, "
        "as the spec only says <uuid>");
}

/// "mime_type: media type of the file" (spec §2.1), i.e. mimetypes.guess_type of the stored name,
/// "" when unknown (reference C12, §1.6).
void mime_type_matches_extension(const CheckContext&, const Page& page, Findings& findings) {
  const auto results = detail::result_records(page);
  if (!results) return;
  detail::FailureBudget budget(findings, "mime_type_matches_extension", page.exchange.url);
  std::size_t i = 0;
  for (const RecordMembers& record : *results) {
    const std::size_t index = i++;
    const auto file = detail::as_string(record.file());
    const auto mime = detail::as_string(record.mime_type());
    if (!file || !mime) continue;
    const std::string_view type = *mime;
    const ExpectedMime expected = detail::expected_mime(*file);
    std::string problem;
    if (expected.image != nullptr) {
      const bool ok = type == expected.image->type ||
                      (!expected.image->other_type.empty() && type == expected.image->other_type) ||
                      (type.empty() && expected.empty_ok) ||
                      (expected.any_other_ok && !detail::is_image_table_type(type));
      if (!ok)
        problem = "expected mime_type " + detail::quote(expected.image->type) + " for extension " +
                  detail::quote(expected.extension) + ", got " + detail::quote(type);
    } else if (!type.empty()) {
      // An extension unknown here may be known to the host's /etc/mime.types; only a type that
      // belongs to another image extension is surely wrong.
      if (const ImageType* other = detail::image_table_type(type))
        problem = "expected mime_type \"\" (or the host's type) for extension " +
                  (expected.extension.empty() ? std::string("none") : detail::quote(expected.extension)) +
                  ", got " + detail::quote(type) + ", the type of " + std::string(other->extension);
    }
    if (problem.empty()) {
      budget.pass();
    } else {
      budget.fail(problem + " (file " + detail::quote(*file) + ")",
                  detail::record_pointer(index, "mime_type"), detail::record_id(record));
    }
  }
  budget.finish();
}

/// "results holds max(0, min(limit, count − offset)) records" for the effective window (reference
/// §2.2, C2 / DRF pagination.py paginate_queryset).
void page_length(const CheckContext&, const Page& page, Findings& findings) {
  const auto body = detail::body_object(page);
  const auto results = detail::results_array(page);
  if (!body || !results) return;
  const auto count = detail::as_count(detail::member(*body, "count"));
  if (!count) return;
  const std::uint64_t limit = page.effective_limit, offset = page.effective_offset;
  const std::uint64_t expected = *count > offset ? std::min(*count - offset, limit) : 0;
  if (detail::count_of(*results) == expected) {
    if (page.capped_from != 0)
      findings.note("page_length", "the deployment caps limit at " + std::to_string(limit) +
                                       " (DRF's max_limit): limit=" + std::to_string(page.capped_from) +
                                       " gets pages of " + std::to_string(limit) +
                                       " whose links say so, judged by that limit");
    findings.pass("page_length");
    return;
  }
  findings.fail({"page_length",
                 "expected " + std::to_string(expected) + " records (count " + std::to_string(*count) +
                     ", offset " + std::to_string(offset) + ", limit " + std::to_string(limit) + "), got " +
                     std::to_string(detail::count_of(*results)),
                 page.exchange.url, "/results", std::nullopt});
}

/// "The page length in the links is 12, and results holds 12 records on a full page" (spec §2.2 rule 4).
void default_page_length(const CheckContext&, const Page& default_page, Findings& findings) {
  const auto body = detail::body_object(default_page);
  if (!body) return;
  detail::FailureBudget budget(findings, "default_page_length", default_page.exchange.url);
  const auto results = detail::results_array(default_page);
  const auto count = detail::as_count(detail::member(*body, "count"));
  const std::uint64_t offset = default_page.effective_offset;
  if (results && count) {
    const std::uint64_t expected = *count > offset ? std::min<std::uint64_t>(*count - offset, 12) : 0;
    if (detail::count_of(*results) == expected) {
      budget.pass();
    } else {
      budget.fail("expected " + std::to_string(expected) + " records on a default page (12 at most; count " +
                      std::to_string(*count) + ", offset " + std::to_string(offset) +
                      ", no limit sent), got " + std::to_string(detail::count_of(*results)),
                  "/results");
    }
  }
  check_link_limits(*body, "12", "the default page length", budget);
  budget.finish();
}

constexpr Rule kPageRules[] = {
    {"status_ok", "headers", "GET of the collection answers 200 OK", "spec §4.1 (Success status)",
     EveryPage{status_ok}},
    {"json_body", "schema", "a 200 body is a JSON object", "spec §4.1 (Response body); reference §3.8",
     EveryPage{json_body}},
    {"page_schema", "schema", "the envelope conforms to schema/page.schema.json (records aside)",
     "spec §2.2; reference C1, C2; docs/schema.md", EveryPage{page_schema}},
    {"record_schema", "schema", "every record conforms to schema/image-record.schema.json",
     "spec §2.1; reference C6, C7; docs/schema.md", EveryPage{record_schema}},
    {"image_matches_file", "cross-field",
     "the path of image is [prefix]/media/ + file (compared percent-decoded)",
     "spec §2.1 (image, file); reference §4, C8", EveryPage{image_matches_file}},
    {"file_layout", "cross-field",
     "file is filer_public/<2 hex>/<2 hex>/<uuid>/<name>, the folders being the uuid's first 4 hex digits",
     "spec §2.1 (image); reference §4 (django-filer randomized), C8", EveryPage{file_layout}},
    {"mime_type_matches_extension", "cross-field",
     "mime_type is what Python's mimetypes gives for file's extension (\"\" only for non-image extensions)",
     "spec §2.1 (mime_type); reference C12, §1.6 (edw serializer)", EveryPage{mime_type_matches_extension}},
    {"page_length", "page-length", "len(results) == clamp(count − offset, 0, limit) for the effective window",
     "reference §2.2, C2 / DRF pagination.py", EveryPage{page_length}},
    {"default_page_length", "page-length",
     "without limit, a full page holds 12 records and links carry limit=12",
     "spec §2.2 rule 4, §8; reference §1.5 (PAGE_SIZE 12)",
     PlannedPage{PlanStep::first_page, default_page_length}},
};

}  // namespace

std::span<const Rule> detail::page_rules() {
  return kPageRules;
}

}  // namespace entimg::contract

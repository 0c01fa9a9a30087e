#include "list_view.hpp"

#include <initializer_list>
#include <utility>

#include "basic_auth.hpp"

#include "filer_names.hpp"
#include "json_writer.hpp"
#include "negotiation.hpp"
#include "pagination.hpp"
#include "python_number.hpp"

namespace entimg::mock::detail {
namespace {

// edw's @remove_empty_params_from_request: every key whose last value is blank is dropped.
common::QueryParams without_blank_params(const common::QueryParams& params) {
  common::QueryParams kept;
  for (const auto& entry : params) {
    const std::string* last = common::last_value(params, entry.first);
    if (last && !last->empty()) kept.push_back(entry);
  }
  return kept;
}

// The methods each route's view handles (reference §1.1): the list, one record, the API root.
constexpr std::string_view kListAllow = "GET, POST, HEAD, OPTIONS";
constexpr std::string_view kDetailAllow = "GET, PUT, PATCH, DELETE, HEAD, OPTIONS";
constexpr std::string_view kRootAllow = "GET, HEAD, OPTIONS";

HttpResponse view_response(int status, std::string body, std::string_view allow = kListAllow) {
  // APIView.finalize_response: Allow and Vary on every answer of the view, errors included.
  return HttpResponse{
      status, "application/json", {{"Vary", "Accept"}, {"Allow", std::string(allow)}}, std::move(body)};
}

HttpResponse detail_error(int status, std::string_view message, int indent = 0,
                          std::string_view allow = kListAllow) {
  std::string body;
  JsonWriter w(body, indent);
  w.begin_object();
  w.key("detail");
  w.string(message);
  w.end_object();
  return view_response(status, std::move(body), allow);
}

// A validation error: {"field": ["message"], ...} with status 400, fields in the order given.
HttpResponse field_errors(std::initializer_list<std::pair<std::string_view, std::string_view>> errors,
                          int indent) {
  std::string body;
  JsonWriter w(body, indent);
  w.begin_object();
  for (const auto& [field, message] : errors) {
    w.key(field);
    w.begin_array();
    w.string(message);
    w.end_array();
  }
  w.end_object();
  return view_response(400, std::move(body));
}

void write_record(JsonWriter& w, const Record& r, std::string_view media_prefix, std::string& scratch) {
  w.begin_object();
  w.key("id");
  w.integer(r.id);
  w.key("image");
  if (r.file.empty()) {
    w.null();  // DRF's FileField renders an empty file as null
  } else {
    scratch.assign(media_prefix);
    append_filepath_uri(scratch, r.file);
    w.string(scratch);
  }
  w.key("file");
  w.string(r.file);
  w.key("original_filename");
  w.nullable_string(r.original_filename);
  w.key("file_size");
  w.integer(r.file_size);
  w.key("author");
  w.string(r.author);
  w.key("name");
  w.string(r.name);
  w.key("default_caption");
  w.string(r.default_caption);
  w.key("alt");
  w.string(r.alt);
  w.key("description");
  w.string(r.description);
  w.key("subject_location");
  w.string(r.subject_location);
  w.key("mime_type");
  w.string(r.mime_type);
  w.key("order");
  w.integer(r.order);
  w.key("key");
  w.nullable_integer(r.key);
  w.key("entity");
  w.integer(r.entity);
  w.end_object();
}

HttpResponse list_page(const Dataset& dataset, const ViewRequest& request, const common::QueryParams& params,
                       int indent) {
  Selection selection;
  if (const std::string* entity = common::last_value(params, "entity")) {
    const DecimalLookup lookup = parse_decimal_lookup(*entity);
    if (!lookup.valid || lookup.above_maximum)
      return field_errors({{"entity", lookup.valid ? "Ensure this value is less than or equal to 1e+50."
                                                   : "Enter a number."}},
                          indent);
    selection.entity = lookup.value;
    selection.matches_nothing = !lookup.value.has_value();
  }
  const Window window = read_window(params);
  const std::uint64_t count = dataset.count(selection);

  thread_local std::vector<Record> records;  // reused: a page render allocates little
  records.clear();
  if (window.offset < BigUint(count))
    dataset.page(selection, window.offset.saturated(), window.limit.saturated(), records);

  std::string body;
  body.reserve(1024 + records.size() * 700);
  JsonWriter w(body, indent);
  w.begin_object();
  w.key("count");
  w.integer(static_cast<std::int64_t>(count));
  w.key("next");
  if (const auto next = next_link(request.url, window, count))
    w.string(*next);
  else
    w.null();
  w.key("previous");
  if (const auto previous = previous_link(request.url, window))
    w.string(*previous);
  else
    w.null();
  w.key("results");
  w.begin_array();
  const std::string media_prefix = request.origin + "/media/";
  std::string scratch;
  for (const Record& r : records)
    write_record(w, r, media_prefix, scratch);
  w.end_array();
  w.end_object();
  return view_response(200, std::move(body));
}

// SimpleMetadata (reference §3.4): "actions" only for a user allowed to POST, one entry a serializer
// field in order, as DRF 3.14 describes them.
void post_actions(JsonWriter& w) {
  struct Field {
    const char* name;
    const char* type;
    bool required, read_only;
    const char* label;
  };
  static constexpr Field kFields[] = {
      {"id", "integer", false, true, "ID"},
      {"image", "file upload", true, false, "Image"},
      {"file", "field", false, true, "File"},
      {"original_filename", "field", false, true, "Original filename"},
      {"file_size", "field", false, true, "File size"},
      {"author", "field", false, true, "Author"},
      {"name", "field", false, true, "Name"},
      {"default_caption", "field", false, true, "Default caption"},
      {"alt", "field", false, true, "Alt"},
      {"description", "field", false, true, "Description"},
      {"subject_location", "field", false, true, "Subject location"},
      {"mime_type", "field", false, true, "Mime type"},
      {"order", "integer", false, false, "Order"},
      {"key", "integer", false, false, "Key"},
      {"entity", "field", true, false, "Entity"},
  };
  w.key("actions");
  w.begin_object();
  w.key("POST");
  w.begin_object();
  for (const Field& f : kFields) {
    w.key(f.name);
    w.begin_object();
    w.key("type");
    w.string(f.type);
    w.key("required");
    w.boolean(f.required);
    w.key("read_only");
    w.boolean(f.read_only);
    w.key("label");
    w.string(f.label);
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

struct ViewName {
  std::string_view name, description, allow;
};
constexpr ViewName kListName{"Entity Image List", "", kListAllow};
constexpr ViewName kDetailName{"Entity Image Instance", "", kDetailAllow};
constexpr ViewName kRootName{"Api Root", "The default basic root view for DefaultRouter", kRootAllow};

HttpResponse options_metadata(int indent, bool may_post, const ViewName& view = kListName) {
  std::string body;
  JsonWriter w(body, indent);
  w.begin_object();
  w.key("name");
  w.string(view.name);
  w.key("description");
  w.string(view.description);
  w.key("renders");
  w.begin_array();
  w.string("application/json");
  w.string("text/html");
  w.end_array();
  w.key("parses");
  w.begin_array();
  w.string("application/json");
  w.string("application/x-www-form-urlencoded");
  w.string("multipart/form-data");
  w.end_array();
  if (may_post) post_actions(w);
  w.end_object();
  return view_response(200, std::move(body), view.allow);
}

// APIView.initial up to the handler: the format (suffix, else the last ?format=), negotiation (404 for
// an unknown format, 406 for an unsatisfiable Accept), then authentication (403 for a refused header).
struct Prelude {
  std::optional<HttpResponse> answer;
  int indent = 0;
  bool authenticated = false;
};

Prelude begin_view(const ViewRequest& request, const common::QueryParams& params, std::string_view allow) {
  std::optional<std::string_view> format;
  if (!request.format_suffix.empty())
    format = request.format_suffix;
  else if (const std::string* f = common::last_value(params, "format"); f && !f->empty())
    format = *f;  // a blank ?format= is no format (it only reaches here on routes edw does not clean)
  const Negotiated negotiated = negotiate(format, request.accept);
  if (negotiated.outcome == Negotiated::Outcome::NotFound) return {detail_error(404, "Not found.", 0, allow)};
  if (negotiated.outcome == Negotiated::Outcome::NotAcceptable ||
      negotiated.renderer == Renderer::BrowsableApi)
    // The browsable API page is not rendered yet: its requests are answered as unsatisfiable.
    return {detail_error(406, "Could not satisfy the request Accept header.", 0, allow)};
  const AuthResult auth = basic_authenticate(request.authorization, request.user);
  if (!auth.failure.empty()) return {detail_error(403, auth.failure, negotiated.indent, allow)};
  return {std::nullopt, negotiated.indent, auth.authenticated};
}

}  // namespace

HttpResponse list_view(const Dataset& dataset, const ViewRequest& request) {
  const common::QueryParams params = without_blank_params(request.params);
  Prelude prelude = begin_view(request, params, kListAllow);
  if (prelude.answer) return std::move(*prelude.answer);
  // IsAuthenticatedOrReadOnly before the method is looked at (anonymous writes are 403), then the
  // handler: the list route has get, post, head and options only (others 405).
  if (request.method == "GET" || request.method == "HEAD")
    return list_page(dataset, request, params, prelude.indent);
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, prelude.authenticated);
  if (!prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent);
  if (request.method != "POST")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent);
  // POST: with no body DRF parses nothing and the serializer finds the required fields missing; with a
  // body it picks a parser by Content-Type first.
  if (!request.has_body)
    return field_errors({{"image", "No file was submitted."}, {"entity", "This field is required."}},
                        prelude.indent);
  const std::string sent = request.content_type.value_or("");
  std::string trimmed = sent.substr(0, sent.find(';'));
  trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
  if (trimmed != "application/json" && trimmed != "application/x-www-form-urlencoded" &&
      trimmed != "multipart/form-data")
    return detail_error(415, "Unsupported media type \"" + sent + "\" in request.", prelude.indent);
  return detail_error(501, "entities-images-mock does not create records yet (uploads are planned).",
                      prelude.indent);
}

HttpResponse root_view(const ViewRequest& request) {
  const Prelude prelude = begin_view(request, request.params, kRootAllow);
  if (prelude.answer) return std::move(*prelude.answer);
  // APIRootView: AllowAny, and get only.
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, false, kRootName);
  if (request.method != "GET" && request.method != "HEAD")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent, kRootAllow);
  // reverse() with the request's format: the suffix carried over, a ?format= parameter preserved.
  std::string link = request.origin + "/edw/api/entities-images" +
                     (request.format_suffix.empty() ? "/" : "." + request.format_suffix);
  if (const std::string* f = common::last_value(request.params, "format")) {
    link += "?format=";
    append_quote_plus(link, *f);
  }
  std::string body;
  JsonWriter w(body, prelude.indent);
  w.begin_object();
  w.key("entities-images");
  w.string(link);
  w.end_object();
  return view_response(200, std::move(body), kRootAllow);
}

HttpResponse detail_view(const Dataset& dataset, const ViewRequest& request, std::string_view pk) {
  const common::QueryParams params = without_blank_params(request.params);
  const Prelude prelude = begin_view(request, params, kDetailAllow);
  if (prelude.answer) return std::move(*prelude.answer);
  const bool safe = request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS";
  if (!safe && !prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent, kDetailAllow);
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, false, kDetailName);
  if (request.method == "POST")
    return detail_error(405, "Method \"POST\" not allowed.", prelude.indent, kDetailAllow);
  if (!safe)
    return detail_error(501, "entities-images-mock does not change records yet (updates are planned).",
                        prelude.indent, kDetailAllow);
  // get_object(): the pk as Django's IntegerField reads it (Python's int()); anything else is 404.
  std::optional<Record> record;
  if (const auto n = parse_python_int(pk); n && !n->negative && n->magnitude <= BigUint(INT64_MAX))
    record = dataset.find_by_id(static_cast<std::int64_t>(n->magnitude.saturated()));
  if (!record) return detail_error(404, "Not found.", prelude.indent, kDetailAllow);
  std::string body, scratch;
  JsonWriter w(body, prelude.indent);
  write_record(w, *record, request.origin + "/media/", scratch);
  return view_response(200, std::move(body), kDetailAllow);
}

}  // namespace entimg::mock::detail

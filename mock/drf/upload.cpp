#include "upload.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "django_pages.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/mock/failure_pages.hpp"
#include "filer_names.hpp"
#include "json_writer.hpp"
#include "multipart.hpp"
#include "python_json.hpp"
#include "serializer.hpp"
#include "view_response.hpp"

namespace entimg::mock::detail {
namespace {

// Django's 500 page: edw's FilerImageField reads `.name` of whatever `image` holds, and a value that is not
// an upload raises AttributeError outside DRF's exception handling (reference §3.5).
HttpResponse server_error() {
  return failure_response(500);
}

// DRF's select_parser over [JSONParser, FormParser, MultiPartParser]: the first whose media type matches
// the request's Content-Type, types compared without case and '*' matching anything; "" when none does.
std::string_view select_parser(std::string_view content_type) {
  const std::string full =
      common::ascii_lowered(common::trim(content_type.substr(0, content_type.find(';'))));
  const std::size_t slash = full.find('/');
  const std::string main = full.substr(0, slash),
                    sub = slash == std::string::npos ? "" : full.substr(slash + 1);
  for (const std::string_view parser :
       {"application/json", "application/x-www-form-urlencoded", "multipart/form-data"}) {
    const std::string_view parser_main = parser.substr(0, parser.find('/')),
                           parser_sub = parser.substr(parser.find('/') + 1);
    if (sub != "*" && sub != parser_sub) continue;
    if (main != "*" && main != parser_main) continue;
    return parser;
  }
  return {};
}

// request.data as the chosen parser builds it; `multipart` keeps the parts the data points into. The
// answer when the body cannot be parsed.
std::optional<HttpResponse> parse_request_data(const ViewRequest& request, std::string_view media_type,
                                               int indent, MultipartResult& multipart, RequestData& data) {
  using K = DataValue::Kind;
  if (media_type == "multipart/form-data") {
    multipart = parse_multipart(request.content_type.value_or(""), request.body);
    if (!multipart.error.empty())
      return detail_error(400, "Multipart form parse error - " + multipart.error, indent);
    for (const MultipartPart& part : multipart.parts)
      if (!part.filename) data.form.emplace_back(part.name, DataValue{K::Text, part.data, nullptr, 0, true});
    for (const MultipartPart& part : multipart.parts)
      if (part.filename) data.form.emplace_back(part.name, DataValue{K::File, {}, &part, 0, true});
  } else if (media_type == "application/x-www-form-urlencoded") {
    for (const auto& [key, value] : common::parse_query(request.body))
      data.form.emplace_back(key, DataValue{K::Text, value, nullptr, 0, true});
  } else {  // application/json
    const PythonJsonOutcome checked = python_json_check(request.body);
    if (checked.too_deep) return server_error();
    if (checked.error) return detail_error(400, "JSON parse error - " + *checked.error, indent);
    data.json = nlohmann::json::parse(request.body, nullptr, false);
    // Python accepts a few texts nlohmann refuses (a lone surrogate escape, 1e400); such bodies get a 500
    // here where DRF would read them (docs/mock.md, known differences).
    if (data.json->is_discarded()) return server_error();
  }
  return std::nullopt;
}

// edw's create() on the nested route: request.data['entity'] = entity_pk when data.get('entity') is
// None. A form body's QueryDict is immutable (500), a JSON list has no .get (500).
std::optional<HttpResponse> set_entity_from_path(const ViewRequest& request, std::string_view media_type,
                                                 const MultipartResult& multipart, RequestData& data) {
  using K = DataValue::Kind;
  if (!request.entity_pk) return std::nullopt;
  const DataValue given = data.get("entity");
  if (given.kind != K::Absent && given.kind != K::Null) return std::nullopt;
  // request.data is a mutable copy only when files came with the form.
  const bool has_files = std::any_of(multipart.parts.begin(), multipart.parts.end(),
                                     [](const MultipartPart& part) { return part.filename.has_value(); });
  if (media_type == "application/x-www-form-urlencoded" ||
      (media_type == "multipart/form-data" && !has_files))
    return server_error();
  if (data.json) {
    if (!data.json->is_object()) return server_error();
    (*data.json)["entity"] = *request.entity_pk;
  } else {
    std::erase_if(data.form, [](const auto& entry) { return entry.first == "entity"; });
    data.form.emplace_back("entity", DataValue{K::Text, *request.entity_pk, nullptr, 0, true});
  }
  return std::nullopt;
}

// Django's get_valid_filename (filer calls it first) refuses a name with nothing left of [-\w.]:
// SuspiciousFileOperation, which Django answers with its 400 page. It runs as the image is validated.
bool django_accepts_filename(std::string_view filename) {
  std::string kept;
  for (const char c : filename) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80 || c == '-' || c == '_' || c == '.' || c == ' ') kept.push_back(c);
  }
  const auto first = kept.find_first_not_of(' '), last = kept.find_last_not_of(' ');
  kept = first == std::string::npos ? "" : kept.substr(first, last - first + 1);
  return !(kept.empty() || kept == "." || kept == "..");
}

// The validated upload stored as django-filer stores it; 201 with the record and no Location.
HttpResponse store(LiveDataset& dataset, const ViewRequest& request, const ValidatedUpload& valid,
                   int indent) {
  NewUpload upload;
  upload.original_filename = *valid.image->filename;
  upload.stored_name = filer_stored_name(*valid.image->filename);
  upload.mime_type = guess_mime_type(upload.stored_name);
  upload.order = valid.order.value_or(0);
  upload.key = valid.key;
  upload.entity = valid.entity;
  upload.bytes = valid.image->data;
  Record record;
  try {
    record = dataset.add(std::move(upload));
  } catch (const StateError& error) {
    return detail_error(500, std::string("entities-images-mock could not store the upload: ") + error.what(),
                        indent);
  } catch (const UploadsFull& full) {
    return detail_error(507, full.what(), indent);  // WebDAV's Insufficient Storage: no room, said so
  }
  std::string body;
  JsonWriter w(body, indent);
  write_record(w, record, MediaPrefix(request.origin));
  return view_response(201, std::move(body));
}

// CreateModelMixin.create with edw's serializer (reference §3.6): fields validated in the serializer's
// order (image, order, key, entity); a valid upload becomes a record with the next id and a fresh filer
// path, answered 201 with no Location.
HttpResponse create_from_body(LiveDataset& dataset, const ViewRequest& request, std::string_view media_type,
                              int indent) {
  RequestData data;
  MultipartResult multipart;
  if (auto failure = parse_request_data(request, media_type, indent, multipart, data))
    return std::move(*failure);
  if (auto failure = set_entity_from_path(request, media_type, multipart, data)) return std::move(*failure);
  const ValidatedUpload valid = validate_upload(data, dataset);
  if (valid.fails) return server_error();
  if (!valid.errors.empty()) return field_errors(valid.errors, indent);
  // Django's get_valid_filename on the name, then, as the storage saves it, on filer's stored name: a
  // name slugify leaves nothing of ("...") is refused there too.
  if (!django_accepts_filename(*valid.image->filename) || filer_stored_name(*valid.image->filename).empty())
    return django_bad_request();
  return store(dataset, request, valid, indent);
}

}  // namespace

HttpResponse create(LiveDataset& dataset, const ViewRequest& request, int indent) {
  // POST: with no body DRF parses nothing and the serializer finds the required fields missing; with a
  // body it picks a parser by Content-Type first.
  if (!request.has_body) {
    // No body: request.data is {} (an immutable QueryDict when the type is a form's). On the nested
    // route edw's create() then sets entity from the URL, which the QueryDict refuses (a 500).
    if (!request.entity_pk)
      return field_errors({{"image", "No file was submitted."}, {"entity", "This field is required."}},
                          indent);
    const std::string_view type = select_parser(request.content_type.value_or(""));
    if (type == "multipart/form-data" || type == "application/x-www-form-urlencoded") return server_error();
    return field_errors({{"image", "No file was submitted."}}, indent);
  }
  const std::string sent = request.content_type.value_or("");
  const std::string_view parser = select_parser(sent);
  if (parser.empty()) return detail_error(415, "Unsupported media type \"" + sent + "\" in request.", indent);
  return create_from_body(dataset, request, parser, indent);
}

std::optional<HttpResponse> nested_update_prelude(const ViewRequest& request, int indent) {
  if (!request.entity_pk) return std::nullopt;
  std::optional<HttpResponse> failure;
  if (!request.has_body) {
    // request.data is {} (an immutable QueryDict when the type is a form's, which refuses the entity).
    const std::string_view type = select_parser(request.content_type.value_or(""));
    if (type == "multipart/form-data" || type == "application/x-www-form-urlencoded")
      failure = server_error();
  } else {
    const std::string sent = request.content_type.value_or("");
    const std::string_view parser = select_parser(sent);
    RequestData data;
    MultipartResult multipart;
    if (parser.empty())
      failure = detail_error(415, "Unsupported media type \"" + sent + "\" in request.", indent);
    else if (!(failure = parse_request_data(request, parser, indent, multipart, data)))
      failure = set_entity_from_path(request, parser, multipart, data);
  }
  // The answer comes from the detail view, so it names the detail route's methods.
  if (failure)
    for (auto& [name, value] : failure->headers)
      if (name == "Allow") value = kDetailAllow;
  return failure;
}

}  // namespace entimg::mock::detail

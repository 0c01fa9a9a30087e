#include "list_view.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "basic_auth.hpp"
#include "browsable.hpp"
#include "django_pages.hpp"
#include "entimg/common/ascii.hpp"

#include <nlohmann/json.hpp>
#include "entimg/mock/behaviour.hpp"
#include "filer_names.hpp"
#include "json_writer.hpp"
#include "multipart.hpp"
#include "negotiation.hpp"
#include "pagination.hpp"
#include "python_json.hpp"
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

// The bounds of the integer columns a user may set, as Django derives them from a deployment's database
// (SmallIntegerField `order`, IntegerField `key`): DRF validates them and OPTIONS lists them.
constexpr std::int64_t kOrderMin = -32768, kOrderMax = 32767;
constexpr std::int64_t kKeyMin = -2147483648LL, kKeyMax = 2147483647LL;

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
HttpResponse field_errors(const std::vector<std::pair<std::string, std::string>>& errors, int indent) {
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

// Python's ceil division as DRF's _divide_with_ceil does it (floor division rounds towards -inf).
// Page arithmetic on limits and offsets up to 2^64 and their products stays exact in 128 bits.
__extension__ using Wide = __int128;
__extension__ using WideUnsigned = unsigned __int128;

std::string int128_text(Wide v) {
  const bool negative = v < 0;
  auto u = static_cast<WideUnsigned>(negative ? -v : v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  return negative ? "-" + digits : digits;
}

Wide divide_with_ceil(Wide a, Wide b) {
  Wide q = a / b;
  if (a % b != 0 && (a < 0) == (b < 0)) ++q;
  return q;
}

// LimitOffsetPagination.get_html_context with _get_displayed_page_numbers and _get_page_links.
PageControls page_controls(const RequestUrl& url, const Window& window, std::uint64_t count) {
  const auto limit = static_cast<Wide>(window.limit.saturated());
  const auto offset = static_cast<Wide>(window.offset.saturated());
  Wide current = divide_with_ceil(offset, limit) + 1;
  Wide final = std::max<Wide>(
      divide_with_ceil(static_cast<Wide>(count) - offset, limit) + divide_with_ceil(offset, limit), 1);
  current = std::min(current, final);
  std::vector<Wide> shown;
  if (final <= 5) {
    for (Wide n = 1; n <= final; ++n)
      shown.push_back(n);
  } else {
    std::vector<Wide> included = {1, current - 1, current, current + 1, final};
    if (current <= 4) included.insert(included.end(), {2, 3});
    if (current >= final - 3) included.insert(included.end(), {final - 1, final - 2});
    std::sort(included.begin(), included.end());
    included.erase(std::unique(included.begin(), included.end()), included.end());
    for (const Wide n : included)
      if (n > 0 && n <= final) shown.push_back(n);
    if (current > 4) shown.insert(shown.begin() + 1, 0);  // 0: a break
    if (current < final - 3) shown.insert(shown.end() - 1, 0);
  }
  PageControls controls;
  controls.previous = previous_link(url, window);
  controls.next = next_link(url, window, count);
  for (const Wide n : shown) {
    if (n == 0) {
      controls.pages.emplace_back(std::nullopt);
      continue;
    }
    std::string link = n == 1
                           ? rebuild_url(url, {}, "offset")
                           : rebuild_url(url, {{"offset", int128_text(offset + (n - current) * limit)}}, {});
    controls.pages.emplace_back(
        PageControls::Link{static_cast<std::int64_t>(n), std::move(link), n == current});
  }
  return controls;
}

HttpResponse list_page(const Dataset& dataset, const ViewRequest& request, const common::QueryParams& params,
                       int indent, std::optional<PageControls>* controls = nullptr) {
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
  if (controls && BigUint(count) > window.limit) *controls = page_controls(request.url, window, count);

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
    std::optional<std::int64_t> min_value = std::nullopt, max_value = std::nullopt;
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
      {"order", "integer", false, false, "Order", kOrderMin, kOrderMax},
      {"key", "integer", false, false, "Key", kKeyMin, kKeyMax},
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
    if (f.min_value) {
      w.key("min_value");
      w.integer(*f.min_value);
    }
    if (f.max_value) {
      w.key("max_value");
      w.integer(*f.max_value);
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

enum class ViewKind { Root, List, Detail };
struct ViewName {
  std::string_view name, description, allow;
  ViewKind kind;
};
constexpr ViewName kListName{"Entity Image List", "", kListAllow, ViewKind::List};
constexpr ViewName kDetailName{"Entity Image Instance", "", kDetailAllow, ViewKind::Detail};
constexpr ViewName kRootName{"Api Root", "The default basic root view for DefaultRouter", kRootAllow,
                             ViewKind::Root};

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
  bool html = false;  ///< the browsable API renders the answer
};

// get_breadcrumbs: the DRF views along the path, ?format= kept when the request has one.
std::vector<std::pair<std::string, std::string>> breadcrumbs(const ViewRequest& request,
                                                             const common::QueryParams& params,
                                                             const ViewName& view) {
  std::string keep;
  if (const std::string* f = common::last_value(params, "format")) {
    keep = "?format=";
    common::append_quote_plus(keep, *f);
  }
  std::vector<std::pair<std::string, std::string>> crumbs = {{"Api Root", "/edw/api/" + keep}};
  if (view.kind == ViewKind::Detail)
    crumbs.emplace_back(std::string(kListName.name), "/edw/api/entities-images/" + keep);
  if (view.kind != ViewKind::Root) crumbs.emplace_back(std::string(view.name), request.path + keep);
  return crumbs;
}

// BrowsableAPIRenderer when negotiation chose it; the JSON answer as it is otherwise.
HttpResponse finish(const Prelude& prelude, const ViewRequest& request, const common::QueryParams& params,
                    const ViewName& view, HttpResponse json, std::optional<PageControls> controls = {}) {
  if (!prelude.html || json.content_type != "application/json") return json;  // Django's own pages stay
  BrowsablePage page;
  page.name = view.name;
  page.method = request.method;
  page.full_path = request.full_path;
  page.get_url = request.full_path;
  const RequestUrl relative{request.path, request.params};
  page.json_format_url = rebuild_url(relative, {{"format", "json"}}, {});
  page.api_format_url = rebuild_url(relative, {{"format", "api"}}, {});
  page.breadcrumbs = breadcrumbs(request, params, view);
  page.pagination = std::move(controls);
  // get_filter_form: only over a page of results (a list answer with `results`), and, as DRF shows it, not
  // on edw's nested route.
  page.entity_filter = view.kind == ViewKind::List && !request.entity_pk && json.status == 200 &&
                       (request.method == "GET" || request.method == "HEAD");
  page.upload_form = view.kind == ViewKind::List && prelude.authenticated && json.status != 403;
  page.form_action = request.full_path;
  return render_browsable(std::move(json), page);
}

Prelude begin_view(const ViewRequest& request, const common::QueryParams& params, const ViewName& view) {
  const std::string_view allow = view.allow;
  std::optional<std::string_view> format;
  if (!request.format_suffix.empty())
    format = request.format_suffix;
  else if (const std::string* f = common::last_value(params, "format"); f && !f->empty())
    format = *f;  // a blank ?format= is no format (it only reaches here on routes edw does not clean)
  const Negotiated negotiated = negotiate(format, request.accept);
  if (negotiated.outcome == Negotiated::Outcome::NotFound) return {detail_error(404, "Not found.", 0, allow)};
  if (negotiated.outcome == Negotiated::Outcome::NotAcceptable)
    return {detail_error(406, "Could not satisfy the request Accept header.", 0, allow)};
  Prelude prelude;
  prelude.html = negotiated.renderer == Renderer::BrowsableApi;
  prelude.indent = prelude.html ? 4 : negotiated.indent;  // the browsable page shows the JSON indented by 4
  const AuthResult auth = basic_authenticate(request.authorization, request.user);
  if (!auth.failure.empty())
    prelude.answer =
        finish(prelude, request, params, view, detail_error(403, auth.failure, prelude.indent, allow));
  prelude.authenticated = auth.authenticated;
  return prelude;
}

}  // namespace

namespace {

// One value of request.data as a serializer field meets it: from a form (text or an uploaded file) or
// from a JSON body (any JSON value).
struct DataValue {
  enum class Kind { Absent, Null, Text, File, Integer, Float, Bool, List, Dict } kind = Kind::Absent;
  std::string text;                     ///< Text; Python's str() of a number or bool
  const MultipartPart* file = nullptr;  ///< File
  std::int64_t integer = 0;             ///< Integer (Float: truncated, as int() does)
  bool from_form = false;               ///< an HTML form value: a blank one means "not given"
  bool beyond = false;                  ///< Float: outside the 64-bit range (`integer` unset)
};

// request.data as DRF builds it: a QueryDict of form fields then files (a name's last value wins), or
// the parsed JSON body.
class RequestData {
 public:
  std::vector<std::pair<std::string, DataValue>> form;
  std::optional<nlohmann::json> json;

  DataValue get(std::string_view name) const {
    DataValue found;
    if (json) {
      if (!json->is_object() || !json->contains(name)) return found;
      return from_json((*json)[std::string(name)]);
    }
    for (const auto& [key, value] : form)
      if (key == name) found = value;
    return found;
  }

 private:
  static DataValue from_json(const nlohmann::json& v) {
    DataValue d;
    using K = DataValue::Kind;
    if (v.is_null()) {
      d.kind = K::Null;
    } else if (v.is_boolean()) {
      d.kind = K::Bool;
      d.text = v.get<bool>() ? "True" : "False";
    } else if (v.is_number_integer()) {
      const bool fits = !v.is_number_unsigned() || v.get<std::uint64_t>() <= INT64_MAX;
      d.kind = fits ? K::Integer : K::Text;
      d.text = v.dump();
      if (fits) d.integer = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      const double x = v.get<double>();
      d.kind = K::Float;
      d.text = v.dump();
      // int() truncates; beyond 64 bits no entity or bounded field can match, and the cast would be
      // undefined.
      d.beyond = !(x > -9.2e18 && x < 9.2e18);
      if (!d.beyond) d.integer = static_cast<std::int64_t>(x);
      // Python's str(float) for the integral values an integer field can take ("2.0"); others never parse.
      if (!d.beyond && x == static_cast<double>(d.integer) && x > -1e16 && x < 1e16)
        d.text = std::to_string(d.integer) + ".0";
    } else if (v.is_string()) {
      d.kind = K::Text;
      d.text = v.get<std::string>();
    } else {
      d.kind = v.is_array() ? K::List : K::Dict;
    }
    return d;
  }
};

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

// A Python int that fits 64 bits signed; nullopt beyond.
std::optional<std::int64_t> as_int64(const PyInt& n) {
  if (n.magnitude > BigUint(static_cast<std::uint64_t>(INT64_MAX))) return std::nullopt;
  const auto m = static_cast<std::int64_t>(n.magnitude.saturated());
  return n.negative ? -m : m;
}

// DRF's IntegerField.to_internal_value: int() of str(value) after dropping a ".0" tail; then the model
// column's bounds as Django derives them from a deployment's database (reference §1.6: order is a
// SmallIntegerField, key an IntegerField).
struct IntegerOutcome {
  std::optional<std::int64_t> value;
  std::optional<std::string> error;
};

IntegerOutcome integer_field(const DataValue& v, std::int64_t min, std::int64_t max) {
  using K = DataValue::Kind;
  const auto bounded = [&](bool negative, bool beyond, std::int64_t n) -> IntegerOutcome {
    if (!negative && (beyond || n > max))
      return {{}, "Ensure this value is less than or equal to " + std::to_string(max) + "."};
    if (negative && (beyond || n < min))
      return {{}, "Ensure this value is greater than or equal to " + std::to_string(min) + "."};
    return {n, {}};
  };
  if (v.kind == K::Integer) return bounded(v.integer < 0, false, v.integer);
  if (v.kind == K::List || v.kind == K::Dict || v.kind == K::Bool)
    return {{}, "A valid integer is required."};
  std::string text = v.text;
  if (text.size() > 1000) return {{}, "String value too large."};
  if (const auto dot = text.rfind('.'); dot != std::string::npos) {  // re_decimal: \.0*\s*$
    std::size_t k = dot + 1;
    while (k < text.size() && text[k] == '0')
      ++k;
    if (text.find_first_not_of(" \t\n\r\f\v", k) == std::string::npos) text.erase(dot);
  }
  const auto parsed = parse_python_int(text);
  if (!parsed) return {{}, "A valid integer is required."};
  const std::optional<std::int64_t> n = as_int64(*parsed);
  return bounded(parsed->negative && (!n || *n != 0), !n, n.value_or(0));
}

// CreateModelMixin.create with edw's serializer (reference §3.6): fields validated in the serializer's
// order (image, order, key, entity); a valid upload becomes a record with the next id and a fresh filer
// path, answered 201 with no Location.
HttpResponse create(LiveDataset& dataset, const ViewRequest& request, std::string_view media_type,
                    int indent) {
  using K = DataValue::Kind;
  RequestData data;
  MultipartResult multipart;
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

  // edw's create() on the nested route: request.data['entity'] = entity_pk when data.get('entity') is
  // None. A form body's QueryDict is immutable (500), a JSON list has no .get (500).
  if (request.entity_pk) {
    const DataValue given = data.get("entity");
    if (given.kind == K::Absent || given.kind == K::Null) {
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
    }
  }
  if (data.json && !data.json->is_object()) {
    std::string type = data.json->is_array()          ? "list"
                       : data.json->is_string()       ? "str"
                       : data.json->is_boolean()      ? "bool"
                       : data.json->is_number_float() ? "float"
                       : data.json->is_null()         ? "NoneType"
                                                      : "int";
    return field_errors({{"non_field_errors", "Invalid data. Expected a dictionary, but got " + type + "."}},
                        indent);
  }

  std::vector<std::pair<std::string, std::string>> errors;
  const DataValue image = data.get("image");
  if (image.kind == K::Absent)
    errors.emplace_back("image", "No file was submitted.");
  else if (image.kind == K::Null)
    errors.emplace_back("image", "This field may not be null.");
  else if (image.kind != K::File)
    return server_error();

  const auto optional_integer = [&](std::string_view name, bool nullable, std::int64_t min, std::int64_t max,
                                    std::optional<std::int64_t>& out) {
    const DataValue v = data.get(name);
    if (v.kind == K::Absent || (v.from_form && v.text.empty())) return;  // the default (or None)
    if (v.kind == K::Null) {
      if (!nullable) errors.emplace_back(std::string(name), "This field may not be null.");
      return;
    }
    const IntegerOutcome outcome = integer_field(v, min, max);
    if (outcome.error) errors.emplace_back(std::string(name), *outcome.error);
    out = outcome.value;
  };
  std::optional<std::int64_t> order, key;
  optional_integer("order", false, kOrderMin, kOrderMax, order);
  optional_integer("key", true, kKeyMin, kKeyMax, key);

  // PrimaryKeyRelatedField(queryset=Entity.objects.all()): '' is None; bools and containers are the wrong
  // type; otherwise Python's int() of the value must name an entity that exists.
  std::int64_t entity = 0;
  const DataValue e = data.get("entity");
  if (e.kind == K::Absent) {
    errors.emplace_back("entity", "This field is required.");
  } else if (e.kind == K::Null || (e.kind == K::Text && e.text.empty())) {
    errors.emplace_back("entity", "This field may not be null.");
  } else if (e.kind == K::Bool || e.kind == K::List || e.kind == K::Dict) {
    errors.emplace_back("entity", std::string("Incorrect type. Expected pk value, received ") +
                                      (e.kind == K::Bool   ? "bool"
                                       : e.kind == K::List ? "list"
                                                           : "dict") +
                                      ".");
  } else {
    std::optional<std::int64_t> pk;
    bool wrong_type = false;
    if (e.kind == K::Integer || (e.kind == K::Float && !e.beyond)) {
      pk = e.integer;
    } else if (e.kind == K::Float) {
      pk = std::nullopt;  // int() of it names no entity
    } else if (const auto parsed = parse_python_int(e.text); !parsed) {
      wrong_type = true;
    } else {
      pk = as_int64(*parsed);
    }
    if (wrong_type)
      errors.emplace_back("entity", "Incorrect type. Expected pk value, received str.");
    else if (!pk || !dataset.has_entity(*pk))
      errors.emplace_back("entity", "Invalid pk \"" + e.text + "\" - object does not exist.");
    else
      entity = *pk;
  }
  if (!errors.empty()) return field_errors(errors, indent);

  // Django's get_valid_filename (filer calls it first) refuses a name with nothing left of [-\w.]:
  // SuspiciousFileOperation, which Django answers with its 400 page. It runs as the image is validated.
  {
    std::string kept;
    for (const char c : *image.file->filename) {
      const auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || u >= 0x80 || c == '-' || c == '_' || c == '.' || c == ' ') kept.push_back(c);
    }
    const auto first = kept.find_first_not_of(' '), last = kept.find_last_not_of(' ');
    kept = first == std::string::npos ? "" : kept.substr(first, last - first + 1);
    if (kept.empty() || kept == "." || kept == "..") return django_bad_request();
  }

  NewUpload upload;
  upload.original_filename = *image.file->filename;
  upload.stored_name = filer_stored_name(*image.file->filename);
  upload.mime_type = guess_mime_type(upload.stored_name);
  upload.order = order.value_or(0);
  upload.key = key;
  upload.entity = entity;
  upload.bytes = image.file->data;
  Record record;
  try {
    record = dataset.add(std::move(upload));
  } catch (const StateError& error) {
    return detail_error(500, std::string("entities-images-mock could not store the upload: ") + error.what(),
                        indent);
  }
  std::string body, scratch;
  JsonWriter w(body, indent);
  write_record(w, record, request.origin + "/media/", scratch);
  return view_response(201, std::move(body));
}

HttpResponse list_answer(LiveDataset& dataset, const ViewRequest& request, const common::QueryParams& params,
                         const Prelude& prelude, std::optional<PageControls>& controls) {
  // IsAuthenticatedOrReadOnly before the method is looked at (anonymous writes are 403), then the
  // handler: the list route has get, post, head and options only (others 405).
  if (request.method == "GET" || request.method == "HEAD")
    return list_page(dataset, request, params, prelude.indent, prelude.html ? &controls : nullptr);
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, prelude.authenticated);
  if (!prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent);
  if (request.method != "POST")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent);
  // POST: with no body DRF parses nothing and the serializer finds the required fields missing; with a
  // body it picks a parser by Content-Type first.
  if (!request.has_body) {
    // No body: request.data is {} (an immutable QueryDict when the type is a form's). On the nested
    // route edw's create() then sets entity from the URL, which the QueryDict refuses (a 500).
    if (!request.entity_pk)
      return field_errors({{"image", "No file was submitted."}, {"entity", "This field is required."}},
                          prelude.indent);
    const std::string_view type = select_parser(request.content_type.value_or(""));
    if (type == "multipart/form-data" || type == "application/x-www-form-urlencoded") return server_error();
    return field_errors({{"image", "No file was submitted."}}, prelude.indent);
  }
  const std::string sent = request.content_type.value_or("");
  const std::string_view parser = select_parser(sent);
  if (parser.empty())
    return detail_error(415, "Unsupported media type \"" + sent + "\" in request.", prelude.indent);
  return create(dataset, request, parser, prelude.indent);
}

HttpResponse root_answer(const ViewRequest& request, const Prelude& prelude) {
  // APIRootView: AllowAny, and get only.
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, false, kRootName);
  if (request.method != "GET" && request.method != "HEAD")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent, kRootAllow);
  // reverse() with the request's format: the suffix carried over, a ?format= parameter preserved.
  std::string link = request.origin + "/edw/api/entities-images" +
                     (request.format_suffix.empty() ? "/" : "." + request.format_suffix);
  if (const std::string* f = common::last_value(request.params, "format")) {
    link += "?format=";
    common::append_quote_plus(link, *f);
  }
  std::string body;
  JsonWriter w(body, prelude.indent);
  w.begin_object();
  w.key("entities-images");
  w.string(link);
  w.end_object();
  return view_response(200, std::move(body), kRootAllow);
}

HttpResponse detail_answer(const Dataset& dataset, const ViewRequest& request, std::string_view pk,
                           const Prelude& prelude) {
  const bool safe = request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS";
  if (!safe && !prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent, kDetailAllow);
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, false, kDetailName);
  if (request.method != "PUT" && request.method != "PATCH" && request.method != "DELETE" && !safe)
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent, kDetailAllow);
  if (!safe)
    return detail_error(501, "entities-images-mock does not change records yet (updates are planned).",
                        prelude.indent, kDetailAllow);
  // get_object(): the pk as Django's IntegerField reads it (Python's int()); anything else is 404.
  std::optional<Record> record;
  if (const auto n = parse_python_int(pk); n && !n->negative)
    if (const auto id = as_int64(*n)) record = dataset.find_by_id(*id);
  if (!record) return detail_error(404, "Not found.", prelude.indent, kDetailAllow);
  std::string body, scratch;
  JsonWriter w(body, prelude.indent);
  write_record(w, *record, request.origin + "/media/", scratch);
  return view_response(200, std::move(body), kDetailAllow);
}

}  // namespace

HttpResponse list_view(LiveDataset& dataset, const ViewRequest& request) {
  common::QueryParams params = without_blank_params(request.params);
  // edw's list() on the nested route: request.GET.setdefault('entity', entity_pk), after the blank ones
  // went; the links keep the query string as it came.
  if (request.entity_pk && !common::last_value(params, "entity"))
    params.emplace_back("entity", *request.entity_pk);
  Prelude prelude = begin_view(request, params, kListName);
  if (prelude.answer) return std::move(*prelude.answer);
  std::optional<PageControls> controls;
  HttpResponse json = list_answer(dataset, request, params, prelude, controls);
  return finish(prelude, request, params, kListName, std::move(json), std::move(controls));
}

HttpResponse root_view(const ViewRequest& request) {
  Prelude prelude = begin_view(request, request.params, kRootName);
  if (prelude.answer) return std::move(*prelude.answer);
  return finish(prelude, request, request.params, kRootName, root_answer(request, prelude));
}

HttpResponse detail_view(const Dataset& dataset, const ViewRequest& request, std::string_view pk) {
  const common::QueryParams params = without_blank_params(request.params);
  Prelude prelude = begin_view(request, params, kDetailName);
  if (prelude.answer) return std::move(*prelude.answer);
  return finish(prelude, request, params, kDetailName, detail_answer(dataset, request, pk, prelude));
}

}  // namespace entimg::mock::detail

#include "list_view.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "basic_auth.hpp"
#include "browsable.hpp"
#include "entimg/mock/failure_pages.hpp"
#include "json_writer.hpp"
#include "negotiation.hpp"
#include "pagination.hpp"
#include "python_number.hpp"
#include "serializer.hpp"
#include "upload.hpp"
#include "view_response.hpp"

namespace entimg::mock::detail {
namespace {

// edw's @remove_empty_params_from_request: every key whose last value is blank is dropped. One pass from
// the end finds each key's last value, so the cost is linear in the parameters, as QueryDict's is.
common::QueryParams without_blank_params(const common::QueryParams& params) {
  if (std::none_of(params.begin(), params.end(), [](const auto& entry) { return entry.second.empty(); }))
    return params;  // nothing blank: nothing to drop
  std::unordered_map<std::string_view, bool> last_is_blank;
  last_is_blank.reserve(params.size());
  for (auto it = params.rbegin(); it != params.rend(); ++it)
    last_is_blank.try_emplace(it->first, it->second.empty());
  common::QueryParams kept;
  for (const auto& entry : params)
    if (!last_is_blank[entry.first]) kept.push_back(entry);
  return kept;
}

// edw's filter set: ?entity= read as DecimalField reads it; its error, or the selection it makes.
struct EntityFilter {
  std::optional<std::string> error;
  Selection selection;
  bool admits(const Record& record) const {
    return !selection.matches_nothing && (!selection.entity || *selection.entity == record.entity);
  }
};

EntityFilter entity_filter(const common::QueryParams& params) {
  EntityFilter filter;
  if (const std::string* entity = common::last_value(params, "entity")) {
    const DecimalLookup lookup = parse_decimal_lookup(*entity);
    if (!lookup.valid || lookup.above_maximum)
      filter.error = lookup.valid ? "Ensure this value is less than or equal to 1e+50." : "Enter a number.";
    filter.selection.entity = lookup.value;
    filter.selection.matches_nothing = !lookup.value.has_value();
  }
  return filter;
}

HttpResponse list_page(const Dataset& dataset, const ViewRequest& request, const common::QueryParams& params,
                       int indent, std::optional<PageControls>* controls = nullptr) {
  const EntityFilter filter = entity_filter(params);
  if (filter.error) return field_errors({{"entity", *filter.error}}, indent);
  const Selection& selection = filter.selection;
  const Window window = read_window(params);
  const std::uint64_t count = dataset.count(selection);
  // LimitOffsetPagination queries only when 0 < count and offset <= count, as LIMIT <limit> OFFSET <offset>;
  // MySQL, which edw runs on, refuses a LIMIT of 2^64 or more (error 1064): Django's 500 page.
  if (count > 0 && window.offset <= BigUint(count) && window.limit > BigUint(UINT64_MAX))
    return failure_response(500);
  if (controls) *controls = page_controls(request.url, window, count);

  const std::uint64_t first = window.offset < BigUint(count) ? window.offset.saturated() : count;
  const std::uint64_t length = std::min(window.limit.saturated(), count - first);

  std::string body;
  body.reserve(1024 + length * 700);  // above a record's usual size: one allocation, no copy as it grows
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
  // Each record written as the dataset hands it out: the page holds its body, never all its records.
  struct Writer final : RecordSink {
    Writer(JsonWriter& w, std::string_view origin) : writer(w), media(origin) {}
    void record(const RecordView& r) override { write_record(writer, r, media); }
    JsonWriter& writer;
    const MediaPrefix media;
  } records(w, request.origin);
  dataset.each_record(selection, first, length, records);
  w.end_array();
  w.end_object();
  return view_response(200, std::move(body));
}

// `action`: the method SimpleMetadata describes for this user (POST on the list, PUT on a record), or none.
HttpResponse options_metadata(int indent, std::string_view action, const Route& view) {
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
  if (!action.empty()) write_actions(w, action);
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
                                                             const common::QueryParams& params) {
  std::string keep;
  if (const std::string* f = common::last_value(params, "format")) {
    keep = "?format=";
    common::append_quote_plus(keep, *f);
  }
  // get_breadcrumbs(request.path) resolves each prefix of the decoded path, keeping the longest that names
  // each view (so a pk written "%D9%A1" shows as "١"): the route's own crumb is its path (the root's suffix
  // included), the root's before it /edw/api/, a list's before a detail the path less its last segment.
  std::string_view path = request.request_path;
  std::vector<std::pair<std::string, std::string>> crumbs = {
      {std::string(request.route->name), request.request_path + keep}};
  for (const Route* up = request.route->parent; up != nullptr; up = up->parent) {
    if (up->parent == nullptr) {
      crumbs.emplace_back(std::string(up->name), std::string(kApiPath) + keep);
      continue;
    }
    path = path.substr(0, path.find_last_of('/', path.size() - (path.ends_with('/') ? 2 : 1)) + 1);
    crumbs.emplace_back(std::string(up->name), std::string(path) + keep);
  }
  std::reverse(crumbs.begin(), crumbs.end());
  return crumbs;
}

// BrowsableAPIRenderer when negotiation chose it; the JSON answer as it is otherwise.
HttpResponse finish(const Prelude& prelude, const ViewRequest& request, const common::QueryParams& params,
                    HttpResponse json, std::optional<PageControls> controls = {}) {
  if (!prelude.html || json.content_type != "application/json") return json;  // Django's own pages stay
  BrowsablePage page;
  page.name = request.route->name;
  page.method = request.method;
  page.full_path = request.full_path;
  page.get_url = request.full_path;
  const RequestUrl relative{request.path, request.url.params};  // get_full_path(), as the links
  page.json_format_url = rebuild_url(relative, {{"format", "json"}}, {});
  page.api_format_url = rebuild_url(relative, {{"format", "api"}}, {});
  page.breadcrumbs = breadcrumbs(request, params);
  page.pagination = std::move(controls);
  // get_filter_form: only over a page of results (a list answer with `results`), and, as DRF shows it, not
  // on edw's nested route.
  page.entity_filter = request.route == &kListRoute && json.status == 200 &&
                       (request.method == "GET" || request.method == "HEAD");
  // show_form_for_method('POST'): a view that allows POST, for a user allowed to.
  page.upload_form = request.route->allow.find("POST") != std::string_view::npos && prelude.authenticated &&
                     json.status != 403;
  page.form_action = request.full_path;
  return render_browsable(std::move(json), page);
}

Prelude begin_view(const ViewRequest& request, const common::QueryParams& params) {
  const std::string_view allow = request.route->allow;
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
  prelude.indent = negotiated.indent;  // the browsable page's JSON: indented by 4, unless the Accept says
  const AuthResult auth = basic_authenticate(request.authorization, request.user);
  if (!auth.failure.empty())
    prelude.answer = finish(prelude, request, params, detail_error(403, auth.failure, prelude.indent, allow));
  prelude.authenticated = auth.authenticated;
  return prelude;
}

HttpResponse list_answer(LiveDataset& dataset, const ViewRequest& request, const common::QueryParams& params,
                         const Prelude& prelude, std::optional<PageControls>& controls) {
  // IsAuthenticatedOrReadOnly before the method is looked at (anonymous writes are 403), then the
  // handler: the list route has get, post, head and options only (others 405).
  if (request.method == "GET" || request.method == "HEAD")
    return list_page(dataset, request, params, prelude.indent, prelude.html ? &controls : nullptr);
  if (request.method == "OPTIONS")
    return options_metadata(prelude.indent, prelude.authenticated ? "POST" : "", *request.route);
  if (!prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent);
  if (request.method != "POST")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent);
  return create(dataset, request, prelude.indent);
}

HttpResponse root_answer(const ViewRequest& request, const Prelude& prelude) {
  // APIRootView: AllowAny, and get only.
  const Route& root = *request.route;
  if (request.method == "OPTIONS") return options_metadata(prelude.indent, "", root);
  if (request.method != "GET" && request.method != "HEAD")
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent, root.allow);
  // reverse() with the request's format: the suffix carried over, a ?format= parameter preserved.
  const std::string_view list = kListRoute.pattern.substr(0, kListRoute.pattern.size() - 1);
  std::string link = request.origin + std::string(kApiPath) + std::string(list) +
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
  return view_response(200, std::move(body), root.allow);
}

HttpResponse detail_answer(const Dataset& dataset, const ViewRequest& request,
                           const common::QueryParams& params, const Prelude& prelude) {
  const std::string_view allow = request.route->allow;
  const bool safe = request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS";
  if (!safe && !prelude.authenticated)
    return detail_error(403, "Authentication credentials were not provided.", prelude.indent, allow);
  if (request.method != "PUT" && request.method != "PATCH" && request.method != "DELETE" && !safe)
    return detail_error(405, "Method \"" + request.method + "\" not allowed.", prelude.indent, allow);
  // get_object(): the queryset through edw's filter first (?entity= validated and applied, as on the list),
  // then the pk as Django's IntegerField reads it (Python's int()); anything else is 404.
  std::optional<EntityFilter> filter;
  if (request.method != "OPTIONS" || prelude.authenticated) {
    filter = entity_filter(params);
    if (filter->error && request.method != "OPTIONS" && request.method != "PUT" && request.method != "PATCH")
      return field_errors({{"entity", *filter->error}}, prelude.indent, allow);
  }
  std::optional<Record> record;
  if (const auto n = parse_python_int(request.pk); n && !n->negative)
    if (const auto id = as_int64(*n)) record = dataset.find_by_id(*id);
  if (record && filter && !filter->admits(*record)) record.reset();
  // SimpleMetadata describes PUT for a user when get_object() finds the record (a 404 leaves it out).
  if (request.method == "OPTIONS")
    return options_metadata(prelude.indent, prelude.authenticated && record ? "PUT" : "", *request.route);
  if (request.method == "PUT" || request.method == "PATCH") {
    if (auto failure = nested_update_prelude(request, prelude.indent)) return std::move(*failure);
    if (filter && filter->error) return field_errors({{"entity", *filter->error}}, prelude.indent, allow);
  }
  if (!record) return detail_error(404, "Not found.", prelude.indent, allow);
  if (!safe)
    return detail_error(501, "entities-images-mock does not change records yet (updates are planned).",
                        prelude.indent, allow);
  std::string body;
  JsonWriter w(body, prelude.indent);
  write_record(w, *record, MediaPrefix(request.origin));
  return view_response(200, std::move(body), allow);
}

}  // namespace

HttpResponse list_view(LiveDataset& dataset, const ViewRequest& request) {
  common::QueryParams params = without_blank_params(request.params);
  // edw's list() on the nested route: request.GET.setdefault('entity', entity_pk), after the blank ones
  // went; the links keep the query string as it came.
  if (request.entity_pk && !common::last_value(params, "entity"))
    params.emplace_back("entity", *request.entity_pk);
  Prelude prelude = begin_view(request, params);
  if (prelude.answer) return std::move(*prelude.answer);
  std::optional<PageControls> controls;
  HttpResponse json = list_answer(dataset, request, params, prelude, controls);
  return finish(prelude, request, params, std::move(json), std::move(controls));
}

HttpResponse root_view(LiveDataset&, const ViewRequest& request) {
  Prelude prelude = begin_view(request, request.params);
  if (prelude.answer) return std::move(*prelude.answer);
  return finish(prelude, request, request.params, root_answer(request, prelude));
}

HttpResponse detail_view(LiveDataset& dataset, const ViewRequest& request) {
  const common::QueryParams params = without_blank_params(request.params);
  Prelude prelude = begin_view(request, params);
  if (prelude.answer) return std::move(*prelude.answer);
  return finish(prelude, request, params, detail_answer(dataset, request, params, prelude));
}

}  // namespace entimg::mock::detail

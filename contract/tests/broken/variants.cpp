// The variant registry, the request-shape predicates the variants share, and the service that
// puts a variant in front of the mock.
#include <algorithm>

#include "variant_support.hpp"

namespace entimg::broken {
namespace detail {

using mock::HttpResponse;

bool is_first_page(const Call& c) {
  return c.params.empty() || has_exactly(c.params, {{"format", "json"}});
}

// The offset of a walk page (offset=N or limit=12&offset=N); nullopt for any other request.
std::optional<std::uint64_t> walk_offset(const Call& c) {
  const auto offset = number_param(c.params, "offset");
  if (!offset) return std::nullopt;
  const std::string text = std::to_string(*offset);
  if (has_exactly(c.params, {{"offset", text}}) || has_exactly(c.params, {{"limit", "12"}, {"offset", text}}))
    return offset;
  return std::nullopt;
}
bool is_walk_page(const Call& c, std::uint64_t offset) {
  return walk_offset(c) == offset;
}
bool is_any_walk_page(const Call& c) {
  return c.params.empty() || walk_offset(c).has_value();
}

// The quick plan's custom-limit page (limit=5&offset=count-3); no other request sends limit=5.
bool is_partial_page(const Call& c) {
  const std::string* limit = common::last_value(c.params, "limit");
  return limit != nullptr && *limit == "5";
}

bool is_middle_page(const Call& c) {
  const std::string* offset = common::last_value(c.params, "offset");
  return offset != nullptr && number_param(c.params, "offset").has_value() &&
         has_exactly(c.params, {{"format", "json"}, {"limit", "12"}, {"offset", *offset}});
}

// The page at another offset, with the same number of records as `like` and its links kept: the
// answer a server gives when it applies the wrong window.
void serve_window(const Call& c, HttpResponse& response, std::uint64_t offset) {
  const std::optional<Json> page = page_of(response);
  if (!page || !page->contains("results")) return;
  const std::size_t length = page->at("results").size();
  common::QueryParams query = c.params;
  set_param(query, "offset", std::to_string(offset));
  set_param(query, "limit", std::to_string(length));
  const std::optional<Json> other = page_of(c.answer_with(query));
  if (!other || !other->contains("results")) return;
  edit_page(response, [&](Json& p) { p["results"] = other->at("results"); });
}

HttpResponse json_error(int status, std::string_view detail) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.headers = {{"Vary", "Accept"}, {"Allow", "GET, POST, HEAD, OPTIONS"}};
  set_body(r, Json{{"detail", detail}});
  return r;
}

// A broken variant whose corruption applies to every 200 JSON page, and to the record of a detail answer as
// to the same record in a page (a deployment serves both from one serializer).
std::function<HttpResponse(const Call&)> every_page(std::function<void(Json&)> edit) {
  return [edit = std::move(edit)](const Call& c) {
    HttpResponse r = c.answer();
    if (edit_page(r, edit)) return r;
    const std::optional<Json> record = page_of(r);
    if (!record || !record->contains("id") || !record->contains("image")) return r;
    Json page = {{"results", Json::array({*record})}};
    edit(page);
    if (page["results"].is_array() && page["results"].size() == 1) set_body(r, page["results"][0]);
    return r;
  };
}

void for_each_record(Json& page, const std::function<void(Json&)>& edit) {
  for (Json& record : page["results"])
    if (record.is_object()) edit(record);
}

mock::HttpResponse with_records_edited(mock::HttpResponse r, std::string_view member,
                                       const std::function<void(Json&)>& edit) {
  auto body = page_of(r);
  if (!body || !body->is_object()) return r;
  if (body->contains("results")) {
    for_each_record(*body, edit);
  } else if (body->contains(member)) {
    edit(*body);
  } else {
    return r;
  }
  set_body(r, *body);
  return r;
}

}  // namespace detail

mock::HttpResponse Call::answer_with(const common::QueryParams& query) const {
  return correct(with_query(request, query));
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> variants = [] {
    std::vector<Variant> all;
    for (auto group :
         {detail::page_variants, detail::link_variants, detail::walk_variants, detail::header_variants,
          detail::side_variants, detail::picture_variants, detail::follow_up_variants, detail::live_variants,
          detail::tolerated_variants, detail::side_tolerated_variants})
      for (Variant& v : group())
        all.push_back(std::move(v));
    return all;
  }();
  return variants;
}

const Variant* find_variant(std::string_view name) {
  for (const Variant& v : all_variants())
    if (v.name == name) return &v;
  return nullptr;
}

BrokenService::BrokenService(std::shared_ptr<const mock::Dataset> dataset, const Variant& variant)
    : dataset_(dataset),
      service_(std::move(dataset)),
      correct_([this](const mock::HttpRequest& request) { return service_.handle(request); }),
      variant_(variant) {}

mock::HttpResponse BrokenService::handle(const mock::HttpRequest& request) const {
  std::uint64_t nth = 0;
  {
    std::lock_guard lock(mutex_);
    nth = ++seen_[request.method + " " + request.target];
  }
  const Call call{request, query_of(request), nth, correct_, cache_, dataset_.get()};
  try {
    return variant_.respond(call);
  } catch (const std::exception& e) {
    // A variant's own bug: said plainly rather than left to the HTTP library's bare 500.
    return HttpResponse{
        599, "text/plain", {}, "variant " + std::string(variant_.name) + " failed: " + e.what()};
  }
}

}  // namespace entimg::broken

#include "answer_edit.hpp"

#include <algorithm>
#include <charconv>

#include "entimg/common/ascii.hpp"

namespace entimg::broken {
namespace {

std::string encode_query(const common::QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out.push_back('&');
    common::append_quote_plus(out, k);
    out.push_back('=');
    common::append_quote_plus(out, v);
  }
  return out;
}

}  // namespace

std::string_view path_of(const HttpRequest& request) {
  const std::string_view target = request.target;
  return target.substr(0, target.find('?'));
}

common::QueryParams query_of(const HttpRequest& request) {
  const std::size_t q = request.target.find('?');
  if (q == std::string::npos) return {};
  return common::parse_query(std::string_view(request.target).substr(q + 1));
}

HttpRequest with_query(const HttpRequest& request, const common::QueryParams& params) {
  HttpRequest copy = request;
  copy.target = std::string(path_of(request));
  if (!params.empty()) copy.target += "?" + encode_query(params);
  return copy;
}

bool has_exactly(const common::QueryParams& params,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> expected) {
  if (params.size() != expected.size()) return false;
  return std::all_of(expected.begin(), expected.end(), [&](const auto& pair) {
    return std::any_of(params.begin(), params.end(),
                       [&](const auto& p) { return p.first == pair.first && p.second == pair.second; });
  });
}

std::optional<std::uint64_t> number_param(const common::QueryParams& params, std::string_view key) {
  const std::string* text = common::last_value(params, key);
  if (text == nullptr || text->empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size()) return std::nullopt;
  return value;
}

std::optional<Json> page_of(const HttpResponse& response) {
  if (response.status != 200 || !response.content_type.starts_with("application/json")) return std::nullopt;
  Json json = Json::parse(response.body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

void set_body(HttpResponse& response, const Json& json, int indent) {
  response.body = json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

bool edit_page(HttpResponse& response, const std::function<void(Json&)>& edit) {
  std::optional<Json> page = page_of(response);
  if (!page || !page->contains("results")) return false;
  edit(*page);
  set_body(response, *page);
  return true;
}

std::string edit_link(std::string_view url, const std::function<void(common::QueryParams&)>& edit) {
  const std::size_t q = url.find('?');
  common::QueryParams params =
      q == std::string_view::npos ? common::QueryParams{} : common::parse_query(url.substr(q + 1));
  edit(params);
  std::string out(url.substr(0, q));
  if (!params.empty()) out += "?" + encode_query(params);
  return out;
}

std::string with_origin(std::string_view url, std::string_view origin) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const std::size_t path = url.find('/', scheme + 3);
  return std::string(origin) +
         std::string(path == std::string_view::npos ? std::string_view("/") : url.substr(path));
}

void edit_links(Json& page,
                const std::function<std::string(std::string_view key, const std::string& url)>& edit) {
  for (const char* key : {"next", "previous"}) {
    const auto it = page.find(key);
    if (it != page.end() && it->is_string()) *it = edit(key, it->get<std::string>());
  }
}

void set_param(common::QueryParams& params, std::string_view key, std::string value) {
  const auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == key; });
  if (it == params.end()) {
    params.emplace_back(std::string(key), std::move(value));
    return;
  }
  it->second = std::move(value);
  params.erase(std::remove_if(std::next(it), params.end(), [&](const auto& p) { return p.first == key; }),
               params.end());
}

void remove_param(common::QueryParams& params, std::string_view key) {
  params.erase(std::remove_if(params.begin(), params.end(), [&](const auto& p) { return p.first == key; }),
               params.end());
}

void set_header(HttpResponse& response, std::string_view name, std::optional<std::string> value) {
  if (common::iequals_ascii(name, "Content-Type")) {
    response.content_type = value.value_or("");
    return;
  }
  auto& headers = response.headers;
  headers.erase(std::remove_if(headers.begin(), headers.end(),
                               [&](const auto& h) { return common::iequals_ascii(h.first, name); }),
                headers.end());
  if (value) headers.emplace_back(std::string(name), std::move(*value));
}

std::optional<std::string> header_of(const HttpResponse& response, std::string_view name) {
  if (common::iequals_ascii(name, "Content-Type")) return response.content_type;
  for (const auto& [k, v] : response.headers)
    if (common::iequals_ascii(k, name)) return v;
  return std::nullopt;
}

}  // namespace entimg::broken

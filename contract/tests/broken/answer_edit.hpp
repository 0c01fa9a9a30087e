#pragma once
// Small tools the broken variants corrupt correct answers with: the request's parameters, the page
// body as ordered JSON (DRF's key order survives an edit), the next/previous links and the headers.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "entimg/common/url.hpp"
#include "entimg/mock/service.hpp"

namespace entimg::broken {

using mock::HttpRequest;
using mock::HttpResponse;
using Json = nlohmann::ordered_json;

/// The path of the request-target, without the query.
std::string_view path_of(const HttpRequest& request);
/// The request's query parameters, decoded, in order.
common::QueryParams query_of(const HttpRequest& request);
/// The same request with another query (encoded as the suite encodes its own).
HttpRequest with_query(const HttpRequest& request, const common::QueryParams& params);
/// True when params are exactly these pairs, in any order.
bool has_exactly(const common::QueryParams& params,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> expected);
/// The last value of key as a plain decimal number; nullopt when absent or anything else.
std::optional<std::uint64_t> number_param(const common::QueryParams& params, std::string_view key);

/// The body of a 200 JSON answer whose body is an object; nullopt otherwise.
std::optional<Json> page_of(const HttpResponse& response);
/// Replaces the body with json, compact as DRF renders it (indent < 0) or indented.
void set_body(HttpResponse& response, const Json& json, int indent = -1);
/// Applies edit to the body of a 200 JSON page and re-renders it; false (and no change) otherwise.
bool edit_page(HttpResponse& response, const std::function<void(Json&)>& edit);

/// A link rebuilt after edit changed its parameters (quote_plus encoded, in the edited order).
std::string edit_link(std::string_view url, const std::function<void(common::QueryParams&)>& edit);
/// The link on another origin ("http://internal-host:8000"), path and query kept.
std::string with_origin(std::string_view url, std::string_view origin);
/// Applies edit to next and previous where they are strings.
void edit_links(Json& page,
                const std::function<std::string(std::string_view key, const std::string& url)>& edit);
/// Sets the parameter to one value, where it was or at the end.
void set_param(common::QueryParams& params, std::string_view key, std::string value);
void remove_param(common::QueryParams& params, std::string_view key);

/// Replaces the header's value, or adds it; removes it when value is nullopt.
void set_header(HttpResponse& response, std::string_view name, std::optional<std::string> value);
/// The header's value in response (Content-Type included), or nullopt.
std::optional<std::string> header_of(const HttpResponse& response, std::string_view name);

}  // namespace entimg::broken

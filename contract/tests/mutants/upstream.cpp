#include "upstream.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "broken/answer_edit.hpp"
#include "entimg/common/ascii.hpp"

namespace entimg::mutants {

mock::HttpResponse Call::answer_with(const common::QueryParams& query) const {
  return upstream.handle(broken::with_query(request, query));
}

std::uint64_t count_of(Upstream& upstream) {
  mock::HttpRequest first{"GET", "/edw/api/entities-images/", {{"Host", "127.0.0.1"}}, "127.0.0.1:80", ""};
  const mock::HttpResponse answer = upstream.handle(first);
  const nlohmann::json page = nlohmann::json::parse(answer.body, nullptr, false);
  if (answer.status != 200 || !page.is_object() || !page.contains("count") ||
      !page["count"].is_number_unsigned())
    return 0;
  return page["count"].get<std::uint64_t>();
}

ServiceUpstream::ServiceUpstream(std::shared_ptr<const mock::Dataset> dataset, std::string description)
    : service_(std::move(dataset)), description_(std::move(description)) {
  count_ = count_of(*this);
}

mock::HttpResponse ServiceUpstream::handle(const mock::HttpRequest& request) {
  return service_.handle(request);
}

HttpUpstream::HttpUpstream(std::string host, int port, std::string description)
    : host_(std::move(host)), port_(port), description_(std::move(description)) {
  count_ = count_of(*this);
}

mock::HttpResponse HttpUpstream::handle(const mock::HttpRequest& request) {
  std::lock_guard lock(mutex_);
  httplib::Client client(host_, port_);
  client.set_url_encode(false);  // the target goes as the suite sent it
  client.set_read_timeout(10, 0);
  httplib::Headers headers;
  for (const auto& [name, value] : request.headers)
    if (!common::iequals_ascii(name, "Connection") && !common::iequals_ascii(name, "Content-Length"))
      headers.emplace(name, value);
  httplib::Request req;
  req.method = request.method == "HEAD" ? "GET" : request.method;
  req.path = request.target;
  req.headers = headers;
  mock::HttpResponse out;
  const httplib::Result result = client.send(req);
  if (!result) {
    out.status = 502;
    out.content_type = "text/plain";
    out.body = "upstream " + description_ + " did not answer: " + httplib::to_string(result.error());
    return out;
  }
  out.status = result->status;
  out.body = result->body;
  for (const auto& [name, value] : result->headers) {
    if (common::iequals_ascii(name, "Content-Type"))
      out.content_type = value;
    else if (!common::iequals_ascii(name, "Content-Length") &&
             !common::iequals_ascii(name, "Transfer-Encoding") &&
             !common::iequals_ascii(name, "Connection") && !common::iequals_ascii(name, "Keep-Alive"))
      out.headers.emplace_back(name, value);
  }
  return out;
}

}  // namespace entimg::mutants

#include "view_response.hpp"

#include "json_writer.hpp"

namespace entimg::mock::detail {

HttpResponse view_response(int status, std::string body, std::string_view allow) {
  // APIView.finalize_response: Allow and Vary on every answer of the view, errors included.
  return HttpResponse{
      status, "application/json", {{"Vary", "Accept"}, {"Allow", std::string(allow)}}, std::move(body)};
}

HttpResponse detail_error(int status, std::string_view message, int indent, std::string_view allow) {
  std::string body;
  JsonWriter w(body, indent);
  w.begin_object();
  w.key("detail");
  w.string(message);
  w.end_object();
  return view_response(status, std::move(body), allow);
}

HttpResponse field_errors(const std::vector<std::pair<std::string, std::string>>& errors, int indent,
                          std::string_view allow) {
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
  return view_response(400, std::move(body), allow);
}

}  // namespace entimg::mock::detail

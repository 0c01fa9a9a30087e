#include "entimg/mock/gzip.hpp"

#include <algorithm>
#include <optional>

#include "entimg/common/ascii.hpp"
#include "entimg/mock/vary.hpp"

namespace entimg::mock {

bool accepts_gzip(std::string_view accept_encoding) {
  std::optional<bool> gzip, any;
  while (!accept_encoding.empty()) {
    const std::size_t comma = std::min(accept_encoding.find(','), accept_encoding.size());
    const std::string_view element = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(std::min(comma + 1, accept_encoding.size()));
    const std::size_t semicolon = std::min(element.find(';'), element.size());
    const std::string_view coding = common::trim(element.substr(0, semicolon));
    bool positive = true;  // q=0, 0.0, 0.00 or 0.000 refuses the coding (RFC 9110 §12.4.2)
    std::string_view params = element.substr(semicolon);
    while (!params.empty()) {
      params.remove_prefix(1);
      const std::size_t next = std::min(params.find(';'), params.size());
      const std::string_view param = common::trim(params.substr(0, next));
      params.remove_prefix(next);
      if (param.size() >= 2 && common::iequals_ascii(param.substr(0, 2), "q="))
        positive = common::trim(param.substr(2)).find_first_not_of("0.") != std::string_view::npos;
    }
    if (common::iequals_ascii(coding, "gzip")) gzip = positive;
    if (coding == "*") any = positive;
  }
  return gzip ? *gzip : any.value_or(false);
}

void apply_gzip_middleware(const HttpRequest& request, HttpResponse& response) {
  if (response.body.size() < 200) return;  // "not worth attempting to compress really short responses"
  for (const auto& [name, value] : response.headers)  // a range of a file is of its bytes as they are
    if (common::iequals_ascii(name, "Content-Encoding") || common::iequals_ascii(name, "Content-Range"))
      return;
  patch_vary_headers(response, "Accept-Encoding");
  if (!accepts_gzip(request.header("Accept-Encoding").value_or(""))) return;
  std::string compressed = gzip_compress(response.body);
  if (compressed.size() >= response.body.size()) return;  // only when it is shorter
  response.body = std::move(compressed);
  response.headers.emplace_back("Content-Encoding", "gzip");
}

}  // namespace entimg::mock

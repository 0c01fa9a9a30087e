#include "negotiation.hpp"

#include <array>
#include <map>
#include <vector>

#include "entimg/common/ascii.hpp"
#include "python_number.hpp"

namespace entimg::mock::detail {
namespace {

// Python's bytes.strip(): DRF parses media types from the header's bytes.
std::string_view trim(std::string_view s) {
  return common::trim(s, common::kAsciiSpace);
}

// Django's parse_header: "type/sub; k=v; k2=\"v2\"" -> lower-cased type and parameters.
struct MediaType {
  std::string main_type, sub_type;
  std::map<std::string, std::string> params;
  std::vector<std::string> param_order;

  explicit MediaType(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    bool quoted = false;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] == '"' && (i == 0 || text[i - 1] != '\\')) quoted = !quoted;
      if (i == text.size() || (text[i] == ';' && !quoted)) {
        parts.push_back(trim(text.substr(start, i - start)));
        start = i + 1;
      }
    }
    const std::string full = common::ascii_lowered(parts.front());
    const auto slash = full.find('/');
    main_type = full.substr(0, slash);
    sub_type = slash == std::string::npos ? "" : full.substr(slash + 1);
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const auto eq = parts[i].find('=');
      if (eq == std::string_view::npos) continue;
      const std::string name = common::ascii_lowered(trim(parts[i].substr(0, eq)));
      std::string value(trim(parts[i].substr(eq + 1)));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
      if (!params.contains(name)) param_order.push_back(name);
      params[name] = value;
    }
  }

  int precedence() const {
    if (main_type == "*") return 0;
    if (sub_type == "*") return 1;
    if (params.empty() || (params.size() == 1 && params.contains("q"))) return 2;
    return 3;
  }

  // _MediaType(renderer).match(accepted): the renderers' own types carry no parameters.
  bool accepted_by(std::string_view renderer_main, std::string_view renderer_sub) const {
    if (sub_type != "*" && renderer_sub != sub_type) return false;
    if (main_type != "*" && renderer_main != main_type) return false;
    return true;
  }
};

struct RendererInfo {
  Renderer renderer;
  std::string_view format, main_type, sub_type;
};
constexpr std::array<RendererInfo, 2> kRenderers = {
    {{Renderer::Json, "json", "application", "json"}, {Renderer::BrowsableApi, "api", "text", "html"}}};

// JSONRenderer.get_indent: the accepted media type's indent, clamped to 0..8 (0: compact), when int() reads
// it; else the renderer context's, which the browsable page sets to 4 (DRF hands it the same accepted
// media type, so "*/*; indent=2" indents its JSON by 2).
int indent_of(const MediaType& accepted, int otherwise) {
  const auto it = accepted.params.find("indent");
  if (it == accepted.params.end()) return otherwise;
  const auto n = parse_python_int(it->second);
  if (!n) return otherwise;
  if (n->negative) return 0;
  return static_cast<int>(std::min<std::uint64_t>(n->magnitude.saturated(), 8));
}

}  // namespace

Negotiated negotiate(std::optional<std::string_view> format, std::optional<std::string_view> accept) {
  Negotiated result;
  std::vector<RendererInfo> renderers(kRenderers.begin(), kRenderers.end());
  if (format) {
    std::erase_if(renderers, [&](const RendererInfo& r) { return r.format != *format; });
    if (renderers.empty()) {
      result.outcome = Negotiated::Outcome::NotFound;
      return result;
    }
  }
  const std::string_view header = accept ? *accept : std::string_view("*/*");
  if (trim(header) == "*/*") {  // what most clients send (or nothing): the first renderer, its own indent
    result.renderer = renderers.front().renderer;
    result.indent = result.renderer == Renderer::Json ? 0 : 4;
    return result;
  }
  std::array<std::vector<MediaType>, 4> groups;  // most specific first
  std::size_t start = 0;
  for (std::size_t i = 0; i <= header.size(); ++i) {
    if (i == header.size() || header[i] == ',') {
      MediaType type(trim(header.substr(start, i - start)));
      groups[static_cast<std::size_t>(3 - type.precedence())].push_back(std::move(type));
      start = i + 1;
    }
  }
  for (const auto& group : groups)
    for (const auto& renderer : renderers)
      for (const auto& type : group)
        if (type.accepted_by(renderer.main_type, renderer.sub_type)) {
          result.renderer = renderer.renderer;
          result.indent = indent_of(type, renderer.renderer == Renderer::Json ? 0 : 4);
          return result;
        }
  result.outcome = Negotiated::Outcome::NotAcceptable;
  return result;
}

}  // namespace entimg::mock::detail

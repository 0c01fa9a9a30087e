#include "browsable.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"
#include "pagination.hpp"

namespace entimg::mock::detail {
namespace {

bool is_word_separator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '<' || c == '>' ||
         c == '"' || c == '\'';
}

bool is_word_char(char c) {  // Python's \w on the ASCII range; any UTF-8 byte counts as a letter
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_';
}

// ^https?://\[?\w
bool simple_url(std::string_view w) {
  std::size_t at = 0;
  if (common::istarts_with_ascii(w, "http://"))
    at = 7;
  else if (common::istarts_with_ascii(w, "https://"))
    at = 8;
  else
    return false;
  if (at < w.size() && w[at] == '[') ++at;
  return at < w.size() && is_word_char(w[at]);
}

// ^www\.|^(?!http)\w[^@]+\.(com|edu|gov|int|mil|net|org)($|/.*)$
bool simple_url_2(std::string_view w) {
  if (common::istarts_with_ascii(w, "www.")) return true;
  if (w.empty() || common::istarts_with_ascii(w, "http") || !is_word_char(w[0])) return false;
  for (const std::string_view tld : {".com", ".edu", ".gov", ".int", ".mil", ".net", ".org"}) {
    // The last match of ".tld" followed by the end or "/": [^@]+ between the first char and it.
    for (std::size_t pos = w.find_first_of('.', 1); pos != std::string_view::npos;
         pos = w.find('.', pos + 1)) {
      if (pos < 2 || !common::istarts_with_ascii(w.substr(pos), tld)) continue;
      const std::size_t end = pos + tld.size();
      if (end != w.size() && w[end] != '/') continue;
      if (w.substr(1, pos - 1).find('@') == std::string_view::npos) return true;
    }
  }
  return false;
}

bool email_simple(std::string_view w) {
  const std::size_t at = w.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == w.size() || w.find('@', at + 1) != w.npos)
    return false;
  const std::string_view domain = w.substr(at + 1);
  return domain.find('.') != std::string_view::npos && domain.front() != '.';
}

// Django's trim_punctuation with WRAPPING_PUNCTUATION ( ) [ ] and trailing ".,:;!" (on text that has no
// entities yet: the page urlizes raw text and escapes it as it writes).
void trim_punctuation(std::string_view& lead, std::string_view& middle, std::string_view& trail,
                      std::string_view word) {
  std::size_t begin = 0, end = word.size();
  bool trimmed = true;
  while (trimmed && begin < end) {
    trimmed = false;
    for (const auto& [open, close] : std::array<std::pair<char, char>, 2>{{{'(', ')'}, {'[', ']'}}}) {
      std::string_view m = word.substr(begin, end - begin);
      if (!m.empty() && m.front() == open) {
        ++begin;
        trimmed = true;
        m.remove_prefix(1);
      }
      if (!m.empty() && m.back() == close &&
          std::count(m.begin(), m.end(), close) == std::count(m.begin(), m.end(), open) + 1) {
        --end;
        trimmed = true;
      }
    }
    while (end > begin && std::string_view(".,:;!").find(word[end - 1]) != std::string_view::npos) {
      --end;
      trimmed = true;
    }
  }
  lead = word.substr(0, begin);
  middle = word.substr(begin, end - begin);
  trail = word.substr(end);
}

// Django's smart_urlquote: the path and fragment unquoted and quoted again keeping RFC 3986's delimiters,
// the query re-encoded pair by pair (parse_qsl, a second unquote, urlencode).
std::string smart_urlquote(std::string_view url) {
  constexpr std::string_view kDelims = "!$&'()*+,;=:/?#[]@~";
  const auto requote = [&](std::string_view part) {
    return common::quote(common::utf8_replace_invalid(common::percent_decode(part, false)), kDelims);
  };
  std::string_view fragment, query;
  const std::size_t hash = url.find('#');
  if (hash != std::string_view::npos) {
    fragment = url.substr(hash + 1);
    url = url.substr(0, hash);
  }
  const std::size_t question = url.find('?');
  if (question != std::string_view::npos) {
    query = url.substr(question + 1);
    url = url.substr(0, question);
  }
  const std::size_t scheme = url.find("://");
  const std::size_t path_at = scheme == std::string_view::npos ? 0 : url.find('/', scheme + 3);
  std::string out(url.substr(0, path_at == std::string_view::npos ? url.size() : path_at));
  if (path_at != std::string_view::npos) out += requote(url.substr(path_at));
  if (!query.empty()) {
    std::string encoded;
    for (const auto& [key, value] : common::parse_query(query)) {
      if (!encoded.empty()) encoded.push_back('&');
      common::append_quote_plus(encoded, common::utf8_replace_invalid(common::percent_decode(key, false)));
      encoded.push_back('=');
      common::append_quote_plus(encoded, common::utf8_replace_invalid(common::percent_decode(value, false)));
    }
    if (!encoded.empty()) out += "?" + encoded;
  }
  if (!fragment.empty()) out += "#" + requote(fragment);
  return out;
}

void append_word(std::string& out, std::string_view word) {
  if (word.find_first_of(".@:") == std::string_view::npos) return append_html_escaped(out, word);
  std::string_view lead, middle, trail;
  trim_punctuation(lead, middle, trail, word);
  std::string url;
  bool nofollow = true;
  if (simple_url(middle)) {
    url = smart_urlquote(middle);
  } else if (simple_url_2(middle)) {
    url = smart_urlquote("http://" + std::string(middle));
  } else if (middle.find(':') == std::string_view::npos && email_simple(middle)) {
    url = "mailto:" + std::string(middle);
    nofollow = false;
  }
  if (url.empty()) return append_html_escaped(out, word);
  append_html_escaped(out, lead);
  out += "<a href=\"";
  append_html_escaped(out, url);
  out += nofollow ? "\" rel=\"nofollow\">" : "\">";
  append_html_escaped(out, middle);
  out += "</a>";
  append_html_escaped(out, trail);
}

// text is escaped unless it is markup already (raw).
void append_link(std::string& out, std::string_view href, std::string_view text, std::string_view attrs = {},
                 bool raw = false) {
  out += "<a href=\"";
  append_html_escaped(out, href);
  out += '"';
  out += attrs;
  out += '>';
  if (raw)
    out += text;
  else
    append_html_escaped(out, text);
  out += "</a>";
}

// Self-contained styling (no external files, so the page loads with nothing but the mock).
constexpr std::string_view kStyle = R"(
body { margin: 0; font-family: system-ui, sans-serif; color: #222; background: #fff; }
header.navbar { background: #2c2c2c; color: #fff; padding: 12px 24px; }
header.navbar a { color: #fff; text-decoration: none; font-size: 18px; }
main.container { max-width: 1100px; margin: 0 auto; padding: 8px 24px 48px; }
ul.breadcrumb { list-style: none; padding: 8px 15px; background: #f5f5f5; border-radius: 4px; }
ul.breadcrumb li { display: inline; }
ul.breadcrumb li + li::before { content: "/\00a0"; padding: 0 5px; color: #999; }
ul.breadcrumb li.active a { color: #777; }
.request-form { float: right; display: flex; gap: 8px; align-items: flex-start; }
.btn { display: inline-block; padding: 6px 12px; border-radius: 4px; background: #2c6ea4; color: #fff;
       text-decoration: none; border: 0; font: inherit; cursor: pointer; }
details.format-selection, details.filters { position: relative; }
details.format-selection ul, details.filters form { position: absolute; right: 0; z-index: 1; background: #fff;
       border: 1px solid #ccc; padding: 8px 12px; margin: 4px 0; list-style: none; white-space: nowrap; }
h1 { font-weight: 500; border-bottom: 1px solid #eee; padding-bottom: 8px; }
nav.pagination-nav { text-align: right; }
ul.pagination { display: inline-flex; list-style: none; padding: 0; margin: 5px 0 10px; }
ul.pagination li a { display: block; padding: 6px 12px; border: 1px solid #ddd; margin-left: -1px;
       text-decoration: none; color: #2c6ea4; }
ul.pagination li.active a { background: #2c6ea4; color: #fff; }
ul.pagination li.disabled a { color: #999; pointer-events: none; }
pre.prettyprint { background: #f8f8f8; border: 1px solid #ddd; border-radius: 4px; padding: 10px;
       white-space: pre-wrap; word-break: break-all; }
pre.prettyprint a { color: #2c6ea4; }
form.upload { border: 1px solid #ddd; border-radius: 4px; padding: 12px 16px; }
form.upload p { margin: 8px 0; }
form.upload label { display: inline-block; width: 80px; }
)";

}  // namespace

void append_urlized(std::string& out, std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    const bool separator = is_word_separator(text[i]);
    while (j < text.size() && is_word_separator(text[j]) == separator)
      ++j;
    if (separator)
      append_html_escaped(out, text.substr(i, j - i));
    else
      append_word(out, text.substr(i, j - i));
    i = j;
  }
}

namespace {

// From the doctype to the breadcrumbs.
void append_page_head(std::string& html, const BrowsablePage& page) {
  html +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"robots\" content=\"NONE,NOARCHIVE\">\n<link rel=\"icon\" href=\"data:,\">\n<title>";
  append_html_escaped(html, page.name);
  html += " \u2013 Django REST framework</title>\n<style>";
  html += kStyle;
  html +=
      "</style>\n</head>\n<body>\n<header class=\"navbar\"><a "
      "href=\"https://www.django-rest-framework.org/\" "
      "rel=\"nofollow\">Django REST framework</a> <small>(entities-images-mock)</small></header>\n"
      "<main class=\"container\">\n<ul class=\"breadcrumb\">\n";
  for (std::size_t i = 0; i < page.breadcrumbs.size(); ++i) {
    html += i + 1 == page.breadcrumbs.size() ? "<li class=\"active\">" : "<li>";
    append_link(html, page.breadcrumbs[i].second, page.breadcrumbs[i].first);
    html += "</li>\n";
  }
}

// The filters, the GET button, the format switcher and the view's name.
void append_request_form(std::string& html, const BrowsablePage& page) {
  html += "</ul>\n<div class=\"request-form\">\n";
  if (page.entity_filter) {
    html +=
        "<details class=\"filters\"><summary class=\"btn\">Filters</summary>\n"
        "<form class=\"form\" action=\"\" method=\"get\"><h2>Field filters</h2>\n"
        "<p><label for=\"id_entity\">Entity:</label> "
        "<input type=\"number\" name=\"entity\" step=\"any\" id=\"id_entity\"></p>\n"
        "<button type=\"submit\" class=\"btn\">Submit</button></form></details>\n";
  }
  html += "<span class=\"get-button\">";
  append_link(html, page.get_url, "GET", " class=\"btn\" rel=\"nofollow\" title=\"Make a GET request\"");
  html += "</span>\n<details class=\"format-selection\"><summary class=\"btn\">Format</summary><ul>\n<li>";
  append_link(html, page.json_format_url, "json", " class=\"format-option\" rel=\"nofollow\"");
  html += "</li>\n<li>";
  append_link(html, page.api_format_url, "api", " class=\"format-option\" rel=\"nofollow\"");
  html += "</li>\n</ul></details>\n</div>\n<h1>";
  append_html_escaped(html, page.name);
  html += "</h1>\n";
}

// The page-number controls of a list.
void append_pagination(std::string& html, const PageControls& p) {
  html += "<nav class=\"pagination-nav\" aria-label=\"pages\"><ul class=\"pagination\">\n";
  html += p.previous ? "<li>" : "<li class=\"disabled\">";
  append_link(html, p.previous.value_or("#"), "&laquo;", " aria-label=\"Previous\"", true);
  html += "</li>\n";
  for (const auto& link : p.pages) {
    if (!link) {
      html += "<li class=\"disabled\"><a href=\"#\">&hellip;</a></li>\n";
      continue;
    }
    html += link->active ? "<li class=\"active\">" : "<li>";
    append_link(html, link->url, std::to_string(link->number));
    html += "</li>\n";
  }
  html += p.next ? "<li>" : "<li class=\"disabled\">";
  append_link(html, p.next.value_or("#"), "&raquo;", " aria-label=\"Next\"", true);
  html += "</li>\n</ul></nav>\n";
}

// The request line, then the answer's status, headers and JSON with its URLs as links.
void append_request_and_response(std::string& html, const BrowsablePage& page, const HttpResponse& json) {
  html += "<div class=\"request-info\" aria-label=\"request info\"><pre class=\"prettyprint\"><b>";
  append_html_escaped(html, page.method);
  html += "</b> ";
  append_html_escaped(html, page.full_path);
  html +=
      "</pre></div>\n<div class=\"response-info\" aria-label=\"response info\"><pre class=\"prettyprint\">"
      "<span class=\"meta nocode\"><b>HTTP ";
  html += std::to_string(json.status);
  html += ' ';
  html += reason_phrase(json.status);
  html += "</b>";
  // The response's headers sorted by name, Content-Type the JSON renderer's (DRF's get_context).
  std::vector<std::pair<std::string, std::string>> headers = json.headers;
  headers.emplace_back("Content-Type", json.content_type);
  std::sort(headers.begin(), headers.end());
  for (const auto& [name, value] : headers) {
    html += "\n<b>";
    append_html_escaped(html, name);
    html += ":</b> <span class=\"lit\">";
    append_urlized(html, value);
    html += "</span>";
  }
  html += "\n\n</span>";
  append_urlized(html, json.body);
  html += "</pre></div>\n";
}

// For a user allowed to POST: the upload form.
void append_upload_form(std::string& html, const BrowsablePage& page) {
  html +=
      "<h2>Upload an image</h2>\n<form class=\"upload\" method=\"post\" enctype=\"multipart/form-data\" "
      "action=\"";
  append_html_escaped(html, page.form_action);
  html +=
      "\">\n<p><label for=\"id_image\">Image</label> <input type=\"file\" name=\"image\" id=\"id_image\" "
      "required></p>\n<p><label for=\"id_entity_post\">Entity</label> <input type=\"number\" "
      "name=\"entity\" id=\"id_entity_post\" required></p>\n<p><label for=\"id_order\">Order</label> "
      "<input type=\"number\" name=\"order\" id=\"id_order\" min=\"-32768\" max=\"32767\"></p>\n"
      "<p><label for=\"id_key\">Key</label> <input type=\"number\" name=\"key\" id=\"id_key\"></p>\n"
      "<p><button type=\"submit\" class=\"btn\">POST</button></p>\n</form>\n";
}

}  // namespace

HttpResponse render_browsable(HttpResponse json, const BrowsablePage& page) {
  std::string html;
  html.reserve(4096 + json.body.size() * 2);
  append_page_head(html, page);
  append_request_form(html, page);
  if (page.pagination) append_pagination(html, *page.pagination);
  append_request_and_response(html, page, json);
  if (page.upload_form) append_upload_form(html, page);
  html += "</main>\n</body>\n</html>\n";

  json.content_type = "text/html; charset=utf-8";
  json.body = std::move(html);
  return json;
}

}  // namespace entimg::mock::detail

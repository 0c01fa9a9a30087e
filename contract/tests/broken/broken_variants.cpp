// The broken variants: each makes the suite fail the rules it lists, and no other.
#include <algorithm>

#include "variant_support.hpp"

namespace entimg::broken::detail {
namespace {

using mock::HttpResponse;

std::string last_segment_replaced(const std::string& url, std::string_view prefix) {
  const std::size_t slash = url.rfind('/');
  return slash == std::string::npos ? url
                                    : url.substr(0, slash + 1) + std::string(prefix) + url.substr(slash + 1);
}

// filer_public/ab/cd/<uuid>/… with the folders taken from the uuid's last four hex digits instead.
void wrong_hex_folders(Json& record) {
  const auto file = record.find("file");
  if (file == record.end() || !file->is_string()) return;
  const std::string stored = file->get<std::string>();
  constexpr std::string_view kRoot = "filer_public/";
  if (!stored.starts_with(kRoot) || stored.size() < kRoot.size() + 6 + 36) return;
  const std::string folders = stored.substr(kRoot.size(), 5);
  const std::string uuid = stored.substr(kRoot.size() + 6, 36);
  std::string wrong = uuid.substr(32, 2) + "/" + uuid.substr(34, 2);
  if (wrong == uuid.substr(0, 2) + "/" + uuid.substr(2, 2)) wrong = wrong == "00/00" ? "ff/ff" : "00/00";
  *file = std::string(kRoot) + wrong + stored.substr(kRoot.size() + 5);
  const auto image = record.find("image");
  if (image != record.end() && image->is_string()) {
    std::string url = image->get<std::string>();
    const std::size_t at = url.find(std::string(kRoot) + folders + "/");
    if (at != std::string::npos) url.replace(at + kRoot.size(), 5, wrong);
    *image = url;
  }
}

}  // namespace

std::vector<Variant> page_variants() {
  std::vector<Variant> v;
  v.push_back({"server-error-on-one-page",
               Kind::Broken,
               "status_ok",
               {"status_ok"},
               "the partial page (limit=5) answers 500 with a JSON error body",
               "",
               [](const Call& c) {
                 if (c.request.method == "GET" && is_partial_page(c))
                   return json_error(500, "A server error occurred.");
                 return c.answer();
               }});
  v.push_back({"truncated-json-on-one-page",
               Kind::Broken,
               "json_body",
               {"json_body"},
               "the partial page (limit=5) answers 200 with its JSON cut in the middle",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (is_partial_page(c) && r.status == 200) r.body.resize(r.body.size() / 2);
                 return r;
               }});
  v.push_back({"bom-before-json",
               Kind::Broken,
               "json_body",
               {"json_body"},
               "every JSON answer starts with a UTF-8 byte-order mark",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.status == 200 && r.content_type.starts_with("application/json"))
                   r.body = "\xEF\xBB\xBF" + r.body;
                 return r;
               }});
  v.push_back({"envelope-extra-key",
               Kind::Broken,
               "page_schema",
               {"page_schema"},
               "every page has a fifth envelope key, \"page_size\"",
               "",
               every_page([](Json& p) { p["page_size"] = p["results"].size(); })});
  v.push_back({"record-missing-field",
               Kind::Broken,
               "record_schema",
               {"record_schema"},
               "every record lacks its \"alt\" field",
               "",
               every_page([](Json& p) { for_each_record(p, [](Json& r) { r.erase("alt"); }); })});
  v.push_back({"image-path-differs-from-file",
               Kind::Broken,
               "image_matches_file",
               {"image_matches_file", "image_loads"},
               "every image URL names the file thumb_<name> while file says <name> (same host)",
               "an image URL that names another file finds none there: the picture does not load (404)",
               every_page([](Json& p) {
                 for_each_record(p, [](Json& r) {
                   if (r["image"].is_string())
                     r["image"] = last_segment_replaced(r["image"].get<std::string>(), "thumb_");
                 });
               })});
  v.push_back({"hex-folders-not-from-uuid",
               Kind::Broken,
               "file_layout",
               {"file_layout", "image_loads"},
               "the two hex folders of file (and image) are the uuid's last four hex digits, not its first",
               "the stored file is not at the path the record now names, so its picture does not load (the "
               "schema's patterns leave the folders' relation to the uuid to file_layout: docs/schema.md)",
               every_page([](Json& p) { for_each_record(p, wrong_hex_folders); })});
  v.push_back({"png-labelled-jpeg",
               Kind::Broken,
               "mime_type_matches_extension",
               {"mime_type_matches_extension", "image_loads"},
               "every .png record says mime_type image/jpeg",
               "the picture still comes as image/png, which is not the record's mime_type",
               every_page([](Json& p) {
                 for_each_record(p, [](Json& r) {
                   if (r["file"].is_string() && r["file"].get<std::string>().ends_with(".png"))
                     r["mime_type"] = "image/jpeg";
                 });
               })});
  v.push_back(
      {"page-missing-a-record",
       Kind::Broken,
       "page_length",
       {"page_length"},
       "the middle page (format=json&limit=12&offset=N, which the walk never asks) lacks its last record",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (is_middle_page(c))
           edit_page(r, [](Json& p) {
             if (!p["results"].empty()) p["results"].erase(p["results"].size() - 1);
           });
         return r;
       }});
  v.push_back({"limits-capped-at-100",
               Kind::Broken,
               "page_length",
               {"page_length"},
               "a page asked for more than 100 records holds the first 100 (a max_limit nobody was told of); "
               "its links still step by the limit asked",
               "",
               every_page([](Json& p) {
                 auto& results = p["results"];
                 if (results.is_array() && results.size() > 100)
                   results.erase(results.begin() + 100, results.end());
               })});
  v.push_back(
      {"default-page-of-10",
       Kind::Broken,
       "default_page_length",
       {"page_length", "default_page_length", "next_link_offset", "previous_link_offset",
        "links_keep_parameters", "walk_reaches_end", "parameter_probe"},
       "the deployment's PAGE_SIZE is 10: without a valid limit, pages hold 10 records and links carry "
       "limit=10",
       "a default of 10 is wrong on every page asked without limit, and each rule judging those pages "
       "says so in its terms; see default-links-say-limit-10 for the smallest breakage",
       [](const Call& c) {
         const auto limit = number_param(c.params, "limit");
         if (limit && *limit > 0) return c.answer();
         common::QueryParams query = c.params;
         set_param(query, "limit", "10");
         return c.answer_with(query);
       }});
  v.push_back(
      {"default-links-say-limit-10",
       Kind::Broken,
       "default_page_length",
       {"default_page_length", "links_keep_parameters"},
       "the first page's next link (with or without format=json) carries limit=10 before limit=12 (the "
       "last one, which DRF reads)",
       "a link's limit is links_keep_parameters' business on every page; default_page_length only adds "
       "that the first page's links disagree with the default of 12, and its record count is page_length's",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (!is_first_page(c)) return r;
         edit_page(r, [](Json& p) {
           if (!p["next"].is_string()) return;
           p["next"] = edit_link(p["next"].get<std::string>(), [](common::QueryParams& q) {
             remove_param(q, "limit");
             q.insert(q.begin(), {{"limit", "10"}, {"limit", "12"}});
           });
         });
         return r;
       }});
  return v;
}

std::vector<Variant> link_variants() {
  std::vector<Variant> v;
  v.push_back({"next-offset-off-by-one",
               Kind::Broken,
               "next_link_offset",
               {"next_link_offset"},
               "the middle page's next (format=json&limit=12&offset=N) carries offset N+13 instead of N+12",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (!is_middle_page(c)) return r;
                 const std::uint64_t wrong = number_param(c.params, "offset").value_or(0) + 13;
                 const std::string host = c.request.header("Host").value_or(c.request.server_authority);
                 edit_page(r, [&](Json& p) {
                   // Past the end DRF's next is null; the broken one points further all the same.
                   p["next"] = edit_link(
                       p["next"].is_string() ? p["next"].get<std::string>()
                                             : "http://" + host + std::string(path_of(c.request)) + "?" +
                                                   c.request.target.substr(c.request.target.find('?') + 1),
                       [&](common::QueryParams& q) { set_param(q, "offset", std::to_string(wrong)); });
                 });
                 return r;
               }});
  v.push_back({"previous-offset-off-by-one",
               Kind::Broken,
               "previous_link_offset",
               {"previous_link_offset"},
               "wherever previous carries an offset, it is one too many (offset − limit + 1)",
               "",
               every_page([](Json& p) {
                 if (!p["previous"].is_string()) return;
                 p["previous"] = edit_link(p["previous"].get<std::string>(), [](common::QueryParams& q) {
                   if (const auto offset = number_param(q, "offset"))
                     set_param(q, "offset", std::to_string(*offset + 1));
                 });
               })});
  v.push_back({"links-drop-format",
               Kind::Broken,
               "links_keep_parameters",
               {"links_keep_parameters"},
               "next and previous leave out the format parameter the request had",
               "",
               every_page([](Json& p) {
                 edit_links(p, [](std::string_view, const std::string& url) {
                   return edit_link(url, [](common::QueryParams& q) { remove_param(q, "format"); });
                 });
               })});
  v.push_back({"links-on-internal-host",
               Kind::Broken,
               "link_origin",
               {"link_origin"},
               "next and previous point at http://internal-host:8000 (a proxy that does not pass Host)",
               "",
               every_page([](Json& p) {
                 edit_links(p, [](std::string_view, const std::string& url) {
                   return with_origin(url, "http://internal-host:8000");
                 });
               })});
  v.push_back({"images-on-other-host",
               Kind::Broken,
               "link_origin",
               {"link_origin"},
               "image URLs point at http://media.internal:8080 (path kept)",
               "",
               every_page([](Json& p) {
                 for_each_record(p, [](Json& r) {
                   if (r["image"].is_string())
                     r["image"] = with_origin(r["image"].get<std::string>(), "http://media.internal:8080");
                 });
               })});
  return v;
}

std::vector<Variant> walk_variants() {
  std::vector<Variant> v;
  v.push_back({"two-records-swapped",
               Kind::Broken,
               "results_ascending",
               {"results_ascending"},
               "on every page of 5 or more records, the 3rd and 4th records are swapped",
               "",
               every_page([](Json& p) {
                 Json& results = p["results"];
                 if (results.size() >= 5) std::swap(results[2], results[3]);
               })});
  v.push_back(
      {"records-swapped-across-pages",
       Kind::Broken,
       "ascending_across_pages",
       {"ascending_across_pages"},
       "the 12th and 13th records change pages: page one ends with the 13th, page two starts with the 12th",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         const bool first = is_first_page(c);
         if (!first && !is_walk_page(c, 12)) return r;
         // The record that belongs on the other page: position 12 for page one, 11 for page two.
         common::QueryParams other;
         other.emplace_back("limit", "1");
         other.emplace_back("offset", first ? "12" : "11");
         const std::optional<Json> swapped = page_of(c.answer_with(other));
         if (!swapped || !swapped->contains("results") || swapped->at("results").empty()) return r;
         edit_page(r, [&](Json& p) {
           Json& results = p["results"];
           if (results.empty()) return;
           (first ? results[results.size() - 1] : results[0]) = swapped->at("results")[0];
         });
         return r;
       }});
  v.push_back({"walk-page-repeats-a-record",
               Kind::Broken,
               "walk_no_duplicates",
               {"ascending_across_pages", "walk_no_duplicates"},
               "the walk's third page (offset=24) serves offset 23: one record twice, one never",
               "ids strictly ascending within and across consecutive pages cannot repeat, so a repeated id "
               "always breaks an ordering rule too; the one across the page boundary is the least",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (is_walk_page(c, 24)) serve_window(c, r, 23);
                 return r;
               }});
  v.push_back({"count-varies-between-pages",
               Kind::Broken,
               "count_stable",
               {"count_stable"},
               "the walk's third page (offset=24) reports count + 1",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (is_walk_page(c, 24))
                   edit_page(r, [](Json& p) { p["count"] = p["count"].get<std::uint64_t>() + 1; });
                 return r;
               }});
  v.push_back(
      {"count-one-too-many-while-walking",
       Kind::Broken,
       "walk_count_matches",
       {"page_length", "walk_count_matches", "count_stable"},
       "every page the walk may ask (no parameters, format=json, offset=N, limit=12&offset=N) reports "
       "count + 1",
       "a count that disagrees with the records the walk sees is also a wrong page length on the last "
       "page (DRF sizes each page from count); consistent pages with a consistent count always add up; "
       "and the quick plan's other pages (limit=5, the probes) report the true count",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (is_first_page(c) || is_any_walk_page(c))
           edit_page(r, [](Json& p) { p["count"] = p["count"].get<std::uint64_t>() + 1; });
         return r;
       }});
  v.push_back({"next-never-null",
               Kind::Broken,
               "walk_reaches_end",
               {"next_link_offset", "walk_reaches_end"},
               "on the walk's pages (offset=N, limit=12&offset=N) next is never null: past the end it keeps "
               "pointing one page further",
               "a walk that never ends needs a next link where none belongs (or a count that keeps growing)",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 const auto offset = walk_offset(c);
                 if (!offset) return r;
                 edit_page(r, [&](Json& p) {
                   if (!p["next"].is_null()) return;
                   const std::string host = c.request.header("Host").value_or(c.request.server_authority);
                   p["next"] = "http://" + host + std::string(path_of(c.request)) +
                               "?limit=12&offset=" + std::to_string(*offset + 12);
                 });
                 return r;
               }});
  v.push_back(
      {"refetch-differs",
       Kind::Broken,
       "refetch_same_ids",
       {"refetch_same_ids"},
       "the middle page (format=json&limit=12&offset=N) answers the window one record off every second "
       "time it is asked",
       "",
       [](const Call& c) {
         HttpResponse r = c.answer();
         if (!is_middle_page(c) || c.nth % 2 == 1) return r;
         const std::uint64_t offset = number_param(c.params, "offset").value_or(0);
         serve_window(c, r, offset > 0 ? offset - 1 : offset + 1);
         return r;
       }});
  return v;
}

std::vector<Variant> header_variants() {
  std::vector<Variant> v;
  v.push_back({"html-content-type",
               Kind::Broken,
               "content_type_json",
               {"content_type_json"},
               "JSON answers say Content-Type: text/html; charset=utf-8",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (r.content_type == "application/json") r.content_type = "text/html; charset=utf-8";
                 return r;
               }});
  v.push_back({"allow-missing-post",
               Kind::Broken,
               "allow_header",
               {"allow_header"},
               "Allow says GET, HEAD, OPTIONS",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (header_of(r, "Allow")) set_header(r, "Allow", "GET, HEAD, OPTIONS");
                 return r;
               }});
  v.push_back({"vary-missing",
               Kind::Broken,
               "vary_accept",
               {"vary_accept"},
               "no answer has a Vary header",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 set_header(r, "Vary", std::nullopt);
                 return r;
               }});
  v.push_back({"head-length-differs",
               Kind::Broken,
               "head_matches_get",
               {"head_matches_get"},
               "HEAD announces a Content-Length one byte longer than GET's body",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (c.request.method == "HEAD") r.body += "\n";
                 return r;
               }});
  v.push_back({"options-not-allowed",
               Kind::Broken,
               "options_ok",
               {"options_ok"},
               "OPTIONS answers 405 Method Not Allowed",
               "",
               [](const Call& c) {
                 if (c.request.method == "OPTIONS") return json_error(405, "Method \"OPTIONS\" not allowed.");
                 return c.answer();
               }});
  v.push_back(
      {"limit-abc-500",
       Kind::Broken,
       "parameter_probe",
       {"status_ok", "parameter_probe"},
       "limit=abc answers 500 instead of falling back to 12",
       "every probe page is also judged by the page rules; whatever a probe can get wrong (status, "
       "window, link limit, next offset) is one of theirs too, so parameter_probe only says which probe",
       [](const Call& c) {
         const std::string* limit = common::last_value(c.params, "limit");
         if (limit != nullptr && *limit == "abc") return json_error(500, "A server error occurred.");
         return c.answer();
       }});
  v.push_back({"format-json-differs",
               Kind::Broken,
               "format_json_same",
               {"format_json_same"},
               "with format=json (and nothing else) the first record's alt text differs",
               "",
               [](const Call& c) {
                 HttpResponse r = c.answer();
                 if (has_exactly(c.params, {{"format", "json"}}))
                   edit_page(r, [](Json& p) {
                     if (!p["results"].empty()) p["results"][0]["alt"] = "rendered by another view";
                   });
                 return r;
               }});
  return v;
}

}  // namespace entimg::broken::detail

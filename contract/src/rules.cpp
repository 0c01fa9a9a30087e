#include "entimg/contract/rules.hpp"

namespace entimg::contract {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = {
      {"status_ok", "headers", "GET of the collection answers 200 OK", "spec §4.1 (Success status)"},
      {"json_body", "schema", "a 200 body is a JSON object", "spec §4.1 (Response body); reference §3.8"},
      {"page_schema", "schema", "the envelope conforms to schema/page.schema.json (records aside)",
       "spec §2.2; reference C1, C2; docs/schema.md"},
      {"record_schema", "schema", "every record conforms to schema/image-record.schema.json",
       "spec §2.1; reference C6, C7; docs/schema.md"},
      {"image_matches_file", "cross-field",
       "the path of image is [prefix]/media/ + file (compared percent-decoded)",
       "spec §2.1 (image, file); reference §4, C8"},
      {"file_layout", "cross-field",
       "file is filer_public/<2 hex>/<2 hex>/<uuid>/<name>, the folders being the uuid's first 4 hex digits",
       "spec §2.1 (image); reference §4 (django-filer randomized), C8"},
      {"mime_type_matches_extension", "cross-field",
       "mime_type is what Python's mimetypes gives for file's extension (\"\" only for non-image extensions)",
       "spec §2.1 (mime_type); reference C12, §1.6 (edw serializer)"},
      {"page_length", "page-length",
       "len(results) == clamp(count − offset, 0, limit) for the effective window",
       "reference §2.2, C2 / DRF pagination.py"},
      {"default_page_length", "page-length",
       "without limit, a full page holds 12 records and links carry limit=12",
       "spec §2.2 rule 4, §8; reference §1.5 (PAGE_SIZE 12)"},
      {"next_link_offset", "links",
       "next is null exactly when offset+limit ≥ count, else carries offset=offset+limit",
       "spec §2.2 rule 2, §4.1 rule 2; reference §2.3, C3 / DRF pagination.py"},
      {"previous_link_offset", "links",
       "previous is null exactly when offset ≤ 0, else carries offset−limit (dropped or 0 when ≤ 0)",
       "spec §2.2 rule 2, §4.1 rule 2; reference §2.3, C4 / DRF pagination.py"},
      {"links_keep_parameters", "links",
       "links are absolute, on the request's path, carry limit=<effective limit> and every other sent "
       "parameter",
       "spec §2.2 rule 1; reference §2.4, C5 / DRF utils/urls.py"},
      {"link_origin", "origin", "next, previous and image URLs use the base URL's scheme, host and port",
       "spec §2.1 (image under {base_url}); reference §2.5, M3"},
      {"results_ascending", "ordering", "ids (or --order-key) strictly ascending within a page",
       "spec §2.2 rule 3"},
      {"ascending_across_pages", "ordering", "the last id of a page is below the first id of the next page",
       "spec §2.2 rule 3"},
      {"walk_reaches_end", "walk",
       "following next from the first page reaches next == null within the page cap",
       "spec §2.2, §4.1 rule 2"},
      {"walk_no_duplicates", "walk", "no id is seen twice while walking the collection",
       "spec §2.1 (id: unique identifier)"},
      {"walk_count_matches", "walk", "records seen in a complete walk == count of the first page",
       "spec §2.2 (count: total number of records)"},
      {"count_stable", "walk", "every page of the quick plan and of a walk reports the first page's count",
       "spec §2.2 (count: total number of records); reference §5.3"},
      {"refetch_same_ids", "walk", "fetching a page again returns the same ids in the same order",
       "spec §2.2 rule 3; reference §5.1"},
      {"content_type_json", "headers",
       "Content-Type is application/json (parameters such as charset allowed)",
       "spec §4.1 (Response content type); reference §3.1, C9"},
      {"allow_header", "headers", "Allow lists exactly GET, POST, HEAD, OPTIONS, in any order",
       "spec §1, §4.1 (Response headers); reference §1.1, C9"},
      {"vary_accept", "headers", "Vary contains the token Accept",
       "spec §4.1 (Response headers); reference §3.1, C9"},
      {"head_matches_get", "headers",
       "HEAD answers with GET's status and headers (Content-Length too), no body",
       "spec §4.2; reference §3.3, M8", "HEAD"},
      {"options_ok", "headers", "OPTIONS answers 200", "spec §4.2; reference §3.4, M7", "OPTIONS"},
      {"parameter_probe", "parameters",
       "limit=abc|0|-1|huge, offset=abc|-1|beyond count: 200, never 5xx, with DRF's effective limit and "
       "offset",
       "reference §2.1 / DRF pagination.py (_positive_int, get_limit, get_offset)"},
      {"format_json_same", "parameters",
       "format=json and no format give the same JSON (links aside from format)",
       "spec §4.1 (format); reference §3.2"},
  };
  return rules;
}

const Rule* find_rule(std::string_view name) {
  for (const Rule& rule : all_rules())
    if (rule.name == name) return &rule;
  return nullptr;
}

}  // namespace entimg::contract

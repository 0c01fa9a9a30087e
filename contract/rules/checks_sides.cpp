// Rules on the answers the quick plan asks from the other sides a client meets the deployment from: a
// filter and the nested route, another representation, compression, a proxy's headers, another Host
// (contract/run/sides.cpp sends them; docs/contract.md, "Sides").
#include <algorithm>

#include "content_coding.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/contract/checks.hpp"
#include "failure_budget.hpp"
#include "header_lists.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "links.hpp"
#include "message_text.hpp"
#include "rule_tables.hpp"

namespace entimg::contract {
namespace {

using detail::ids_text;
using detail::Json;
using detail::quote;

// JSON's and HTML's white space, which a body may start with (Django's templates begin with blank lines).
constexpr std::string_view kWhitespace = " \t\r\n";

std::string count_text(const std::optional<std::uint64_t>& count) {
  return count ? std::to_string(*count) : std::string("none");
}

// The media type of the answer's Content-Type, lower-cased; "" without one.
std::string media_type(const HttpExchange& exchange) {
  const auto type = exchange.header("Content-Type");
  if (!type) return "";
  return common::ascii_lowered(common::trim(std::string_view(*type).substr(0, type->find(';'))));
}

// The browsable API's page: text/html whose body is markup.
bool is_html(const HttpExchange& exchange) {
  if (exchange.status != 200 || media_type(exchange) != "text/html") return false;
  return common::trim(exchange.body, kWhitespace).starts_with('<');
}

// What an answer is, for messages: "the browsable HTML (text/html)", "JSON (application/json)", "status 406".
std::string representation_text(const HttpExchange& exchange) {
  if (exchange.status == 0) return "no answer: " + quote(exchange.error);
  if (exchange.status != 200) return "status " + std::to_string(exchange.status);
  if (is_html(exchange)) return "the browsable HTML (text/html)";
  const std::string type = media_type(exchange);
  const std::string_view body = common::trim(exchange.body, kWhitespace);
  const std::string kind = body.starts_with('{') || body.starts_with('[') ? "JSON" : "a body";
  return kind + " (" + (type.empty() ? std::string("no Content-Type") : type) + ")";
}

// "Accept: application/json" or "format=api": how the request asked, for messages about another one.
std::string asked_text(const HttpExchange& exchange) {
  if (const auto accept = exchange.request_header("Accept")) return "Accept: " + quote(*accept);
  return "no Accept";
}

// The page's record ids, and a failure when a record belongs to another entity than the one asked for.
std::vector<std::int64_t> ids_of_entity(const SideAsk& ask, detail::JsonArray results,
                                        detail::FailureBudget& budget) {
  std::vector<std::int64_t> ids;
  std::size_t others = 0, first_other = 0;
  std::string other_entity;
  std::optional<std::int64_t> other_id;
  std::size_t i = 0;
  for (const Json record : results) {
    const std::size_t index = i++;
    if (const auto id = detail::record_id(record)) ids.push_back(*id);
    const std::string entity = detail::integer_text(detail::member(record, "entity"));
    if (entity.empty() || entity == ask.entity) continue;  // record_schema reports an entity not an integer
    if (others++ == 0) {
      first_other = index;
      other_entity = entity;
      other_id = detail::record_id(record);
    }
  }
  if (others > 0)
    budget.fail("expected only records of entity " + ask.entity + " (" + ask.label + "), got one of entity " +
                    other_entity +
                    (others > 1 ? " and " + std::to_string(others - 1) + " more of other entities" : "") +
                    " (a filter the deployment ignores lists the whole collection: django-filter 22.1 and "
                    "later ignore edw's filter_class)",
                detail::record_pointer(first_other, "entity"), other_id);
  return ids;
}

// A record as text that two routes serializing it alike give alike, whatever the order of its members:
// "key":value pairs (values minified) sorted, one a line.
std::string record_text(Json record) {
  if (record.type() != simdjson::dom::element_type::OBJECT) return simdjson::minify(record);
  std::vector<std::string> members;
  // A copy: value_unsafe() of a temporary result refers into it, so a range-for over it would dangle.
  const simdjson::dom::object object = record.get_object().value_unsafe();
  for (const auto field : object)
    members.push_back(std::string(field.key) + "\t" + simdjson::minify(field.value));
  std::sort(members.begin(), members.end());
  std::string out;
  for (const std::string& m : members)
    out += m + "\n";
  return out;
}

std::vector<std::string> record_texts(const Page& page) {
  std::vector<std::string> out;
  if (const auto results = detail::results_array(page))
    for (const Json record : *results)
      out.push_back(record_text(record));
  return out;
}

// The first member of `b` that `a` does not hold alike ("key": value as b has it), for a message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t at = 0;
  while (at < b.size()) {
    const std::size_t end = b.find('\n', at);
    const std::string line = b.substr(at, end - at);
    if (("\n" + a).find("\n" + line + "\n") == std::string::npos) {
      const std::size_t tab = line.find('\t');
      return quote(line.substr(0, tab)) + ": " + line.substr(tab + 1).substr(0, 120);
    }
    at = end == std::string::npos ? b.size() : end + 1;
  }
  return "a member missing";
}

// The filtered page at offset 0: the entity's records the unfiltered first page shows come first, and the
// nested route lists what ?entity= lists (asked before it), record for record.
void judge_first_filtered_page(SideState& sides, const SideAsk& ask, const Page& page,
                               const std::optional<std::uint64_t>& count,
                               const std::vector<std::int64_t>& ids, detail::FailureBudget& budget) {
  const std::vector<std::int64_t>& shown = sides.first_page_ids[ask.entity];
  const auto lead = static_cast<std::ptrdiff_t>(std::min<std::size_t>(shown.size(), page.effective_limit));
  if (ids.size() < static_cast<std::size_t>(lead) ||
      !std::equal(shown.begin(), shown.begin() + lead, ids.begin()))
    budget.fail("expected the records of entity " + ask.entity +
                    " that the unfiltered first page shows to come first (ids " +
                    ids_text({shown.begin(), shown.begin() + lead}) + "), got ids " + ids_text(ids),
                "/results");
  if (!ask.nested) {
    sides.by_query[ask.entity] = {count, ids, record_texts(page), page.exchange.url};
  } else if (const auto query = sides.by_query.find(ask.entity); query != sides.by_query.end()) {
    const SideState::Filtered& listed = query->second;
    if (listed.count != count || listed.ids != ids) {
      budget.fail("expected the nested route to list what ?entity=" + ask.entity + " lists (" + listed.url +
                      ": count " + count_text(listed.count) + ", ids " + ids_text(listed.ids) +
                      "), got count " + count_text(count) + ", ids " + ids_text(ids),
                  "/results");
      return;
    }
    const std::vector<std::string> records = record_texts(page);
    for (std::size_t i = 0; i < records.size() && i < listed.records.size() && records.size() == ids.size();
         ++i)
      if (records[i] != listed.records[i]) {
        budget.fail("expected the nested route's records to equal those ?entity=" + ask.entity + " lists (" +
                        listed.url + "), got record " + std::to_string(ids[i]) + " with " +
                        first_difference(listed.records[i], records[i]),
                    "/results/" + std::to_string(i), ids[i]);
        break;
      }
  }
}

/// "?entity=<int> filters by entity" and the nested route /edw/api/entities/<pk>/images/ is "the same list
/// with entity=<pk>" (reference M10, §1.2, §5.5): every record is the entity's, count is at most the
/// collection's, the entity's records the unfiltered first page shows come first, both routes list the same.
void entity_filter(SideState& sides, const SideAsk& ask, const Page& page, const Page*, Findings& findings) {
  const auto body = detail::body_object(page);
  const auto results = detail::results_array(page);
  if (!body || !results) return;  // status_ok, json_body and page_schema report it
  detail::FailureBudget budget(findings, "entity_filter", page.exchange.url);
  const std::vector<std::int64_t> ids = ids_of_entity(ask, *results, budget);
  const auto count = detail::as_count(detail::member(*body, "count"));
  if (count && *count > sides.collection_count)
    budget.fail("expected count at most the collection's " + std::to_string(sides.collection_count) +
                    " (the unfiltered first page's) for entity " + ask.entity + ", got " +
                    std::to_string(*count),
                "/count");
  if (page.effective_offset == 0) judge_first_filtered_page(sides, ask, page, count, ids, budget);
  if (budget.failures() == 0) {
    budget.pass();
    if (page.effective_offset == 0)
      findings.note("entity_filter", ask.label + " → count " + count_text(count) +
                                         (ask.nested ? ", as ?entity=" + ask.entity : std::string()));
  }
  budget.finish();
}

/// "format: the value api selects the browsable rendering" (spec §4.1) and Accept picks the renderer
/// (reference §3.2, §3.9): each answer is the representation its request asked for, the browsable HTML or
/// JSON, whichever the same URL was asked for first (a cache must honour Vary: Accept).
void accept_negotiated(SideState&, const SideAsk& ask, const Page& answer, const Page* other,
                       Findings& findings) {
  const HttpExchange& ex = answer.exchange;
  const bool html = is_html(ex);
  const bool ok = ask.wants_html ? html : !html;
  if (ok) {
    findings.pass("accept_negotiated");
    findings.note("accept_negotiated", ask.label + " → " + (html ? "the browsable HTML" : "JSON"));
    return;
  }
  std::string hint;
  if (other != nullptr && ask.other_first && is_html(other->exchange) == html)
    hint = " — the same URL answered that to the request before it (" + asked_text(other->exchange) +
           "): a shared cache that ignores Vary: Accept?";
  findings.fail({"accept_negotiated",
                 "with " + ask.label + ": expected " +
                     (ask.wants_html ? "the browsable HTML (text/html)" : std::string("JSON")) + ", got " +
                     representation_text(ex) + hint,
                 ex.url, "", std::nullopt});
}

// Whether the request of the exchange accepted the coding (its Accept-Encoding).
bool accepted(const HttpExchange& exchange, std::string_view coding) {
  const auto asked = exchange.request_header("Accept-Encoding");
  return detail::accepts_coding(asked ? std::optional<std::string_view>(*asked) : std::nullopt, coding);
}

// Whether the answer's Vary names Accept-Encoding (or is *).
bool varies_on_encoding(const HttpExchange& exchange) {
  for (const auto element : detail::list_elements(detail::header_values(exchange, "Vary")))
    if (element == "*" || common::iequals_ascii(element, "accept-encoding")) return true;
  return false;
}

// Why a decoded body cannot be held to the plain answer's JSON, or "" when it can.
std::string not_comparable(const Page* plain) {
  if (plain == nullptr) return "no plain answer of the same URL";
  if (!plain->content_coding.empty())
    return "the plain request's answer came " + plain->content_coding + " too";
  if (!plain->json) return "the plain answer is not JSON";
  return "";
}

// A body in an accepted coding that decoded: held to the plain answer's JSON when that is JSON, and noted
// as what it was found to be (a decoded body that is not JSON does not decode to the plain answer's JSON).
void judge_decoded(const SideAsk& ask, const std::string& coding, const Page& answer, const Page* plain,
                   detail::FailureBudget& budget, Findings& findings) {
  const std::string with = "with " + ask.label + ": ";
  const std::string why_not = not_comparable(plain);
  const std::string expected = "expected the " + coding + " body to decode to the plain answer's JSON (";
  if (!why_not.empty()) {
    findings.note("compressed_as_asked", ask.label + " → " + coding + ", decoding to " +
                                             (answer.json ? "JSON" : "a body that is not JSON (json_body)") +
                                             ", not compared: " + why_not);
    return;
  }
  if (!answer.json) {
    budget.fail(with + expected + plain->exchange.url + "), got " + answer.json_error);
    return;
  }
  const nlohmann::json decoded = detail::to_nlohmann(*answer.json),
                       reference = detail::to_nlohmann(*plain->json);
  std::string at;
  if (decoded != reference) {
    budget.fail(
        with + expected + plain->exchange.url + "), got " + detail::first_difference(decoded, reference, at),
        at);
    return;
  }
  findings.note("compressed_as_asked", ask.label + " → " + coding + ", decoding to the plain answer's JSON");
}

/// Content codings (RFC 9110 §8.4, §12.5.3): asked with Accept-Encoding, an answer comes plain or in a coding
/// the request accepts, framed by its compressed length, and decodes to the plain answer's JSON; a
/// compressed answer should say Vary: Accept-Encoding (a warning: nginx's gzip_vary is off by default).
void compressed_as_asked(SideState&, const SideAsk& ask, const Page& answer, const Page* plain,
                         Findings& findings) {
  const HttpExchange& ex = answer.exchange;
  const std::string with = "with " + ask.label + ": ";
  const auto encoding = ex.header("Content-Encoding");
  const std::string coding = encoding ? detail::coding_of(*encoding) : std::string();
  const bool asks_compression = accepted(ex, "gzip") || accepted(ex, "br") || accepted(ex, "deflate");
  detail::FailureBudget budget(findings, "compressed_as_asked", ex.url);
  if (ex.status == 0 && asks_compression) {
    budget.fail(
        with +
        "expected a whole answer (a compressed body framed by its compressed length), got no answer: " +
        quote(ex.error));
  } else if (ex.status == 200 && !coding.empty()) {
    std::string hint;
    if (plain != nullptr && ask.other_first && plain->content_coding == coding)
      hint = " — the same URL came " + coding + " to the request before it (Accept-Encoding: " +
             quote(plain->exchange.request_header("Accept-Encoding").value_or("")) +
             "): a shared cache that ignores Vary: Accept-Encoding?";
    if (!accepted(ex, coding)) {
      budget.fail(with +
                  "expected a plain body or one in a coding the request accepts, got Content-Encoding: " +
                  quote(*encoding) + hint);
    } else if (answer.content_coding.empty()) {
      budget.fail(with + "expected a " + coding + " body that decodes, got " + answer.json_error);
    } else {
      judge_decoded(ask, coding, answer, plain, budget, findings);
      if (!varies_on_encoding(ex))
        findings.note("compressed_as_asked",
                      "warning: " + coding +
                          " answers carry no Vary: Accept-Encoding, so a shared cache may "
                          "hand them to a client that cannot read them (nginx: gzip_vary on)");
    }
  } else if (ex.status == 200 && asks_compression) {
    findings.note("compressed_as_asked", ask.label + " → not compressed");
  }
  if (budget.failures() == 0) budget.pass();
  budget.finish();
}

// A URL an answer carries (next, previous, an image), keyed to find it in another answer of the same URL.
struct UrlField {
  std::string key;  // "next", "previous", "image:<id>"
  std::string origin;
};

std::vector<UrlField> url_fields(Json body) {
  std::vector<UrlField> out;
  for (const char* key : {"next", "previous"})
    if (const auto url = detail::as_string(detail::member(body, key)))
      out.push_back({key, detail::normalised_origin(*url).value_or("?")});
  const auto results = detail::member(body, "results");
  if (!results || !results->is_array()) return out;
  // A copy: a range-for over value_unsafe() of the temporary get_array() would dangle.
  const detail::JsonArray records = results->get_array().value_unsafe();
  for (const Json record : records) {
    const auto image = detail::as_string(detail::member(record, "image"));
    const auto id = detail::record_id(record);
    if (image && id)
      out.push_back({"image:" + std::to_string(*id), detail::normalised_origin(*image).value_or("?")});
  }
  return out;
}

// "next, previous and 12 images": the fields named for a message.
std::string fields_text(const std::vector<std::string>& keys) {
  std::vector<std::string> named;
  std::size_t images = 0;
  for (const std::string& key : keys) {
    if (key.starts_with("image:"))
      ++images;
    else
      named.push_back(key);
  }
  if (images > 0) named.push_back(std::to_string(images) + (images == 1 ? " image" : " images"));
  std::string out;
  for (std::size_t i = 0; i < named.size(); ++i)
    out += (i == 0 ? "" : i + 1 == named.size() ? " and " : ", ") + named[i];
  return out;
}

// Which URLs of an answer asked with a side's headers followed them (moved to `asked`) and which ignored them
// (stayed on `base`), among those on the base origin in the plain answer of the same URL; URLs already
// elsewhere there are link_origin's. Fails URLs on a third origin, and a plain answer asked afterwards that
// carries the headers' origin.
struct Moves {
  std::vector<std::string> followed, ignored;
};
Moves classify(const SideAsk& ask, Json body, Json reference, const std::string& base,
               const std::string& asked, std::string_view keyed_on, const std::string& plain_url,
               detail::FailureBudget& budget) {
  Moves moves;
  const std::vector<UrlField> before = url_fields(reference);
  bool replayed = false;
  for (const UrlField& field : url_fields(body)) {
    const auto match =
        std::find_if(before.begin(), before.end(), [&](const UrlField& f) { return f.key == field.key; });
    if (match == before.end()) continue;
    if (match->origin == asked && !ask.other_first) replayed = true;
    if (match->origin != base) continue;
    if (field.origin == asked)
      moves.followed.push_back(field.key);
    else if (field.origin == base)
      moves.ignored.push_back(field.key);
    else
      budget.fail("with " + ask.label + ": expected " + fields_text({field.key}) + " on " + asked +
                  " (following it) or on " + base + " (ignoring it), got " + field.origin);
  }
  if (replayed)
    budget.fail("expected the same URL asked afterwards without " + std::string(keyed_on) + " (" + plain_url +
                ") on " + base + ", got " + asked + ", which " + ask.label +
                " asked for: a shared cache that does not key on " + std::string(keyed_on) + "?");
  return moves;
}

// The verdict of an answer asked with a proxy's or another Host's headers, against the plain answer of the
// same URL (reference §2.5: links and image take scheme and host from the same request): every URL that is
// on the base origin in the plain answer follows the headers, or none does, and on every URL alike.
void judge_followed(std::string_view rule, SideState& sides, const SideAsk& ask, const Page& answer,
                    const Page* plain, Findings& findings) {
  const std::string_view keyed_on = ask.side == PlanSide::host ? "the Host" : "the forwarded headers";
  const auto body = detail::body_object(answer);
  const auto reference = plain ? detail::body_object(*plain) : std::nullopt;
  if (!body || !reference) return;  // the page rules report it
  const std::string base = detail::normalised_origin(sides.context.origin).value_or(sides.context.origin);
  const std::string asked = detail::normalised_origin(ask.origin).value_or(ask.origin);
  if (asked == base) {
    findings.pass(rule);
    findings.note(rule, ask.label +
                            " names the base URL's own origin: nothing tells following from ignoring "
                            "(--alt-host names a second host name)");
    return;
  }
  detail::FailureBudget budget(findings, rule, answer.exchange.url);
  const Moves moves = classify(ask, *body, *reference, base, asked, keyed_on, plain->exchange.url, budget);
  if (!moves.followed.empty() && !moves.ignored.empty()) {
    budget.fail("with " + ask.label + ": expected links and images to follow it alike, got " +
                fields_text(moves.followed) + " on " + asked + " but " + fields_text(moves.ignored) + " on " +
                base);
  } else if (!moves.followed.empty() || !moves.ignored.empty()) {
    const bool follows = !moves.followed.empty();
    const auto [earlier, inserted] = sides.followed.try_emplace(ask.label, follows, answer.exchange.url);
    if (!inserted && earlier->second.first != follows)
      budget.fail(ask.label + ": expected the deployment to answer it the same way on every URL, got it " +
                  (earlier->second.first ? "followed" : "ignored") + " on " + earlier->second.second +
                  " but " + (follows ? "followed" : "ignored") + " here" +
                  (ask.other_first
                       ? " (asked after the same URL without it: a shared cache that does not key on " +
                             std::string(keyed_on) + "?)"
                       : ""));
    else if (budget.failures() == 0)
      findings.note(rule, ask.label + (follows ? " followed: links and images on " + asked
                                               : " ignored: links and images on " + base));
  }
  if (budget.failures() == 0) budget.pass();
  budget.finish();
}

/// "Host and scheme of links and image come from X-Forwarded-Host and X-Forwarded-Proto" (reference §2.5,
/// M3): a deployment follows a proxy's headers (or Forwarded, RFC 7239) for links and images alike, or
/// ignores them alike (a proxy that overwrites them), and the same URL asked without them still answers on
/// the base origin.
void forwarded_origin(SideState& sides, const SideAsk& ask, const Page& answer, const Page* plain,
                      Findings& findings) {
  judge_followed("forwarded_origin", sides, ask, answer, plain, findings);
}

/// "Host of links and image comes from Host" (reference §2.5): under a second host name links and images are
/// on that host's origin alike (or on the base's, a front that sets Host itself), on every URL whatever was
/// asked before it, and the same URL asked with the base's Host still answers on the base origin.
void host_origin(SideState& sides, const SideAsk& ask, const Page& answer, const Page* plain,
                 Findings& findings) {
  judge_followed("host_origin", sides, ask, answer, plain, findings);
}

// The entities of a 200 page's records that are not `entity`: how many, and the first one's.
std::pair<std::size_t, std::string> other_entities(const Page& page, const std::string& entity) {
  std::pair<std::size_t, std::string> out;
  if (const auto results = detail::results_array(page))
    for (const Json record : *results) {
      const std::string of = detail::integer_text(detail::member(record, "entity"));
      if (of.empty() || of == entity) continue;
      if (out.first++ == 0) out.second = of;
    }
  return out;
}

/// "Invalid filter value → 400 {"entity":["Enter a number."]}" (reference §1.3: django-filter's NumberFilter)
/// and edw's remove_empty_params (§1.2): entity that is not a number is refused with a 4xx, never a server
/// error nor a page of every record; an empty one lists the collection; a number no entity has lists none.
void filter_input(SideState& sides, const SideAsk& ask, const Page& page, const Page*, Findings& findings) {
  const HttpExchange& answer = page.exchange;
  const std::string asked = ask.nested ? ask.label : ask.label + " (on " + answer.url + ")";
  const auto fail = [&](const std::string& expected, const std::string& got) {
    findings.fail({"filter_input", "for " + asked + ": expected " + expected + ", got " + got, answer.url, "",
                   std::nullopt});
  };
  const bool number = !ask.entity.empty() && ask.entity.find_first_not_of("-0123456789") == std::string::npos;
  const std::string expected = ask.lists_records
                                   ? "a page of the collection (edw drops an empty parameter) or a 4xx"
                               : number ? "a page of no record (no entity has that id) or a 4xx"
                                        : "a 4xx (DRF: 400 {\"entity\": [\"Enter a number.\"]})";
  if (answer.status == 0) return fail(expected, "no answer: " + quote(answer.error));
  if (answer.status >= 500)
    return fail(expected, "status " + std::to_string(answer.status) + " (a server error)");
  if (answer.status >= 400 && answer.status < 500) {
    const auto body = detail::body_object(page);
    if (answer.status == 400 && body && !detail::member(*body, "entity") && !ask.nested)
      findings.note("filter_input",
                    "for " + ask.label + ": 400 without an \"entity\" member naming the field");
    findings.pass("filter_input");
    return;
  }
  if (answer.status != 200) return fail(expected, "status " + std::to_string(answer.status));
  if (ask.lists_records) {
    findings.pass("filter_input");
    return;
  }
  const auto [others, first] = other_entities(page, ask.entity);
  const auto results = detail::results_array(page);
  const bool listed = others > 0 || (!number && results && results->size() > 0);
  if (!listed) {
    findings.pass("filter_input");
    return;
  }
  const std::string got =
      "a 200 page of records" + (others > 0 ? " of other entities (" + first + " first)" : std::string());
  if (sides.filter_ignored && !sides.require_filter) {
    findings.note("filter_input",
                  "warning: for " + ask.label + ": " + got +
                      ", as a deployment that ignores ?entity= altogether lists (see entity_filter)");
    findings.pass("filter_input");
    return;
  }
  fail(expected, got);
}

/// A foreign site's page that fetches the API (Fetch standard §3.2, CORS): credentials are allowed for the
/// origins a deployment trusts, never for any site; an answer that echoes the Origin varies on it.
void cors_origin(SideState&, const SideAsk& ask, const Page& page, const Page*, Findings& findings) {
  const HttpExchange& answer = page.exchange;
  if (answer.status == 0) return;  // status_ok reports it
  const auto allow = answer.header("Access-Control-Allow-Origin");
  const auto credentials = answer.header("Access-Control-Allow-Credentials");
  const std::string origin = allow ? std::string(common::trim(*allow)) : "";
  const std::string sent = ask.headers.empty() ? "" : ask.headers.front().second;
  const bool any_site = allow && (origin == sent || origin == "*");
  const auto fail = [&](const std::string& got) {
    findings.fail({"cors_origin",
                   "with " + ask.label + " (a site the deployment cannot trust): expected " +
                       "no credentialed CORS answer and Vary: Origin where it echoes the origin, got " + got,
                   answer.url, "", std::nullopt});
  };
  if (any_site && credentials && common::ascii_lowered(common::trim(*credentials)) == "true")
    return fail("Access-Control-Allow-Origin: " + origin +
                " with Access-Control-Allow-Credentials: true: any web "
                "page a signed-in user opens can read the API with their cookies");
  if (allow && origin == sent && !detail::vary_names(answer, "Origin"))
    return fail(
        "Access-Control-Allow-Origin echoing it without Vary: Origin: a shared cache hands the answer "
        "that allows this origin to every other origin's requests");
  findings.pass("cors_origin");
  findings.note("cors_origin", !allow
                                   ? "a foreign Origin gets no CORS headers: only the deployment's own pages "
                                     "(or those its CORS settings name) can read it from a browser"
                                   : ask.label + " → Access-Control-Allow-Origin: " + origin +
                                         (any_site ? ": every site may read it, without credentials" : ""));
}

constexpr Rule kSideRules[] = {
    {"entity_filter", "sides",
     "?entity=N and /edw/api/entities/N/images/ list N's records alone, the same on both routes",
     "reference M10, §1.2, §5.5 (django-filter, edw's nested route)",
     SideAnswer{PlanSide::filter, entity_filter}},
    {"filter_input", "sides",
     "entity that is not a number gets a 4xx, never a 5xx nor every record; a number no entity has lists "
     "none",
     "reference §1.3 (NumberFilter: 400 {\"entity\": [\"Enter a number.\"]}), §1.2 (empty parameters "
     "dropped)",
     SideAnswer{PlanSide::filter_input, filter_input}},
    {"accept_negotiated", "sides",
     "Accept: text/html and format=api get the browsable HTML, Accept: application/json JSON, in either "
     "order",
     "spec §4.1 (format); reference §3.2, §3.9", SideAnswer{PlanSide::negotiation, accept_negotiated}},
    {"compressed_as_asked", "sides",
     "with Accept-Encoding gzip or br an answer is plain or in an accepted coding, whole, decoding to the "
     "same JSON",
     "RFC 9110 §8.4, §12.5.3; reference §1.5 (GZipMiddleware)",
     SideAnswer{PlanSide::compression, compressed_as_asked}},
    {"forwarded_origin", "sides",
     "with X-Forwarded-Proto/-Host or Forwarded, links and images follow them alike or ignore them alike",
     "reference §2.5, M3; RFC 7239", SideAnswer{PlanSide::proxy, forwarded_origin}},
    {"host_origin", "sides",
     "under another Host, links and images are on its origin alike, on every URL whatever came before",
     "reference §2.5", SideAnswer{PlanSide::host, host_origin}},
    {"cors_origin", "sides",
     "a foreign Origin is never answered with credentials for any site; an echoed Origin comes with Vary: "
     "Origin",
     "Fetch standard §3.2 (CORS); django-cors-headers", SideAnswer{PlanSide::cors, cors_origin}},
};

}  // namespace

std::span<const Rule> detail::side_rules() {
  return kSideRules;
}

}  // namespace entimg::contract

// entimg-schema-agreement: the schema checks compiled from schema/*.schema.json (SchemaValidator's fast
// path) against valijson and against ajv, on seeded random mutations of records and pages
// (mutations.hpp). Every document must get one verdict from: the compiled checks on nlohmann::json and on
// simdjson's DOM (and, for an object whose keys are all the schema's names, each once, given its members by
// slot, as the suite checks records), valijson on both, and (with --node) ajv; and validate() must explain
// each rejection.
// ajv reads numbers as JavaScript does, where 1.0 and 1e20 are integers, so its verdict is compared with
// the compiled checks reading "integer" that way (IntegerModel::value); valijson, like the suite, reads
// them as the token is written. Prints the seed, counts and each disagreement with the command that
// replays it. Exit 0: no disagreement; 1: some; 2: usage or setup.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "entimg/common/schema.hpp"
#include "entimg/common/url.hpp"
#include "mutations.hpp"
#include "schema_program.hpp"

namespace {

using entimg::common::SchemaValidator;
using entimg::common::detail::IntegerModel;
using nlohmann::json;

struct Args {
  std::uint64_t seed = 1;
  std::uint64_t mutations = 1000;
  std::optional<std::uint64_t> only;
  std::string node;        // node's path; no ajv comparison without it
  std::string ajv_script;  // ajv_agreement.js
  bool explain = false;    // print validate()'s errors for each document
  std::string error;
};

std::optional<std::uint64_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

Args parse_args(std::span<char* const> argv) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argv.size();
    const std::string_view value = has_value ? std::string_view(argv[i + 1]) : std::string_view();
    if (arg == "--seed" || arg == "--mutations" || arg == "--only") {
      const auto n = whole_number(value);
      if (!n) {
        a.error = std::string(arg) + " wants a whole number, got '" + std::string(value) + "'";
        return a;
      }
      (arg == "--seed" ? a.seed : arg == "--mutations" ? a.mutations : a.only.emplace()) = *n;
      ++i;
    } else if (arg == "--explain") {
      a.explain = true;
    } else if ((arg == "--node" || arg == "--ajv-script") && has_value) {
      (arg == "--node" ? a.node : a.ajv_script) = value;
      ++i;
    } else {
      a.error = "unexpected argument '" + std::string(arg) + "'";
      return a;
    }
  }
  if (!a.node.empty() && a.ajv_script.empty()) a.error = "--node needs --ajv-script";
  return a;
}

/// One document's verdicts; `reference` is what the others must all say.
struct Verdicts {
  bool compiled_nlohmann = false, compiled_dom = false, valijson_nlohmann = false, valijson_dom = false;
  // The compiled checks given the members by slot, as the suite checks a record whose keys it found (an
  // object whose every key the schema's root names, each once); nullopt for any other document.
  std::optional<bool> compiled_members;
  bool explained = false;  // validate() gave errors
  bool by_value = false;   // the compiled checks with IntegerModel::value, ajv's reading
  std::optional<bool> ajv;
};

struct Pair {
  SchemaValidator compiled, valijson;
  std::vector<std::string> names;  // the root's properties and required names, the members' numbering
  SchemaValidator::MemberSlots slots;
};

Pair load(const char* file) {
  const auto path = entimg::common::schema_dir() / file;
  Pair out{SchemaValidator::from_file(path),
           SchemaValidator::from_file(path, SchemaValidator::Engine::valijson),
           {},
           {}};
  std::ifstream in(path, std::ios::binary);
  const json schema = json::parse(in);
  // Named, not temporaries: a range-for over items() of a temporary would read it after its end.
  const json properties = schema.value("properties", json::object());
  const json required = schema.value("required", json::array());
  for (const auto& [name, sub] : properties.items())
    out.names.push_back(name);
  for (const json& name : required)
    if (std::find(out.names.begin(), out.names.end(), name.get<std::string>()) == out.names.end())
      out.names.push_back(name.get<std::string>());
  const std::vector<std::string_view> views(out.names.begin(), out.names.end());
  out.slots = out.compiled.member_slots(views);
  return out;
}

// The compiled verdict on an object given its members by slot, when each of its keys is one of the
// schema's names, once; nullopt otherwise.
std::optional<bool> judge_by_members(const Pair& schema, simdjson::dom::element element) {
  if (element.type() != simdjson::dom::element_type::OBJECT) return std::nullopt;
  std::array<simdjson::dom::element, 32> by_key{};
  std::uint32_t present = 0;
  for (const auto field : simdjson::dom::object(element.get_object().value_unsafe())) {
    const auto at = std::find(schema.names.begin(), schema.names.end(), field.key);
    const auto bit = std::uint32_t{1} << (at - schema.names.begin());
    if (at == schema.names.end() || (present & bit) != 0) return std::nullopt;
    present |= bit;
    by_key[static_cast<std::size_t>(at - schema.names.begin())] = field.value;
  }
  return schema.compiled.is_valid(element, schema.slots, by_key, present);
}

Verdicts judge(const Pair& schema, const std::string& text) {
  Verdicts v;
  const json doc = json::parse(text);
  v.compiled_nlohmann = schema.compiled.is_valid(doc);
  v.valijson_nlohmann = schema.valijson.is_valid(doc);
  v.explained = !schema.compiled.validate(doc).empty();
  v.by_value = schema.compiled.compiled_program()->accepts(doc, IntegerModel::value);
  // As the suite reads a body: texts simdjson refuses (integers beyond 64 bits) go through nlohmann first.
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  const std::string normal = doc.dump();
  if (parser.parse(text).get(element) != simdjson::SUCCESS &&
      parser.parse(normal).get(element) != simdjson::SUCCESS)
    throw std::runtime_error("simdjson reads neither the text nor nlohmann's rendering of it");
  v.compiled_dom = schema.compiled.is_valid(element);
  v.valijson_dom = schema.valijson.is_valid(element);
  v.compiled_members = judge_by_members(schema, element);
  return v;
}

// What is wrong with one document's verdicts, or "".
std::string disagreement(const Verdicts& v) {
  const bool r = v.valijson_nlohmann;
  std::string out;
  const auto add = [&out](bool differs, const char* what) {
    if (differs) out += std::string(out.empty() ? "" : "; ") + what;
  };
  add(v.valijson_dom != r, "valijson: simdjson DOM and nlohmann differ");
  add(v.compiled_nlohmann != r, "compiled (nlohmann) differs from valijson");
  add(v.compiled_dom != r, "compiled (simdjson DOM) differs from valijson");
  add(v.compiled_members && *v.compiled_members != r, "compiled (members by slot) differs from valijson");
  add(v.explained == v.compiled_nlohmann, v.compiled_nlohmann
                                              ? "validate() finds errors in a valid document"
                                              : "validate() explains no error of an invalid one");
  add(v.ajv && *v.ajv != v.by_value, "ajv differs from compiled (JavaScript's integers)");
  return out;
}

// ajv's verdicts on the documents, through node; throws when node or the script fails.
std::vector<bool> ajv_verdicts(const Args& args, const std::vector<entimg::agreement::Mutated>& docs) {
  const auto file =
      std::filesystem::temp_directory_path() /
      ("entimg-agreement-" + std::to_string(::getpid()) + "-" + std::to_string(args.seed) + ".txt");
  {
    std::ofstream out(file, std::ios::binary);
    for (const auto& d : docs)
      out << (d.page ? "P " : "R ") << d.text << '\n';
  }
  const std::string command = "'" + args.node + "' '" + args.ajv_script + "' '" + file.string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::vector<bool> verdicts;
  if (pipe != nullptr) {
    int c = 0;
    while ((c = std::fgetc(pipe)) != EOF)
      if (c == '0' || c == '1') verdicts.push_back(c == '1');
  }
  const int status = pipe == nullptr ? -1 : ::pclose(pipe);
  std::filesystem::remove(file);
  if (status != 0 || verdicts.size() != docs.size())
    throw std::runtime_error("ajv (" + command + ") exited with status " + std::to_string(status) +
                             " after " + std::to_string(verdicts.size()) + " of " +
                             std::to_string(docs.size()) + " verdicts");
  return verdicts;
}

std::string yes_no(bool b) {
  return b ? "valid" : "invalid";
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(std::span<char* const>(argv + 1, static_cast<std::size_t>(argc - 1)));
  if (!args.error.empty()) {
    std::cerr << "entimg-schema-agreement: " << args.error << "\n"
              << "usage: entimg-schema-agreement [--seed S] [--mutations N] [--only K] [--explain] "
                 "[--node PATH --ajv-script ajv_agreement.js]\n";
    return 2;
  }
  try {
    const Pair record = load("image-record.schema.json");
    const Pair page = load("page.schema.json");
    for (const Pair* p : {&record, &page}) {
      if (p->compiled.compiled_program() == nullptr)
        throw std::runtime_error(p->compiled.source().string() +
                                 " did not compile: " + p->compiled.not_compiled_because());
    }
    std::vector<std::uint64_t> indices;
    for (std::uint64_t k = args.only.value_or(0); k < (args.only ? *args.only + 1 : args.mutations); ++k)
      indices.push_back(k);
    std::vector<entimg::agreement::Mutated> docs;
    std::vector<Verdicts> verdicts;
    for (const std::uint64_t k : indices) {
      docs.push_back(entimg::agreement::mutated_document(args.seed, k));
      const Pair& schema = docs.back().page ? page : record;
      verdicts.push_back(judge(schema, docs.back().text));
      if (args.explain) {
        std::cout << "#" << k << " " << docs.back().text << "\n";
        for (const auto& e : schema.compiled.validate(json::parse(docs.back().text)))
          std::cout << "  " << (e.pointer.empty() ? "(root)" : e.pointer) << ": " << e.message << "\n";
      }
    }
    if (!args.node.empty()) {
      const std::vector<bool> ajv = ajv_verdicts(args, docs);
      for (std::size_t i = 0; i < ajv.size(); ++i)
        verdicts[i].ajv = ajv[i];
    }

    std::size_t valid = 0, pages = 0, integer_reading = 0, disagreements = 0, by_members = 0;
    for (std::size_t i = 0; i < docs.size(); ++i) {
      valid += verdicts[i].valijson_nlohmann ? 1U : 0U;
      by_members += verdicts[i].compiled_members ? 1U : 0U;
      pages += docs[i].page ? 1U : 0U;
      integer_reading += verdicts[i].by_value != verdicts[i].valijson_nlohmann ? 1U : 0U;
      const std::string problem = disagreement(verdicts[i]);
      if (problem.empty()) continue;
      if (++disagreements <= 20) {
        const Verdicts& v = verdicts[i];
        std::cout << "DISAGREE seed " << args.seed << " #" << indices[i] << " ("
                  << (docs[i].page ? "page" : "record") << "; "
                  << (docs[i].what.empty() ? "unchanged" : docs[i].what) << "): " << problem << "\n"
                  << "  valijson " << yes_no(v.valijson_nlohmann) << ", compiled "
                  << yes_no(v.compiled_nlohmann) << " (DOM " << yes_no(v.compiled_dom)
                  << (v.compiled_members ? ", members by slot " + yes_no(*v.compiled_members) : "") << ")"
                  << (v.ajv ? ", ajv " + yes_no(*v.ajv) +
                                  " (compiled, JavaScript's integers: " + yes_no(v.by_value) + ")"
                            : "")
                  << "\n  text: " << entimg::common::utf8_cut(docs[i].text, 600, "...")
                  << "\n  replay: " << argv[0] << " --seed " << args.seed << " --only " << indices[i]
                  << (args.node.empty() ? "" : " --node " + args.node + " --ajv-script " + args.ajv_script)
                  << "\n";
      }
    }
    std::cout << "seed " << args.seed << ": " << docs.size() << " documents (" << docs.size() - pages
              << " records, " << pages << " pages; " << valid << " valid; " << by_members
              << " also judged by slot), compiled checks vs valijson" << (args.node.empty() ? "" : " and ajv")
              << ": " << disagreements << " disagreement" << (disagreements == 1 ? "" : "s") << "; "
              << integer_reading
              << " verdicts differ between the two readings of \"integer\" (1.0, 1e2, beyond 64 bits)\n";
    return disagreements == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "entimg-schema-agreement: error: " << e.what() << "\n";
    return 2;
  }
}

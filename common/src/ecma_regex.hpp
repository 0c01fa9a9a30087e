#pragma once
// A JSON Schema "pattern" (an ECMA-262 regular expression, searched anywhere in the string) run by PCRE2
// with its JIT. valijson's own pattern check builds on std::regex, which walks the subject through a
// std::function per character and dominated the contract suite's schema validation; this replaces it
// where PCRE2 accepts the pattern (schema.cpp keeps std::regex for any pattern it refuses).
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace entimg::common::detail {

class EcmaRegex {
 public:
  /// Compiles pattern with PCRE2's JavaScript-compatibility options (\uhhhh escapes, an empty class
  /// matching nothing, a backreference to an unset group matching empty, `$` only at the very end) in
  /// UTF-8 mode. Returns nothing and sets *error when PCRE2 refuses it.
  static std::optional<EcmaRegex> compile(std::string_view pattern, std::string* error);

  /// True when pattern uses only syntax that ECMAScript and PCRE2 (compiled as above) read alike. Left
  /// out: `.` (ECMAScript also stops at U+2028/2029), \s \S (ECMAScript's take Unicode spaces), \v
  /// (one character in ECMAScript, a class in PCRE2), \p \P, every escape ECMAScript lacks (\A \Z \Q
  /// \h \R \K \g ...), (? groups other than (?: (?= (?! (?<= (?<! (?<name>, (* verbs, POSIX classes
  /// such as [[:alpha:]], and possessive quantifiers. A pattern outside this subset is not refused:
  /// it simply stays with the slower engine.
  static bool same_in_pcre2(std::string_view pattern);

  enum class Outcome { match, no_match, error };
  /// Searches subject (UTF-8) as ECMAScript's RegExp.prototype.test does. `error` when the subject is
  /// not valid UTF-8 or the match exceeded PCRE2's limits; *why then says which.
  Outcome search(std::string_view subject, std::string* why = nullptr) const;
  /// The same for a subject the caller knows is valid UTF-8 (a string of simdjson's DOM, which validates
  /// its input): PCRE2's own check is skipped, and its JIT is called directly.
  Outcome search_valid_utf8(std::string_view subject) const;

 private:
  struct Code;
  explicit EcmaRegex(std::shared_ptr<const Code> code);
  std::shared_ptr<const Code> code_;
};

}  // namespace entimg::common::detail

#pragma once
// Hand-written matchers for the three patterns of schema/image-record.schema.json (image, file and
// mime_type), which PCRE2's JIT spent a tenth of a full walk's CPU on. Each is chosen by the pattern's exact
// text, so the schema stays the one definition: a pattern edited in the file no longer has a matcher here
// and goes back to PCRE2 (known_patterns_test then fails, so the lost speed is noticed). known_patterns_test
// checks each matcher against PCRE2 on seeded random strings.
#include <string_view>

namespace entimg::common::detail {

/// Whether a valid UTF-8 string matches the pattern, as an ECMAScript RegExp's test() answers.
using PatternMatcher = bool (*)(std::string_view text);

/// The matcher for `pattern` when it is one of the schema's, character for character; null otherwise.
PatternMatcher known_pattern(std::string_view pattern);

/// For a known pattern whose matches are URIs (as is_uri, uri_format.hpp, says) whenever a cheap test holds:
/// that test, to be asked only of a text the pattern matches; null for the others. The image pattern's
/// matches are URIs but for a bracketed host, which the pattern takes more loosely than RFC 3986.
PatternMatcher known_pattern_uri_proof(std::string_view pattern);

}  // namespace entimg::common::detail

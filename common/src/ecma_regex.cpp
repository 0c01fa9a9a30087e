#define PCRE2_CODE_UNIT_WIDTH 8
#include "ecma_regex.hpp"

#include <array>

#include <pcre2.h>

#include "entimg/common/ascii.hpp"

namespace entimg::common::detail {

struct EcmaRegex::Code {
  pcre2_code* code = nullptr;
  bool jit = false;  // pcre2_jit_compile succeeded
  Code() = default;
  Code(const Code&) = delete;
  Code& operator=(const Code&) = delete;
  ~Code() { pcre2_code_free(code); }
};

namespace {

std::string pcre2_message(int code) {
  std::array<PCRE2_UCHAR, 256> buffer{};
  const int length = pcre2_get_error_message(code, buffer.data(), buffer.size());
  return length < 0
             ? "PCRE2 error " + std::to_string(code)
             : std::string(reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(length));
}

// What pcre2_match writes into and the stack its JIT recurses on, one set per thread. The JIT's default
// stack (32 KiB) runs out on a pattern like image's, whose last group recurses once per character, at about
// 1,500 characters; the schemas allow 2,048 (and the loader up to 4,096), so a stack of its own may grow
// to 8 MiB (reserved as needed).
struct MatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
  pcre2_match_context* context = [this] {
    pcre2_match_context* made = pcre2_match_context_create(nullptr);
    if (made != nullptr && stack != nullptr) pcre2_jit_stack_assign(made, nullptr, stack);
    return made;
  }();
  MatchState() = default;
  MatchState(const MatchState&) = delete;
  MatchState& operator=(const MatchState&) = delete;
  ~MatchState() {
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(stack);
    pcre2_match_data_free(data);
  }
};

MatchState& thread_match_state() {
  thread_local MatchState state;
  return state;
}

// How many characters the escape at pattern[i] (a backslash) spans when both dialects read it alike;
// 0 when they may not.
std::size_t common_escape_length(std::string_view pattern, std::size_t i) {
  if (i + 1 >= pattern.size()) return 0;  // a trailing backslash: both refuse it, PCRE2 by failing
  const char c = pattern[i + 1];
  if (!ascii_alpha(c)) return 2;  // a digit (backreference, \0) or an escaped punctuation mark
  if (std::string_view("dDwWbBfnrt").find(c) != std::string_view::npos) return 2;
  const std::string_view rest = pattern.substr(i + 2);
  if (c == 'c' && !rest.empty() && ascii_alpha(rest[0])) return 3;
  if (c == 'x' && rest.size() >= 2 && ascii_hex(rest[0]) && ascii_hex(rest[1])) return 4;
  if (c == 'u' && rest.size() >= 4 && ascii_hex(rest[0]) && ascii_hex(rest[1]) && ascii_hex(rest[2]) &&
      ascii_hex(rest[3]))
    return 6;
  if (c == 'k' && !rest.empty() && rest[0] == '<') return 2;
  return 0;
}

}  // namespace

bool EcmaRegex::same_in_pcre2(std::string_view pattern) {
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\\') {
      const std::size_t length = common_escape_length(pattern, i);
      if (length == 0) return false;
      i += length;
      continue;
    }
    const std::string_view rest = pattern.substr(i + 1);
    if (in_class) {
      if (c == ']') in_class = false;
      if (c == '[' && !rest.empty() && (rest[0] == ':' || rest[0] == '.' || rest[0] == '=')) return false;
      ++i;
      continue;
    }
    switch (c) {
      case '[':
        in_class = true;
        if (rest.starts_with("^")) ++i;
        break;
      case '.':
        return false;
      case '(':
        if (rest.starts_with("*")) return false;
        if (rest.starts_with("?") && !rest.starts_with("?:") && !rest.starts_with("?=") &&
            !rest.starts_with("?!") && !rest.starts_with("?<=") && !rest.starts_with("?<!") &&
            !(rest.starts_with("?<") && rest.size() > 2 && ascii_alpha(rest[2])))
          return false;
        break;
      case '*':
      case '+':
      case '?':
      case '}':
        if (rest.starts_with("+")) return false;  // possessive in PCRE2
        break;
      default:
        break;
    }
    ++i;
  }
  return true;
}

EcmaRegex::EcmaRegex(std::shared_ptr<const Code> code) : code_(std::move(code)) {}

std::optional<EcmaRegex> EcmaRegex::compile(std::string_view pattern, std::string* error) {
  // ECMAScript's line terminators for `.` are CR and LF (and U+2028/2029, which PCRE2 cannot be told).
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  if (context == nullptr) {
    if (error != nullptr) *error = "out of memory";
    return std::nullopt;
  }
  pcre2_set_newline(context, PCRE2_NEWLINE_ANYCRLF);
  constexpr std::uint32_t kOptions = PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS |
                                     PCRE2_MATCH_UNSET_BACKREF | PCRE2_DOLLAR_ENDONLY |
                                     PCRE2_NEVER_BACKSLASH_C;
  int code = 0;
  PCRE2_SIZE offset = 0;
  auto holder = std::make_shared<Code>();
  holder->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), kOptions, &code,
                               &offset, context);
  pcre2_compile_context_free(context);
  if (holder->code == nullptr) {
    if (error != nullptr) *error = pcre2_message(code) + " at offset " + std::to_string(offset);
    return std::nullopt;
  }
  // Without JIT support (some architectures) pcre2_match interprets: slower, same answers.
  holder->jit = pcre2_jit_compile(holder->code, PCRE2_JIT_COMPLETE) == 0;
  return EcmaRegex(std::move(holder));
}

EcmaRegex::Outcome EcmaRegex::search(std::string_view subject, std::string* why) const {
  MatchState& state = thread_match_state();
  const int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                             state.data, state.context);
  if (rc >= 0) return Outcome::match;
  if (rc == PCRE2_ERROR_NOMATCH) return Outcome::no_match;
  if (why != nullptr) *why = pcre2_message(rc);
  return Outcome::error;
}

EcmaRegex::Outcome EcmaRegex::search_valid_utf8(std::string_view subject) const {
  const auto* text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  MatchState& state = thread_match_state();
  const int rc =
      code_->jit
          ? pcre2_jit_match(code_->code, text, subject.size(), 0, 0, state.data, state.context)
          : pcre2_match(code_->code, text, subject.size(), 0, PCRE2_NO_UTF_CHECK, state.data, state.context);
  if (rc >= 0) return Outcome::match;
  return rc == PCRE2_ERROR_NOMATCH ? Outcome::no_match : Outcome::error;
}

}  // namespace entimg::common::detail

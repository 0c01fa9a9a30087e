#include "content_coding.hpp"

#include <zlib.h>

#include <algorithm>
#include <memory>

#include <brotli/decode.h>

#include "entimg/common/ascii.hpp"

namespace entimg::contract::detail {
namespace {

constexpr std::size_t kOutputChunk = 64 * 1024;

std::string over_text(std::string_view coding, std::size_t max_bytes) {
  return "the " + std::string(coding) + " body decodes to more than " + std::to_string(max_bytes) + " bytes";
}

// A quality value of Accept-Encoding (RFC 9110 §12.4.2) is 0 when it is "0", "0." or "0.000".
bool is_zero_quality(std::string_view q) {
  q = common::trim(q);
  if (q.empty() || q.front() != '0') return false;
  return std::all_of(q.begin() + 1, q.end(), [](char c) { return c == '.' || c == '0'; });
}

// Inflates one zlib stream kind: window_bits 15 + 32 reads gzip (and zlib) members, -15 raw deflate.
Decoded inflate_with(std::string_view coding, std::string_view body, std::size_t max_bytes, int window_bits) {
  Decoded out;
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) {
    out.error = "zlib could not start";
    return out;
  }
  const std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  for (;;) {
    const std::size_t before = out.text.size();
    out.text.resize(before + kOutputChunk);
    zs.next_out = reinterpret_cast<Bytef*>(out.text.data() + before);
    zs.avail_out = static_cast<uInt>(kOutputChunk);
    const int status = inflate(&zs, Z_NO_FLUSH);
    out.text.resize(before + kOutputChunk - zs.avail_out);
    if (out.text.size() > max_bytes) {
      out.error = over_text(coding, max_bytes);
      break;
    }
    if (status == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      // RFC 1952 §2.2: a gzip file may hold several members, one after the other.
      if (window_bits > 0 && inflateReset(&zs) == Z_OK) continue;
      out.error =
          std::to_string(zs.avail_in) + " bytes after the end of the " + std::string(coding) + " stream";
      break;
    }
    if (status == Z_BUF_ERROR && zs.avail_in == 0) {
      out.error =
          "a " + std::string(coding) + " stream cut short (" + std::to_string(body.size()) + " bytes)";
      break;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      out.error = "not a valid " + std::string(coding) + " stream" +
                  (zs.msg != nullptr ? " (zlib: " + std::string(zs.msg) + ")" : std::string());
      break;
    }
  }
  if (!out.error.empty()) out.text.clear();
  return out;
}

Decoded unbrotli(std::string_view body, std::size_t max_bytes) {
  Decoded out;
  const std::unique_ptr<BrotliDecoderState, void (*)(BrotliDecoderState*)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), BrotliDecoderDestroyInstance);
  if (!state) {
    out.error = "Brotli could not start";
    return out;
  }
  auto next_in = reinterpret_cast<const std::uint8_t*>(body.data());
  std::size_t avail_in = body.size();
  for (;;) {
    const std::size_t before = out.text.size();
    out.text.resize(before + kOutputChunk);
    auto next_out = reinterpret_cast<std::uint8_t*>(out.text.data() + before);
    std::size_t avail_out = kOutputChunk;
    const BrotliDecoderResult result =
        BrotliDecoderDecompressStream(state.get(), &avail_in, &next_in, &avail_out, &next_out, nullptr);
    out.text.resize(before + kOutputChunk - avail_out);
    if (out.text.size() > max_bytes) {
      out.error = over_text("br", max_bytes);
    } else if (result == BROTLI_DECODER_RESULT_SUCCESS) {
      if (avail_in > 0) out.error = std::to_string(avail_in) + " bytes after the end of the br stream";
    } else if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      out.error = "a br stream cut short (" + std::to_string(body.size()) + " bytes)";
    } else if (result == BROTLI_DECODER_RESULT_ERROR) {
      out.error = "not a valid br stream (Brotli: " +
                  std::string(BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state.get()))) + ")";
    } else {
      continue;  // more output to come
    }
    break;
  }
  if (!out.error.empty()) out.text.clear();
  return out;
}

}  // namespace

std::string coding_of(std::string_view content_encoding) {
  std::string coding = common::ascii_lowered(common::trim(content_encoding));
  if (coding == "x-gzip") return "gzip";
  return coding == "identity" ? std::string() : coding;
}

bool accepts_coding(std::optional<std::string_view> accept_encoding, std::string_view coding) {
  const std::string wanted = coding_of(coding);
  if (!accept_encoding) return wanted.empty();
  std::optional<bool> named, any;
  std::string_view rest = *accept_encoding;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view element = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t semicolon = element.find(';');
    const std::string name = coding_of(element.substr(0, semicolon));
    bool acceptable = true;
    for (std::string_view params = semicolon == std::string_view::npos ? "" : element.substr(semicolon + 1);
         !params.empty();) {
      const std::size_t next = params.find(';');
      const std::string_view param = common::trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (param.size() > 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=')
        acceptable = !is_zero_quality(param.substr(2));
    }
    const std::string_view raw = common::trim(element.substr(0, semicolon));
    if (raw == "*")
      any = acceptable;
    else if (name == wanted && !raw.empty())
      named = acceptable;
  }
  if (named) return *named;
  if (wanted.empty()) return any.value_or(true);  // identity: acceptable unless refused (RFC 9110 §12.5.3)
  return any.value_or(false);
}

Decoded decode_body(std::string_view coding, std::string_view body, std::size_t max_bytes) {
  const std::string name = coding_of(coding);
  if (name == "gzip") return inflate_with("gzip", body, max_bytes, 15 + 32);
  if (name == "deflate") {
    // RFC 9110 §8.4.1.2 says zlib's wrapper; some servers send raw deflate, which browsers read too.
    Decoded wrapped = inflate_with("deflate", body, max_bytes, 15);
    return wrapped.error.empty() || wrapped.error.find("not a valid") == std::string::npos
               ? wrapped
               : inflate_with("deflate", body, max_bytes, -15);
  }
  if (name == "br") return unbrotli(body, max_bytes);
  return {"", "the suite cannot decode Content-Encoding " + std::string(common::trim(coding))};
}

}  // namespace entimg::contract::detail

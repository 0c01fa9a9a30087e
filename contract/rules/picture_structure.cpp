#include "picture_structure.hpp"

#include <expat.h>
#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "content_coding.hpp"

namespace entimg::contract::detail {
namespace {

using namespace std::string_view_literals;
using std::to_string;

// Big- and little-endian integers at `at` (the caller has checked there are enough bytes).
std::uint32_t be32(std::string_view b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}
std::uint32_t be16(std::string_view b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return std::uint32_t{p[0]} << 8 | p[1];
}
std::uint32_t le32(std::string_view b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return std::uint32_t{p[3]} << 24 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[1]} << 8 | p[0];
}
std::uint32_t le16(std::string_view b, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data() + at);
  return std::uint32_t{p[1]} << 8 | p[0];
}
unsigned byte_at(std::string_view b, std::size_t at) {
  return static_cast<unsigned char>(b[at]);
}

// "0x3B": a number as messages show bytes.
std::string hex(std::uint32_t n) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[n & 15]);
    n >>= 4;
  } while (n != 0);
  return "0x" + (out.size() % 2 ? "0" + out : out);
}

// A chunk or box type for messages: four printable bytes, or their hex.
std::string fourcc(std::string_view b, std::size_t at) {
  std::string out(b.substr(at, 4));
  for (const char c : out)
    if (c < 0x20 || c > 0x7E) return hex(be32(b, at));
  return out;
}

std::string cut_inside(const std::string& what, std::uint64_t claims, std::uint64_t left) {
  return "ends inside " + what + " (it claims " + to_string(claims) + " bytes, " + to_string(left) +
         (left == 1 ? " is" : " are") + " left)";
}

// PNG (ISO 15948 §5): IHDR first, each chunk's CRC-32 over its type and data, IDAT before IEND.
std::string png_fault(std::string_view b) {
  if (b.size() < 8) return "ends inside its signature";
  std::size_t at = 8;
  bool idat = false;
  for (std::size_t chunks = 0;; ++chunks) {
    if (at == b.size()) return "ends after " + to_string(chunks) + " chunks without an IEND chunk";
    if (b.size() - at < 12) return "ends inside a chunk's length, type and CRC at byte " + to_string(at);
    const std::uint32_t length = be32(b, at);
    const std::string type = fourcc(b, at + 4);
    if (b.size() - at - 12 < length)
      return cut_inside("chunk " + type + " at byte " + to_string(at), length, b.size() - at - 12);
    if (chunks == 0 && type != "IHDR") return "does not begin with its IHDR chunk (" + type + " first)";
    const auto* data = reinterpret_cast<const Bytef*>(b.data() + at + 4);
    if (crc32(0, data, static_cast<uInt>(length) + 4) != be32(b, at + 8 + length))
      return "has a wrong CRC in chunk " + type + " at byte " + to_string(at);
    at += 12 + std::size_t{length};
    if (type == "IDAT") idat = true;
    if (type == "IEND") return idat ? "" : "has no IDAT chunk before IEND";
  }
}

// The end of a JPEG scan's entropy-coded data: the next marker that is neither a stuffed 0xFF00 nor a
// restart marker; npos when the bytes end first.
std::size_t scan_end(std::string_view b, std::size_t at) {
  while (at < b.size()) {
    const void* ff = std::memchr(b.data() + at, 0xFF, b.size() - at);
    if (ff == nullptr) return std::string_view::npos;
    at = static_cast<std::size_t>(static_cast<const char*>(ff) - b.data());
    if (at + 1 >= b.size()) return std::string_view::npos;
    const unsigned next = byte_at(b, at + 1);
    if (next != 0x00 && next != 0xFF && (next < 0xD0 || next > 0xD7)) return at;
    at += next == 0xFF ? 1 : 2;
  }
  return std::string_view::npos;
}

// JPEG (ITU T.81 Annex B): segments by their lengths, each scan's data to its next marker, through EOI.
std::string jpeg_fault(std::string_view b) {
  std::size_t at = 2;
  bool frame = false, scan = false;
  for (;;) {
    if (at >= b.size()) return "ends before its EOI marker (FFD9)";
    if (byte_at(b, at) != 0xFF) return "has a byte that is no marker at byte " + to_string(at);
    while (at < b.size() && byte_at(b, at) == 0xFF)
      ++at;  // fill bytes
    if (at >= b.size()) return "ends before its EOI marker (FFD9)";
    const unsigned marker = byte_at(b, at++);
    if (marker == 0xD9) return !frame ? "has no frame header (SOF)" : !scan ? "has no scan (SOS)" : "";
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;
    if (b.size() - at < 2) return "ends inside the length of segment " + hex(0xFF00 | marker);
    const std::uint32_t length = be16(b, at);
    if (length < 2) return "has a segment length below 2 at byte " + to_string(at);
    if (b.size() - at < length)
      return cut_inside("segment " + hex(0xFF00 | marker) + " at byte " + to_string(at - 2), length,
                        b.size() - at);
    at += length;
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) frame = true;
    if (marker != 0xDA) continue;
    scan = true;
    at = scan_end(b, at);
    if (at == std::string_view::npos) return "ends inside its scan data, before its EOI marker (FFD9)";
  }
}

// A GIF's data sub-blocks from `at`, up to their terminator; false when the bytes end first.
bool skip_sub_blocks(std::string_view b, std::size_t& at) {
  for (;;) {
    if (at >= b.size()) return false;
    const std::size_t n = byte_at(b, at++);
    if (n == 0) return true;
    if (b.size() - at < n) return false;
    at += n;
  }
}

// GIF (GIF89a spec §17-27): the screen descriptor and colour tables, extensions and images, the trailer.
std::string gif_fault(std::string_view b) {
  if (b.size() < 13) return "ends inside its logical screen descriptor";
  std::size_t at = 13;
  if (const unsigned flags = byte_at(b, 10); flags & 0x80) at += 3 * (std::size_t{1} << ((flags & 7) + 1));
  bool image = false;
  for (;;) {
    if (at >= b.size()) return "ends before its trailer (0x3B)";
    const unsigned block = byte_at(b, at++);
    if (block == 0x3B) return image ? "" : "has no image before its trailer";
    if (block == 0x21) {
      if (++at > b.size() || !skip_sub_blocks(b, at)) return "ends inside an extension block";
    } else if (block == 0x2C) {
      if (b.size() - at < 10) return "ends inside an image descriptor";
      const unsigned flags = byte_at(b, at + 8);
      at += 9;
      if (flags & 0x80) at += 3 * (std::size_t{1} << ((flags & 7) + 1));
      if (++at > b.size() || !skip_sub_blocks(b, at)) return "ends inside an image's data";
      image = true;
    } else {
      return "has an unknown block " + hex(block) + " at byte " + to_string(at - 1);
    }
  }
}

// WebP (RIFF): the RIFF length covers the file, and the chunks inside it fit it.
std::string webp_fault(std::string_view b) {
  if (b.size() < 12) return "ends inside its RIFF header";
  const std::uint64_t total = std::uint64_t{le32(b, 4)} + 8;
  if (total > b.size()) return cut_inside("its RIFF container", total, b.size());
  std::size_t at = 12;
  std::size_t chunks = 0;
  while (at < total) {
    if (total - at < 8) return "ends inside a chunk header at byte " + to_string(at);
    const std::uint64_t size = le32(b, at + 4);
    if (total - at - 8 < size)
      return cut_inside("chunk " + fourcc(b, at) + " at byte " + to_string(at), size, total - at - 8);
    at += 8 + size + (size & 1);
    ++chunks;
  }
  return chunks == 0 ? "holds no chunk" : "";
}

// ISO base media boxes (ISO 14496-12 §4.2; AVIF, HEIC, HEIF, JPEG 2000 and JPEG XL containers): each box
// fits in the file, together they fill it (a size of 0 runs to its end), and the box of the picture's data
// (`data`: mdat, jp2c) is among them: a file cut at a box boundary lacks it.
std::string boxes_fault(std::string_view b, std::string_view data) {
  std::size_t at = 0;
  bool found = false;
  while (at < b.size()) {
    if (b.size() - at < 8) return "ends inside a box header at byte " + to_string(at);
    std::uint64_t size = be32(b, at);
    std::size_t header = 8;
    if (size == 1) {
      if (b.size() - at < 16) return "ends inside a box header at byte " + to_string(at);
      size = std::uint64_t{be32(b, at + 8)} << 32 | be32(b, at + 12);
      header = 16;
    } else if (size == 0) {
      return found || b.substr(at + 4, 4) == data || data.empty() ? ""
                                                                  : "holds no " + std::string(data) + " box";
    }
    if (size < header) return "has a box of " + to_string(size) + " bytes at byte " + to_string(at);
    if (size > b.size() - at)
      return cut_inside("box " + fourcc(b, at + 4) + " at byte " + to_string(at), size, b.size() - at);
    found = found || b.substr(at + 4, 4) == data;
    at += size;
  }
  return found || data.empty() ? "" : "holds no " + std::string(data) + " box (the picture's data)";
}

std::string media_boxes_fault(std::string_view b) {
  return boxes_fault(b, "mdat");
}
std::string jp2_boxes_fault(std::string_view b) {
  return boxes_fault(b, "jp2c");
}

// A signed 32-bit header field's magnitude.
std::uint64_t magnitude(std::uint32_t field) {
  const auto n = static_cast<std::int64_t>(static_cast<std::int32_t>(field));
  return static_cast<std::uint64_t>(n < 0 ? -n : n);
}

// BMP: the length its file header gives, and the pixel array (uncompressed rows) inside the file.
std::string bmp_fault(std::string_view b) {
  if (b.size() < 26) return "ends inside its headers";
  const std::uint64_t declared = le32(b, 2), offset = le32(b, 10), dib = le32(b, 14);
  if (declared != 0 && declared > b.size())
    return cut_inside("the length its header gives", declared, b.size());
  if (offset > b.size()) return "ends before its pixels (they start at byte " + to_string(offset) + ")";
  std::uint64_t width = 0, height = 0, bits = 0, compression = 0;
  if (dib >= 40 && b.size() >= 34) {
    width = magnitude(le32(b, 18));
    height = magnitude(le32(b, 22));  // negative: rows top-down
    bits = le16(b, 28);
    compression = le32(b, 30);
  } else if (dib == 12) {
    width = le16(b, 18), height = le16(b, 20), bits = le16(b, 24);
  }
  if (compression != 0 && compression != 3) return "";  // run-length or embedded JPEG/PNG: no row arithmetic
  const std::uint64_t row = (bits * width + 31) / 32 * 4, room = b.size() - offset;
  if (row != 0 && height > room / row)
    return "ends inside its pixel rows (" + to_string(height) + " rows of " + to_string(row) + " bytes, " +
           to_string(room) + " bytes left)";
  return "";
}

// ICO: each directory entry's image inside the file.
std::string ico_fault(std::string_view b) {
  if (b.size() < 6) return "ends inside its header";
  const std::size_t images = le16(b, 4);
  if (images == 0) return "holds no image";
  if (b.size() < 6 + 16 * images) return "ends inside its directory of " + to_string(images) + " images";
  for (std::size_t i = 0; i < images; ++i) {
    const std::uint64_t size = le32(b, 6 + 16 * i + 8), offset = le32(b, 6 + 16 * i + 12);
    if (offset > b.size() || size > b.size() - offset)
      return cut_inside("image " + to_string(i + 1) + " at byte " + to_string(offset), size,
                        offset > b.size() ? 0 : b.size() - offset);
  }
  return "";
}

// A TIFF's integers in its byte order.
struct TiffReader {
  std::string_view b;
  bool big;
  std::uint32_t u16(std::size_t at) const { return big ? be16(b, at) : le16(b, at); }
  std::uint32_t u32(std::size_t at) const { return big ? be32(b, at) : le32(b, at); }
  // The values of an IFD entry of type SHORT (3) or LONG (4), inline or at its offset; nullopt when they
  // lie outside the file.
  std::optional<std::vector<std::uint64_t>> values(std::size_t entry) const {
    const std::uint32_t type = u16(entry + 2), count = u32(entry + 4);
    const std::size_t width = type == 3 ? 2 : 4;
    if ((type != 3 && type != 4) || count > (1U << 20)) return std::vector<std::uint64_t>{};
    std::size_t at = entry + 8;
    if (std::uint64_t{count} * width > 4) at = u32(entry + 8);
    if (at > b.size() || std::uint64_t{count} * width > b.size() - at) return std::nullopt;
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < count; ++i)
      out.push_back(width == 2 ? u16(at + 2 * i) : u32(at + 4 * i));
    return out;
  }
};

// TIFF (TIFF 6.0 §2): the first IFD inside the file, and each strip or tile it names inside the file.
std::string tiff_fault(std::string_view b) {
  if (b.size() < 8) return "ends inside its header";
  const TiffReader r{b, b[0] == 'M'};
  const std::size_t ifd = r.u32(4);
  if (ifd > b.size() || b.size() - ifd < 2)
    return "ends before its first IFD (at byte " + to_string(ifd) + ")";
  const std::size_t entries = r.u16(ifd);
  if (b.size() - ifd - 2 < 12 * entries + 4)
    return "ends inside its first IFD of " + to_string(entries) + " entries";
  std::vector<std::uint64_t> offsets, counts;
  for (std::size_t i = 0; i < entries; ++i) {
    const std::size_t entry = ifd + 2 + 12 * i;
    const std::uint32_t tag = r.u16(entry);
    if (tag != 273 && tag != 279 && tag != 324 && tag != 325) continue;
    const auto values = r.values(entry);
    if (!values) return "ends before the values of tag " + to_string(tag);
    (tag == 273 || tag == 324 ? offsets : counts) = *values;
  }
  for (std::size_t i = 0; i < offsets.size() && i < counts.size(); ++i)
    if (offsets[i] > b.size() || counts[i] > b.size() - offsets[i])
      return cut_inside("strip " + to_string(i + 1) + " at byte " + to_string(offsets[i]), counts[i],
                        offsets[i] > b.size() ? 0 : b.size() - offsets[i]);
  return "";
}

// The name of the first element expat meets, local part only.
void XMLCALL first_element(void* data, const XML_Char* name, const XML_Char**) {
  auto* root = static_cast<std::string*>(data);
  if (!root->empty()) return;
  std::string_view local(name);
  if (const std::size_t sep = local.rfind('\x01'); sep != std::string_view::npos)
    local.remove_prefix(sep + 1);
  if (const std::size_t colon = local.rfind(':'); colon != std::string_view::npos)
    local.remove_prefix(colon + 1);
  *root = local.empty() ? "?" : std::string(local);
}

// The largest SVG decompressed (.svgz) to be parsed.
constexpr std::size_t kSvgDecodedBytes = std::size_t{16} << 20;

// SVG: well-formed XML whose root element is svg (gzip-compressed first for .svgz); expat reads it, with
// its protection against entity expansion and no external entity loaded.
std::string svg_fault(std::string_view bytes) {
  std::string decoded;
  if (bytes.starts_with("\x1F\x8B"sv)) {
    Decoded out = decode_body("gzip", bytes, kSvgDecodedBytes);
    if (out.text.empty()) return "is gzip that does not decode: " + out.error;
    decoded = std::move(out.text);
    bytes = decoded;
  }
  const std::unique_ptr<std::remove_pointer_t<XML_Parser>, void (*)(XML_Parser)> parser(
      XML_ParserCreateNS(nullptr, '\x01'), XML_ParserFree);
  if (!parser) return "";
  std::string root;
  XML_SetUserData(parser.get(), &root);
  XML_SetStartElementHandler(parser.get(), first_element);
  bool ok = true;
  for (std::string_view rest = bytes; ok && !rest.empty();) {
    const std::size_t n = std::min<std::size_t>(rest.size(), 1U << 20);
    ok = XML_Parse(parser.get(), rest.data(), static_cast<int>(n), XML_FALSE) == XML_STATUS_OK;
    rest.remove_prefix(n);
  }
  if (ok) ok = XML_Parse(parser.get(), "", 0, XML_TRUE) == XML_STATUS_OK;
  if (!ok)
    return "is not well-formed XML: " + std::string(XML_ErrorString(XML_GetErrorCode(parser.get()))) +
           " at line " + to_string(XML_GetCurrentLineNumber(parser.get())) + ", column " +
           to_string(XML_GetCurrentColumnNumber(parser.get()));
  return root == "svg" ? "" : "has the root element <" + root + ">, not <svg>";
}

struct Structure {
  std::string_view type;
  std::string_view name;  // for messages
  std::string (*fault)(std::string_view bytes);
};
constexpr std::array<Structure, 16> kStructures = {{
    {"image/png", "PNG", png_fault},
    {"image/apng", "PNG", png_fault},
    {"image/jpeg", "JPEG", jpeg_fault},
    {"image/pjpeg", "JPEG", jpeg_fault},
    {"image/gif", "GIF", gif_fault},
    {"image/webp", "WebP", webp_fault},
    {"image/avif", "AVIF", media_boxes_fault},
    {"image/heic", "HEIC", media_boxes_fault},
    {"image/heif", "HEIF", media_boxes_fault},
    {"image/jp2", "JPEG 2000", jp2_boxes_fault},
    {"image/bmp", "BMP", bmp_fault},
    {"image/x-ms-bmp", "BMP", bmp_fault},
    {"image/vnd.microsoft.icon", "ICO", ico_fault},
    {"image/x-icon", "ICO", ico_fault},
    {"image/tiff", "TIFF", tiff_fault},
    {"image/svg+xml", "SVG", svg_fault},
}};

}  // namespace

std::string picture_structure_fault(std::string_view type, std::string_view bytes) {
  for (const Structure& s : kStructures)
    if (s.type == type) {
      std::string fault = s.fault(bytes);
      return fault.empty() ? fault : "a " + std::string(s.name) + " that " + fault;
    }
  // A JPEG XL in its box container (a codestream alone has no structure judged here).
  if (type == "image/jxl" && bytes.starts_with("\0\0\0\x0CJXL "sv)) {
    std::string fault = boxes_fault(bytes, "");
    return fault.empty() ? fault : "a JPEG XL that " + fault;
  }
  return "";
}

}  // namespace entimg::contract::detail

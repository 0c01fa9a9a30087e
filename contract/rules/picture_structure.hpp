#pragma once
// Whether a picture read whole is whole: its structure walked as a decoder walks it to the end (PNG chunks
// and their CRCs through IEND, JPEG segments through the scan to EOI, GIF blocks to the trailer, WebP's RIFF
// length, ISO-BMFF boxes filling the file, SVG well-formed XML, BMP/ICO/TIFF headers against the length).
// Nothing is decoded to pixels: a file cut short by an aborted copy, with the right status, type and magic
// bytes, shows here.
#include <string>
#include <string_view>

namespace entimg::contract::detail {

/// Why the bytes are not a whole picture of that type (lower case, no parameters): "ends inside chunk IDAT
/// (it claims 5000 bytes, 312 are left)", "has no EOI marker"; "" when they are, or when the type has no
/// structure known here (JPEG 2000 codestreams, JPEG XL codestreams, PNM, the rest: their signatures alone
/// are judged). The bytes must carry the type's signature (has_signature_of) before they are given here.
std::string picture_structure_fault(std::string_view type, std::string_view bytes);

}  // namespace entimg::contract::detail

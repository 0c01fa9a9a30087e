#pragma once
// DRF's DefaultContentNegotiation for this view's renderers [JSON, browsable API] (reference §3.2).
#include <optional>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

enum class Renderer { Json, BrowsableApi };

struct Negotiated {
  enum class Outcome { Ok, NotFound, NotAcceptable } outcome = Outcome::Ok;
  Renderer renderer = Renderer::Json;
  int indent =
      0;  ///< from "application/json; indent=N", clamped to 0..8; the browsable page's: 4 unless given
};

/// format: the URL suffix or the last `format` parameter (blank ones already removed);
/// accept: the Accept header, nullopt when absent (DRF then assumes "*/*").
Negotiated negotiate(std::optional<std::string_view> format, std::optional<std::string_view> accept);

}  // namespace entimg::mock::detail

#pragma once
// What the mutant classes share: a mutant made from a position and a mutation, page edits as mutations,
// a draw among choices. The classes are split over mutant_classes.cpp (answers of the plain plan),
// side_classes.cpp (the quick plan's sides) and client_classes.cpp (what a client does past the list).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broken/answer_edit.hpp"
#include "positions.hpp"

namespace entimg::mutants::detail {

/// The collection's path.
inline constexpr std::string_view kCollection = "/edw/api/entities-images/";

using Mutate = std::function<void(const Call&, mock::HttpResponse&, Wire&)>;
/// Draws one mutant of a class: its parameters and position from the rng.
using Maker = std::function<Mutant(const World&, common::Pcg32&)>;

/// A mutant of the class applying `mutate` where `where` matches, visible as the position is unless `only`.
Mutant make(std::string klass, const std::string& what, const Position& where, Mutate mutate,
            std::optional<Visibility> only = std::nullopt);
/// A page edit as a mutation: applies to 200 JSON pages only.
Mutate on_page(std::function<void(const Call&, broken::Json&)> edit);

template <typename T>
const T& one_of(common::Pcg32& rng, const std::vector<T>& items) {
  return items[rng.below(static_cast<std::uint32_t>(items.size()))];
}

// The classes of the quick plan's sides (side_classes.cpp).
std::vector<Maker> filter_class();
std::vector<Maker> proxy_class();
std::vector<Maker> shared_cache_class();
std::vector<Maker> compression_class();
std::vector<Maker> head_close_class();

// The classes of what a client does past the list (client_classes.cpp).
std::vector<Maker> picture_class();
std::vector<Maker> detail_class();
std::vector<Maker> validator_class();
std::vector<Maker> redirect_class();
std::vector<Maker> filter_input_class();
std::vector<Maker> settings_class();

}  // namespace entimg::mutants::detail

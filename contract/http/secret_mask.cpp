#include "secret_mask.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "entimg/common/html.hpp"
#include "entimg/common/url.hpp"

namespace entimg::contract::detail {
namespace {

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The spellings of one secret an echo may use.
void add_forms(const std::string& secret, std::vector<std::string>& forms) {
  std::string plus;
  common::append_quote_plus(plus, secret);
  const std::string json =
      nlohmann::json(secret).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string json_inner = json.substr(1, json.size() - 2);
  for (std::string form : {secret, plus, replaced(plus, "+", "%20"), json_inner,
                           replaced(json_inner, "/", "\\/"), common::html_escaped(secret)})
    forms.push_back(std::move(form));
}

void mask(std::string& text, const std::string& form) {
  for (auto at = text.find(form); at != std::string::npos; at = text.find(form, at + form.size()))
    text.replace(at, form.size(), form.size(), '*');
}

}  // namespace

SecretMask::SecretMask(const std::vector<std::string>& secrets) {
  // A credential shorter than this would mask ordinary words of every answer.
  constexpr std::size_t kMinCredential = 8;
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    add_forms(secret, forms_);
    const auto space = secret.find_last_of(' ');
    if (space != std::string::npos && secret.size() - space - 1 >= kMinCredential)
      add_forms(secret.substr(space + 1), forms_);
  }
  std::sort(forms_.begin(), forms_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  forms_.erase(std::unique(forms_.begin(), forms_.end()), forms_.end());
}

void SecretMask::apply(std::string& text) const {
  for (const std::string& form : forms_)
    mask(text, form);
}

void SecretMask::apply(HttpExchange& exchange) const {
  if (forms_.empty()) return;
  apply(exchange.body);
  apply(exchange.url);
  apply(exchange.error);
  for (auto& [name, value] : exchange.headers) {
    apply(name);
    apply(value);
  }
  for (auto& [name, value] : exchange.request_headers)
    apply(value);
}

}  // namespace entimg::contract::detail

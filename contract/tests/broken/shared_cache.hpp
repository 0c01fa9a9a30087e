#pragma once
// A shared cache in front of a deployment, as nginx's proxy_cache or a CDN keeps answers: GET answers with
// status 200, under a key made of the request-target and, as configured, its Host, its forwarding headers
// and the request headers the stored answer's Vary names. A correct one is a tolerated variant; one keyed
// without the host, or blind to Vary, is a mutant (web cache poisoning's unkeyed headers).
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::broken {

struct CacheKeying {
  bool host =
      true;  ///< Host is part of the key (nginx's default key, $scheme$proxy_host$request_uri, has not)
  bool forwarding = true;  ///< X-Forwarded-Proto, X-Forwarded-Host and Forwarded are part of the key
  bool vary = true;        ///< a stored answer serves only requests whose headers its Vary names are the same
  bool canonical_only = false;  ///< stores only answers to requests whose Host is the server's own address
};

/// One cache: a deployment's variant or a mutant keeps one, keyed one way all along. Thread-safe.
class SharedCache {
 public:
  /// The stored answer for the request, or upstream's (stored when it may be).
  mock::HttpResponse answer(const mock::HttpRequest& request,
                            const std::function<mock::HttpResponse(const mock::HttpRequest&)>& upstream,
                            const CacheKeying& keying);
  void clear();

 private:
  struct Entry {
    std::vector<std::string> names;   // the headers the answer's Vary names, lower-cased
    std::vector<std::string> values;  // their values in the request that got it
    mock::HttpResponse answer;
  };
  std::mutex mutex_;
  std::map<std::string, std::vector<Entry>> entries_;
};

}  // namespace entimg::broken

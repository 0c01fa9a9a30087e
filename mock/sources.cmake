# The mock's core: everything that answers a request, whatever carries it. The native library adds its
# epoll front, command line, zlib and files (mock/CMakeLists.txt); the WebAssembly build adds its binding
# and pako's deflate (mock/wasm/CMakeLists.txt). One list, so both fronts run the same code.
set(ENTIMG_MOCK_CORE_SOURCES
  django/app.cpp
  django/admin.cpp
  drf/basic_auth.cpp
  drf/browsable.cpp
  datasets/churn.cpp
  django/cors.cpp
  http/failure_pages.cpp
  django/flags.cpp
  http/fault_statuses.cpp
  django/faults.cpp
  datasets/file_dataset.cpp
  helpers/filer_names.cpp
  datasets/generated_dataset.cpp
  django/gzip.cpp
  http/http_types.cpp
  django/journal.cpp
  helpers/json_writer.cpp
  drf/list_view.cpp
  datasets/live_dataset.cpp
  drf/multipart.cpp
  helpers/negotiation.cpp
  helpers/pagination.cpp
  helpers/placeholder_image.cpp
  helpers/python_json.cpp
  helpers/python_number.cpp
  drf/routes.cpp
  django/request_log.cpp
  drf/serializer.cpp
  django/service.cpp
  drf/upload.cpp
  django/vary.cpp
  drf/view_response.cpp
)

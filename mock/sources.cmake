# The mock's core: everything that answers a request, whatever carries it. The native library adds its
# epoll front, command line, zlib and files (mock/CMakeLists.txt); the WebAssembly build adds its binding
# and pako's deflate (mock/wasm/CMakeLists.txt). One list, so both fronts run the same code.
set(ENTIMG_MOCK_CORE_SOURCES
  src/app.cpp
  src/admin.cpp
  src/basic_auth.cpp
  src/browsable.cpp
  src/churn.cpp
  src/cors.cpp
  src/failure_pages.cpp
  src/flags.cpp
  src/fault_statuses.cpp
  src/faults.cpp
  src/file_dataset.cpp
  src/filer_names.cpp
  src/generated_dataset.cpp
  src/gzip.cpp
  src/http_types.cpp
  src/journal.cpp
  src/json_writer.cpp
  src/list_view.cpp
  src/live_dataset.cpp
  src/multipart.cpp
  src/negotiation.cpp
  src/pagination.cpp
  src/placeholder_image.cpp
  src/python_json.cpp
  src/python_number.cpp
  src/routes.cpp
  src/request_log.cpp
  src/serializer.cpp
  src/service.cpp
  src/upload.cpp
  src/vary.cpp
  src/view_response.cpp
)

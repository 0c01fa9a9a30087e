# The mock's core: everything that answers a request, whatever carries it, layer by layer from the bottom
# (docs/architecture.md, "The mock's layers"). The native build makes each layer a library and adds zlib
# and files to the lower ones, the epoll front and the command line above them (mock/CMakeLists.txt); the
# WebAssembly build compiles the core's layers into one module with its binding and pako's deflate
# (mock/wasm/CMakeLists.txt). One list, so both run the same code.
set(ENTIMG_MOCK_CORE_LAYERS helpers datasets http drf django)

# DRF's helpers and Python's look-alikes: pure functions of text and numbers, no request.
set(ENTIMG_MOCK_HELPERS_SOURCES
  helpers/filer_names.cpp
  helpers/json_writer.cpp
  helpers/negotiation.cpp
  helpers/pagination.cpp
  helpers/placeholder_image.cpp
  helpers/placeholder_png.cpp
  helpers/python_json.cpp
  helpers/python_number.cpp
  helpers/sized_picture.cpp
)
# The records: generated, read from a file, live (uploads, --state), churned.
set(ENTIMG_MOCK_DATASETS_SOURCES
  datasets/churn.cpp
  datasets/file_dataset.cpp
  datasets/generated_dataset.cpp
  datasets/live_dataset.cpp
)
# What Django hands a view: the request and the response, Django's and the proxies' error pages.
set(ENTIMG_MOCK_HTTP_SOURCES
  http/byte_ranges.cpp
  http/failure_pages.cpp
  http/fault_statuses.cpp
  http/http_types.cpp
)
# The DRF views and what they use: routers' URL table, list/detail/root, browsable page, upload,
# serializer, BasicAuthentication, parsers.
set(ENTIMG_MOCK_DRF_SOURCES
  drf/basic_auth.cpp
  drf/browsable.cpp
  drf/list_view.cpp
  drf/multipart.cpp
  drf/routes.cpp
  drf/serializer.cpp
  drf/upload.cpp
  drf/view_response.cpp
)
# The Django project around the views: the URL resolver and dispatch (Service), the middleware (faults,
# CORS, gzip, Vary, the request log), the admin routes and their journal, the options and their flag table.
set(ENTIMG_MOCK_DJANGO_SOURCES
  django/admin.cpp
  django/app.cpp
  django/cors.cpp
  django/faults.cpp
  django/flags.cpp
  django/gzip.cpp
  django/journal.cpp
  django/request_log.cpp
  django/security_headers.cpp
  django/service.cpp
  django/vary.cpp
)

set(ENTIMG_MOCK_CORE_SOURCES)
foreach(layer ${ENTIMG_MOCK_CORE_LAYERS})
  string(TOUPPER ${layer} upper)
  list(APPEND ENTIMG_MOCK_CORE_SOURCES ${ENTIMG_MOCK_${upper}_SOURCES})
endforeach()

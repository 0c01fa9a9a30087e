#!/usr/bin/python3
"""The mock's layers (docs/architecture.md, "The mock's layers") against its CMake targets and includes.

Reads the picture in docs/architecture.md (the layers top to bottom, each with the third-party libraries it
links), mock/CMakeLists.txt (one entimg_mock_layer call and one link line a layer), mock/sources.cmake (the
layers' source lists and the core the WebAssembly build compiles) and every file of the layers' folders,
and fails when they disagree:
  - the picture's layers, the layer folders and the entimg_mock_layer calls differ;
  - a layer links another layer than the one directly below it, or third-party libraries other than its
    line of the picture names;
  - a source file of a layer's folder is built by no list, or a layer's list names a file of another folder;
  - the core (ENTIMG_MOCK_CORE_LAYERS) is not the picture's lowest layers, bottom first;
  - a file includes a header of a layer above its own, anything of contract/, or a third-party header its
    layer does not link (directly, or publicly through what it links).

--self-test copies the tree, breaks it in each of those ways in turn and fails unless each break is found.
What this shares with contract/tests/architecture.py is common/tests/layers.py.
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import layers  # noqa: E402

MARKER = "<!-- mock layers: kept true by mock.architecture -->"
SKIPPED = {"tests", "npm", "wasm"}  # mock/'s folders that are not layers

LAYER_CALL = re.compile(r"^entimg_mock_layer\((\w+)([^)]*)\)", re.M)
SOURCE_LIST = re.compile(r"set\(ENTIMG_MOCK_(\w+)_SOURCES\s+([^)]*)\)", re.S)
CORE = re.compile(r"set\(ENTIMG_MOCK_CORE_LAYERS\s+([^)]*)\)")


def check_lists(mock, order, problems):
    """The entimg_mock_layer calls and the core against the picture; returns the files the lists build."""
    lists = layers.cmake_text(os.path.join(mock, "CMakeLists.txt"))
    sources = layers.cmake_text(os.path.join(mock, "sources.cmake"))
    calls = LAYER_CALL.findall(lists)
    if [c for c, _ in calls] != order[::-1]:
        problems.append(f"mock/CMakeLists.txt makes the layers {[c for c, _ in calls]}, the picture bottom "
                        f"first is {order[::-1]}")
    core = CORE.search(sources)
    core = core.group(1).split() if core else []
    if not core or core != order[::-1][:len(core)]:
        problems.append(f"mock/sources.cmake: ENTIMG_MOCK_CORE_LAYERS {core} are not the picture's lowest "
                        f"layers, bottom first ({order[::-1]})")
    built = set()
    for name, body in SOURCE_LIST.findall(sources + lists):
        built |= layers.built_paths(mock, body.split())
        for source in body.split():
            if name != "CORE" and source.split("/", 1)[0] != name.lower():
                problems.append(f"ENTIMG_MOCK_{name}_SOURCES lists {source}, a file of another folder")
    for _, extra in calls:
        built |= layers.built_paths(mock, extra.split())
    for body in re.findall(r"add_executable\(\s*[\w-]+\s+([^)]*)\)", lists):
        built |= layers.built_paths(mock, body.split(), only_cpp=True)
    return built


def check_layers(part):
    mock = os.path.join(part.root, "mock")
    order = part.order  # top first
    folders = sorted(d for d in os.listdir(mock) if os.path.isdir(os.path.join(mock, d)) and d not in SKIPPED)
    part.check_folders(folders)
    part.read_links([os.path.join(mock, "CMakeLists.txt")])
    built = check_lists(mock, order, part.problems)
    for i, layer in enumerate(order):
        part.check_link_line("mock/CMakeLists.txt", layer, order[i + 1:i + 2])

    part.read_owners(folders)
    return part.check_files([x for x in order if x in folders], built, lambda layer, folder: part.target(layer),
                            lambda layer, folder: "its layer's list")


check = layers.checker("mock", "layer", MARKER, check_layers)


BREAKS = [
    ("an upward include of a layer's header", "mock/helpers/pagination.cpp", "append", '#include "routes.hpp"\n',
     "of the layer drf, above helpers"),
    ("an upward include of a face header", "mock/datasets/churn.cpp", "append",
     '#include "entimg/mock/server.hpp"\n', "of the layer front, above datasets"),
    ("an include of the suite", "mock/drf/list_view.cpp", "append", '#include "entimg/contract/http.hpp"\n',
     "mock/ never includes contract/"),
    ("a third-party header the layer does not link", "mock/drf/serializer.cpp", "append", "#include <zlib.h>\n",
     "(zlib), which entimg_mock_drf does not link"),
    ("a link line up the layers", "mock/CMakeLists.txt", "replace",
     ("PUBLIC entimg::mock::helpers", "PUBLIC entimg::mock::helpers entimg::mock::drf"),
     "datasets links the layers ['drf', 'helpers']"),
    ("a third-party library the picture does not name", "mock/CMakeLists.txt", "replace",
     ("PRIVATE CLI11::CLI11", "PRIVATE CLI11::CLI11 ZLIB::ZLIB"), "its line in the picture says"),
    ("two layers swapped in the picture", "docs/architecture.md", "swap", ("  drf  ", "  datasets  "),
     "directly below it"),
    ("a source no list builds", "mock/drf/orphan.cpp", "create", "int orphan() { return 1; }\n",
     "built by no target"),
    ("a source listed in another layer", "mock/sources.cmake", "replace",
     ("  drf/basic_auth.cpp\n", "  drf/basic_auth.cpp\n  django/cors.cpp\n"), "a file of another folder"),
    ("the core not the lowest layers", "mock/sources.cmake", "replace",
     ("helpers datasets http", "datasets helpers http"), "ENTIMG_MOCK_CORE_LAYERS"),
]


def broken_copy(root, where, how, what, into):
    layers.broken_copy(root, "mock", shutil.ignore_patterns(*SKIPPED), where, how, what, into)


if __name__ == "__main__":
    sys.exit(layers.main(__doc__.splitlines()[0], check, BREAKS, broken_copy,
                         "mock/CMakeLists.txt, mock/sources.cmake", "layer"))

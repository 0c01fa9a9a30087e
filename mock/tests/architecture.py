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
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

MARKER = "<!-- mock layers: kept true by mock.architecture -->"
SKIPPED = {"tests", "npm", "wasm"}  # mock/'s folders that are not layers

# CMake targets as the picture names them; where our own libraries' link lines are.
TARGET_NAMES = {
    "entimg::common": "common",
    "httplib::httplib": "cpp-httplib",
    "ZLIB::ZLIB": "zlib",
    "Threads::Threads": "Threads",
    "nlohmann_json::nlohmann_json": "nlohmann_json",
    "CLI11::CLI11": "CLI11",
}
OWN_LIBRARIES = {"entimg::common": "entimg_common"}
# Third-party headers, by the start of their include path, and the library that brings them.
HEADER_LIBRARIES = [("httplib.h", "cpp-httplib"), ("zlib.h", "zlib"), ("nlohmann/", "nlohmann_json"),
                    ("CLI/", "CLI11"), ("pthread.h", "Threads")]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
LINK_LINE = re.compile(r"target_link_libraries\(\s*([\w:]+)\s+([^)]*)\)", re.S)
LAYER_CALL = re.compile(r"^entimg_mock_layer\((\w+)([^)]*)\)", re.M)
SOURCE_LIST = re.compile(r"set\(ENTIMG_MOCK_(\w+)_SOURCES\s+([^)]*)\)", re.S)
CORE = re.compile(r"set\(ENTIMG_MOCK_CORE_LAYERS\s+([^)]*)\)")
PICTURE_LINE = re.compile(r"^  (\w+)\s+.*?\|(.*)$")


def text_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def cmake_text(path):
    return re.sub(r"#[^\n]*", "", text_of(path))


def layers_pictured(doc_path):
    """The layers top to bottom, each with the set of names after its '|'."""
    doc = text_of(doc_path)
    if MARKER not in doc:
        return None, f"{doc_path}: no '{MARKER}' before the picture"
    block = doc.split(MARKER, 1)[1].split("```", 2)[1]
    layers = [(m.group(1), set(m.group(2).split())) for m in map(PICTURE_LINE.match, block.splitlines()) if m]
    return (layers, None) if layers else (None, f"{doc_path}: the picture after '{MARKER}' names no layer")


def links_of(cmake_files):
    """target -> {"PUBLIC"|"PRIVATE"|"INTERFACE": [items]}."""
    links = {}
    for path in cmake_files:
        for target, body in LINK_LINE.findall(cmake_text(path)):
            entry = links.setdefault(target, {"PUBLIC": [], "PRIVATE": [], "INTERFACE": []})
            scope = "PRIVATE"
            for word in body.split():
                if word in entry:
                    scope = word
                else:
                    entry[scope].append(word)
    return links


def brought(item, links, seen):
    """What linking `item` lets a file include: its name, then what it links publicly, transitively."""
    if item in seen:
        return set()
    seen.add(item)
    if item.startswith("entimg::mock::"):
        name = item.rsplit("::", 1)[1]
        target = f"entimg_mock_{name}"
    else:
        name, target = TARGET_NAMES.get(item, item), OWN_LIBRARIES.get(item)
    entry = links.get(target, {})
    out = {name}
    for public in entry.get("PUBLIC", []) + entry.get("INTERFACE", []):
        out |= brought(public, links, seen)
    return out


def check_targets(mock, order, pictured, links, problems):
    """The link lines against the picture; returns the files the lists build."""
    lists = cmake_text(os.path.join(mock, "CMakeLists.txt"))
    sources = cmake_text(os.path.join(mock, "sources.cmake"))
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
        for source in body.split():
            built.add(os.path.normpath(os.path.join(mock, source)))
            if name != "CORE" and source.split("/", 1)[0] != name.lower():
                problems.append(f"ENTIMG_MOCK_{name}_SOURCES lists {source}, a file of another folder")
    for _, extra in calls:
        built |= {os.path.normpath(os.path.join(mock, s)) for s in extra.split()}
    for body in re.findall(r"add_executable\(\s*[\w-]+\s+([^)]*)\)", lists):
        built |= {os.path.normpath(os.path.join(mock, s)) for s in body.split() if s.endswith(".cpp")}

    for i, layer in enumerate(order):
        entry = links.get(f"entimg_mock_{layer}")
        if entry is None:
            problems.append(f"mock/CMakeLists.txt: no target_link_libraries(entimg_mock_{layer} ...)")
            continue
        items = entry["PUBLIC"] + entry["PRIVATE"] + entry["INTERFACE"]
        linked = sorted(x.rsplit("::", 1)[1] for x in items if x.startswith("entimg::mock::"))
        below = order[i + 1:i + 2]
        if linked != below:
            problems.append(f"mock/CMakeLists.txt: {layer} links the layers {linked}; the picture puts "
                            f"{below or 'none'} directly below it")
        others = [x for x in items if not x.startswith("entimg::mock::")]
        unknown = [x for x in others if x not in TARGET_NAMES]
        if unknown:
            problems.append(f"mock/CMakeLists.txt: {unknown} have no name in mock/tests/architecture.py's "
                            f"TARGET_NAMES: add them there and to the picture")
        named = {TARGET_NAMES.get(x, x) for x in others}
        if named != pictured[layer]:
            problems.append(f"mock/CMakeLists.txt: {layer} links {sorted(named)}, its line in the picture says "
                            f"{sorted(pictured[layer])}")
    return built


def check(root):
    mock = os.path.join(root, "mock")
    layers, problem = layers_pictured(os.path.join(root, "docs", "architecture.md"))
    if layers is None:
        return [problem], 0, 0
    problems = []
    order = [name for name, _ in layers]  # top first
    folders = sorted(d for d in os.listdir(mock) if os.path.isdir(os.path.join(mock, d)) and d not in SKIPPED)
    if sorted(order) != folders:
        problems.append(f"the picture's layers {sorted(order)} are not mock/'s layer folders {folders}")
    links = links_of([os.path.join(mock, "CMakeLists.txt"), os.path.join(root, "common", "CMakeLists.txt")])
    built = check_targets(mock, order, dict(layers), links, problems)

    owner = {}  # a header's include path -> its layer
    for layer in folders:
        for dirpath, _, names in os.walk(os.path.join(mock, layer)):
            face = dirpath.endswith(os.path.join("include", "entimg", "mock"))
            owner.update({(f"entimg/mock/{n}" if face else n): layer for n in names if n.endswith(".hpp")})
    files = includes = 0
    for layer in (x for x in order if x in folders):
        allowed = set()
        for item in sum(links.get(f"entimg_mock_{layer}", {}).values(), []):
            allowed |= brought(item, links, set())
        for dirpath, _, names in os.walk(os.path.join(mock, layer)):
            for path in sorted(os.path.join(dirpath, n) for n in names if n.endswith((".cpp", ".hpp"))):
                shown = os.path.relpath(path, root)
                files += 1
                if path.endswith(".cpp") and os.path.normpath(path) not in built:
                    problems.append(f"{shown}: built by no target (add it to its layer's list)")
                for _, header in INCLUDE.findall(text_of(path)):
                    includes += 1
                    home = owner.get(header)
                    library = next((lib for prefix, lib in HEADER_LIBRARIES if header.startswith(prefix)), None)
                    if header.startswith(("entimg/contract/", "contract/")):
                        problems.append(f"{shown}: includes {header}: mock/ never includes contract/")
                    elif home is not None and order.index(home) < order.index(layer):
                        problems.append(f"{shown}: includes {header} of the layer {home}, above {layer}")
                    elif library and library not in allowed:
                        problems.append(f"{shown}: includes {header} ({library}), which entimg_mock_{layer} "
                                        f"does not link")
    return problems, files, includes


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
    shutil.copytree(os.path.join(root, "mock"), os.path.join(into, "mock"),
                    ignore=shutil.ignore_patterns(*SKIPPED))
    shutil.copytree(os.path.join(root, "docs"), os.path.join(into, "docs"))
    os.makedirs(os.path.join(into, "common"))
    shutil.copy(os.path.join(root, "common", "CMakeLists.txt"), os.path.join(into, "common"))
    if where is None:
        return
    path = os.path.join(into, where)
    text = "" if how == "create" else text_of(path)
    if how in ("append", "create"):
        text += what
    elif how == "replace":
        assert what[0] in text, f"{where} no longer holds {what[0]!r}: update architecture.py's BREAKS"
        text = text.replace(what[0], what[1], 1)
    elif how == "swap":
        lines = text.splitlines(keepends=True)
        a, b = (next(i for i, line in enumerate(lines) if line.startswith(w)) for w in what)
        lines[a], lines[b] = lines[b], lines[a]
        text = "".join(lines)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test(root):
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, where, how, what, expected) in enumerate([("the copy unbroken", None, None, None, None)]
                                                                + BREAKS):
            into = os.path.join(tmp, str(i))
            broken_copy(root, where, how, what, into)
            problems, _, _ = check(into)
            found = [p for p in problems if expected and expected in p]
            ok = found if where else not problems
            shown = found[0] if found else "; ".join(problems) or "no problem"
            print(f"{'ok  ' if ok else 'FAIL'} {label}{f' ({where})' if where else ''}: {shown}")
            failed += not ok
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the project's source folder")
    parser.add_argument("--self-test", action="store_true", help="break copies of the tree; each must fail")
    args = parser.parse_args()
    if args.self_test:
        failed = self_test(args.root)
        print(f"{len(BREAKS) + 1 - failed} of {len(BREAKS) + 1} as expected")
        return 1 if failed else 0
    problems, files, includes = check(args.root)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print(f"{len(problems)} disagreement(s) between docs/architecture.md, mock/CMakeLists.txt, "
              f"mock/sources.cmake and the includes")
        return 1
    print(f"ok: {files} files, {includes} includes in the layers of docs/architecture.md, as their targets link")
    return 0


if __name__ == "__main__":
    sys.exit(main())

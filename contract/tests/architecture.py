#!/usr/bin/python3
"""The contract suite's layers (docs/architecture.md) against its CMake targets and its includes.

Reads the picture in docs/architecture.md (the wings top to bottom, each with what it links besides the
wing below), the link lines of contract/<wing>/CMakeLists.txt and every file of contract/<wing>/, and fails
when they disagree:
  - the wings of the picture, the folders and contract/CMakeLists.txt's add_subdirectory lines differ;
  - a wing links another wing than the one directly below it, or third-party libraries other than its line
    of the picture names;
  - a source file of a wing's folder is built by no target;
  - a file includes a header of a wing above its own, anything of mock/, or a third-party header its wing
    does not link (directly, or publicly through what it links);
  - a wing's unit tests (contract/<wing>/tests/, the program contract_<wing>_tests) link another wing than
    their own, or the mock, or include what their program does not link, as the wing's own files.

--self-test copies the tree, breaks it in each of those ways in turn and fails unless each break is found.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

MARKER = "<!-- wings: kept true by contract.architecture -->"

# CMake targets as the picture names them.
TARGET_NAMES = {
    "entimg::common": "common",
    "entimg::schema": "schema",
    "entimg::catch2": "Catch2",
    "httplib::httplib": "cpp-httplib",
    "OpenSSL::SSL": "OpenSSL",
    "OpenSSL::Crypto": "OpenSSL",
    "ZLIB::ZLIB": "zlib",
    "PkgConfig::BROTLIDEC": "Brotli",
    "PkgConfig::SIMDJSON": "simdjson",
    "PkgConfig::PCRE2": "PCRE2",
    "valijson::valijson": "valijson",
    "Threads::Threads": "Threads",
    "nlohmann_json::nlohmann_json": "nlohmann_json",
    "CLI11::CLI11": "CLI11",
    "entimg::catch_main": "Catch2",
    "PkgConfig::BROTLIENC": "Brotli",
}
# Our own libraries outside contract/, by target: where their link lines are.
OWN_LIBRARIES = {"entimg::common": "entimg_common", "entimg::schema": "entimg_schema",
                 "entimg::catch2": "entimg_catch2"}

# Third-party headers, by the start of their include path, and the library that brings them.
HEADER_LIBRARIES = [
    ("httplib.h", "cpp-httplib"),
    ("openssl/", "OpenSSL"),
    ("zlib.h", "zlib"),
    ("brotli/", "Brotli"),
    ("simdjson.h", "simdjson"),
    ("nlohmann/", "nlohmann_json"),
    ("CLI/", "CLI11"),
    ("catch2/", "Catch2"),
    ("entimg/catch2/", "Catch2"),
    ("pthread.h", "Threads"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
LINK_LINE = re.compile(r"target_link_libraries\(\s*([\w:]+)\s+([^)]*)\)", re.S)
WING_CALL = re.compile(r"entimg_contract_wing\(\s*(\w+)\s+([^)]*)\)", re.S)
PICTURE_LINE = re.compile(r"^  (\w+)\s+.*?\|(.*)$")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def picture(doc_path):
    """The wings top to bottom, each with the set of names after its '|'."""
    text = read(doc_path)
    if MARKER not in text:
        return None, [f"{doc_path}: no '{MARKER}' before the picture"]
    block = text.split(MARKER, 1)[1].split("```", 2)[1]
    wings = []
    for line in block.splitlines():
        m = PICTURE_LINE.match(line)
        if m:
            wings.append((m.group(1), set(m.group(2).split())))
    if not wings:
        return None, [f"{doc_path}: the picture after '{MARKER}' names no wing"]
    return wings, []


def link_lines(cmake_files):
    """target -> {"PUBLIC"|"PRIVATE"|"INTERFACE": [items]} over every target_link_libraries call."""
    links = {}
    for path in cmake_files:
        text = re.sub(r"#[^\n]*", "", read(path))
        for target, body in LINK_LINE.findall(text):
            scope = "PRIVATE"
            entry = links.setdefault(target, {"PUBLIC": [], "PRIVATE": [], "INTERFACE": []})
            for word in body.split():
                if word in entry:
                    scope = word
                else:
                    entry[scope].append(word)
    return links


def wing_target(wing):
    return f"entimg_contract_{wing}"


def tests_target(wing):
    return f"contract_{wing}_tests"


def usable(target_item, links, seen=None):
    """The names a target linked as target_item brings to the files that link it: itself, then the public
    (and interface) items of what it links, transitively."""
    seen = set() if seen is None else seen
    if target_item in seen:
        return set()
    seen.add(target_item)
    out = set()
    if target_item.startswith("entimg::contract::"):
        target = wing_target(target_item.rsplit("::", 1)[1])
        out.add(target_item.rsplit("::", 1)[1])
    else:
        out.add(TARGET_NAMES.get(target_item, target_item))
        target = OWN_LIBRARIES.get(target_item)
    for item in (links.get(target, {}).get("PUBLIC", []) + links.get(target, {}).get("INTERFACE", [])):
        out |= usable(item, links, seen)
    return out


def check(root):
    contract = os.path.join(root, "contract")
    problems = []
    wings, problems = picture(os.path.join(root, "docs", "architecture.md"))
    if wings is None:
        return problems, 0, 0
    order = [w for w, _ in wings]  # top first
    level = {w: len(order) - i for i, w in enumerate(order)}  # higher is further up

    folders = sorted(d for d in os.listdir(contract)
                     if os.path.isfile(os.path.join(contract, d, "CMakeLists.txt")) and d != "tests")
    subdirs = re.findall(r"^add_subdirectory\((\w+)\)", read(os.path.join(contract, "CMakeLists.txt")), re.M)
    subdirs = [s for s in subdirs if s != "tests"]
    if sorted(order) != folders:
        problems.append(f"the picture's wings {sorted(order)} are not contract/'s wing folders {folders}")
    if sorted(subdirs) != folders:
        problems.append(f"contract/CMakeLists.txt adds {sorted(subdirs)}, the wing folders are {folders}")

    cmake_files = [os.path.join(contract, w, "CMakeLists.txt") for w in folders]
    test_folders = [w for w in folders if os.path.isfile(os.path.join(contract, w, "tests", "CMakeLists.txt"))]
    cmake_files += [os.path.join(contract, w, "tests", "CMakeLists.txt") for w in test_folders]
    links = link_lines(cmake_files + [os.path.join(root, "common", "CMakeLists.txt")])

    # Link lines against the picture.
    for i, (wing, names) in enumerate(wings):
        if wing not in folders:
            continue
        below = order[i + 1] if i + 1 < len(order) else None
        entry = links.get(wing_target(wing))
        if entry is None:
            problems.append(f"contract/{wing}/CMakeLists.txt: no target_link_libraries({wing_target(wing)} ...)")
            continue
        items = entry["PUBLIC"] + entry["PRIVATE"] + entry["INTERFACE"]
        linked_wings = [x.rsplit("::", 1)[1] for x in items if x.startswith("entimg::contract::")]
        expected_wings = [below] if below in folders else []
        if sorted(linked_wings) != expected_wings:
            problems.append(f"contract/{wing}/CMakeLists.txt: {wing} links the wings {sorted(linked_wings)}; "
                            f"the picture puts {expected_wings or 'none'} directly below it")
        others = [x for x in items if not x.startswith("entimg::contract::")]
        unknown = [x for x in others if x not in TARGET_NAMES]
        if unknown:
            problems.append(f"contract/{wing}/CMakeLists.txt: {unknown} have no name in architecture.py's "
                            f"TARGET_NAMES: add them there and to the picture")
        named = {TARGET_NAMES.get(x, x) for x in others}
        if named != names:
            problems.append(f"contract/{wing}/CMakeLists.txt: {wing} links {sorted(named)}, its line in the "
                            f"picture says {sorted(names)}")

    # A wing's tests link their wing (and so the wings below it), no wing above, and never the mock.
    for wing in test_folders:
        entry = links.get(tests_target(wing))
        if entry is None:
            problems.append(f"contract/{wing}/tests/CMakeLists.txt: no target_link_libraries({tests_target(wing)} ...)")
            continue
        items = entry["PUBLIC"] + entry["PRIVATE"] + entry["INTERFACE"]
        linked_wings = sorted(x.rsplit("::", 1)[1] for x in items
                              if x.startswith("entimg::contract::") and x.rsplit("::", 1)[1] in folders)
        if linked_wings != [wing]:
            problems.append(f"contract/{wing}/tests/CMakeLists.txt: {tests_target(wing)} links the wings "
                            f"{linked_wings}; a wing's tests link their own wing alone")
        for item in items:
            if item in ("entimg::contract", "entimg::mock") or item.startswith("entimg::mock::"):
                problems.append(f"contract/{wing}/tests/CMakeLists.txt: {tests_target(wing)} links {item}; "
                                f"a wing's tests link their own wing alone (end-to-end tests are in contract/tests/)")

    # Which wing each header belongs to: face headers by their include path, the others by name.
    owner = {}
    for wing in folders:
        face = os.path.join(contract, wing, "include", "entimg", "contract")
        if os.path.isdir(face):
            for name in os.listdir(face):
                owner[f"entimg/contract/{name}"] = wing
        for name in os.listdir(os.path.join(contract, wing)):
            if name.endswith(".hpp"):
                owner[name] = wing

    built = set()
    for path in cmake_files + [os.path.join(contract, "CMakeLists.txt")]:
        text = read(path)
        base = os.path.dirname(path)
        for _, body in WING_CALL.findall(text):
            built |= {os.path.normpath(os.path.join(base, s)) for s in body.split()}
        for body in re.findall(r"add_(?:executable|library)\(\s*[\w-]+\s+([^)]*)\)", text):
            built |= {os.path.normpath(os.path.join(base, s)) for s in body.split() if s.endswith(".cpp")}

    files = includes = 0
    for wing in folders:
        if level.get(wing) is None:
            continue
        allowed_by = {}
        for target in (wing_target(wing), tests_target(wing)):
            allowed_by[target] = set()
            for item in sum(links.get(target, {}).values(), []):
                allowed_by[target] |= usable(item, links)
        tests_dir = os.path.join(contract, wing, "tests")
        for dirpath, _, names in os.walk(os.path.join(contract, wing)):
            in_tests = os.path.commonpath([dirpath, tests_dir]) == tests_dir
            target = tests_target(wing) if in_tests else wing_target(wing)
            allowed = allowed_by[target]
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, name)
                shown = os.path.relpath(path, root)
                files += 1
                if name.endswith(".cpp") and os.path.normpath(path) not in built:
                    problems.append(f"{shown}: built by no target (add it to contract/{wing}/"
                                    f"{'tests/' if in_tests else ''}CMakeLists.txt)")
                for kind, header in INCLUDE.findall(read(path)):
                    includes += 1
                    if header.startswith("entimg/mock/") or header.startswith("mock/"):
                        problems.append(f"{shown}: includes {header}: contract/ never includes mock/")
                        continue
                    home = owner.get(header)
                    if home is not None and level[home] > level[wing]:
                        problems.append(f"{shown}: includes {header} of the wing {home}, above {wing}")
                        continue
                    library = next((lib for prefix, lib in HEADER_LIBRARIES if header.startswith(prefix)), None)
                    if library and library not in allowed:
                        problems.append(f"{shown}: includes {header} ({library}), which {target} does not link")
    return problems, files, includes


BREAKS = [
    ("an upward include of a wing header", "contract/http/secret_mask.cpp", "append",
     '#include "report_text.hpp"\n', "of the wing report, above http"),
    ("an upward include of a face header", "contract/page/links.cpp", "append",
     '#include "entimg/contract/runner.hpp"\n', "of the wing run, above page"),
    ("an include of the mock", "contract/rules/rules.cpp", "append",
     '#include "entimg/mock/dataset.hpp"\n', "contract/ never includes mock/"),
    ("a third-party header the wing does not link", "contract/rules/rules.cpp", "append",
     "#include <httplib.h>\n", "(cpp-httplib), which entimg_contract_rules does not link"),
    ("a link line up the layers", "contract/page/CMakeLists.txt", "replace",
     ("PUBLIC entimg::contract::http", "PUBLIC entimg::contract::http entimg::contract::report"),
     "page links the wings ['http', 'report']"),
    ("a third-party library the picture does not name", "contract/report/CMakeLists.txt", "replace",
     ("PRIVATE entimg::catch2", "PRIVATE entimg::catch2 Threads::Threads"), "report links ['Catch2', 'Threads']"),
    ("two wings swapped in the picture", "docs/architecture.md", "swap", ("  run  ", "  report  "),
     "directly below it"),
    ("a source no target builds", "contract/rules/orphan.cpp", "create", "int orphan() { return 1; }\n",
     "built by no target"),
    ("a wing's test including a header of a wing above", "contract/run/tests/coverage_test.cpp", "append",
     '#include "entimg/contract/report.hpp"\n', "of the wing report, above run"),
    ("a wing's tests linking a wing above", "contract/page/tests/CMakeLists.txt", "replace",
     ("PRIVATE entimg::contract::page", "PRIVATE entimg::contract::page entimg::contract::rules"),
     "contract_page_tests links the wings ['page', 'rules']"),
    ("a wing's tests linking the mock", "contract/app/tests/CMakeLists.txt", "replace",
     ("PRIVATE entimg::contract::app", "PRIVATE entimg::contract::app entimg::mock"),
     "contract_app_tests links entimg::mock"),
    ("a wing's test including a third-party header its program does not link", "contract/run/tests/coverage_test.cpp",
     "append", "#include <httplib.h>\n", "(cpp-httplib), which contract_run_tests does not link"),
    ("a wing's test no program builds", "contract/report/tests/orphan_test.cpp", "create", "int orphan() { return 1; }\n",
     "built by no target (add it to contract/report/tests/CMakeLists.txt)"),
]


def broken_copy(root, where, how, what, into):
    for part in ("contract", "docs"):
        # The end-to-end tests (contract/tests/) are not the wings'; the wings' own tests are.
        shutil.copytree(os.path.join(root, part), os.path.join(into, part),
                        ignore=lambda folder, names: ["tests"] if os.path.basename(folder) == "contract" else [])
    os.makedirs(os.path.join(into, "contract", "tests"))
    os.makedirs(os.path.join(into, "common"))
    shutil.copy(os.path.join(root, "common", "CMakeLists.txt"), os.path.join(into, "common"))
    if where is None:
        return
    path = os.path.join(into, where)
    if how == "create":
        with open(path, "w", encoding="utf-8") as f:
            f.write(what)
        return
    text = read(path)
    if how == "append":
        text += what
    elif how == "replace":
        assert what[0] in text, f"{where} no longer holds {what[0]!r}: update architecture.py's BREAKS"
        text = text.replace(what[0], what[1], 1)
    elif how == "swap":
        lines = text.splitlines(keepends=True)
        a = next(i for i, l in enumerate(lines) if l.startswith(what[0]))
        b = next(i for i, l in enumerate(lines) if l.startswith(what[1]))
        lines[a], lines[b] = lines[b], lines[a]
        text = "".join(lines)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test(root):
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, where, how, what, expected) in enumerate([("nothing", None, None, None, None)] + BREAKS):
            into = os.path.join(tmp, str(i))
            broken_copy(root, where, how, what, into)
            problems, _, _ = check(into)
            if where is None:
                ok = not problems
                print(f"{'ok  ' if ok else 'FAIL'} the copy unbroken passes" +
                      ("" if ok else ": " + "; ".join(problems)))
            else:
                ok = any(expected in p for p in problems)
                print(f"{'ok  ' if ok else 'FAIL'} {label} ({where}) is found" +
                      (f": {next(p for p in problems if expected in p)}" if ok else
                       f": expected a problem saying {expected!r}, got {problems}"))
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
        print(f"{len(problems)} disagreement(s) between docs/architecture.md, contract/*/CMakeLists.txt and "
              f"the includes")
        return 1
    print(f"ok: {files} files, {includes} includes in the wings of docs/architecture.md, as their targets link")
    return 0


if __name__ == "__main__":
    sys.exit(main())

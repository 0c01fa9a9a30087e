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
What this shares with mock/tests/architecture.py is common/tests/layers.py.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import layers  # noqa: E402

MARKER = "<!-- wings: kept true by contract.architecture -->"
WING_CALL = re.compile(r"entimg_contract_wing\(\s*(\w+)\s+([^)]*)\)", re.S)


def tests_target(wing):
    return f"contract_{wing}_tests"


def wing_folders(contract):
    """The folders holding a CMakeLists.txt, and the folders contract/CMakeLists.txt adds."""
    folders = sorted(d for d in os.listdir(contract)
                     if os.path.isfile(os.path.join(contract, d, "CMakeLists.txt")) and d != "tests")
    subdirs = re.findall(r"^add_subdirectory\((\w+)\)", layers.read(os.path.join(contract, "CMakeLists.txt")), re.M)
    subdirs = [s for s in subdirs if s != "tests"]
    return folders, sorted(subdirs)


def check_tests_links(part, wing, folders, problems):
    """A wing's tests link their wing (and so the wings below it), no wing above, and never the mock."""
    entry = part.links.get(tests_target(wing))
    if entry is None:
        problems.append(f"contract/{wing}/tests/CMakeLists.txt: no target_link_libraries({tests_target(wing)} ...)")
        return
    items = layers.linked(entry)
    linked_wings = sorted(part.layer_of(x) for x in items if part.layer_of(x) in folders)
    if linked_wings != [wing]:
        problems.append(f"contract/{wing}/tests/CMakeLists.txt: {tests_target(wing)} links the wings "
                        f"{linked_wings}; a wing's tests link their own wing alone")
    for item in items:
        if item in ("entimg::contract", "entimg::mock") or item.startswith("entimg::mock::"):
            problems.append(f"contract/{wing}/tests/CMakeLists.txt: {tests_target(wing)} links {item}; "
                            f"a wing's tests link their own wing alone (end-to-end tests are in contract/tests/)")


def built_sources(contract, cmake_files):
    """The sources the wings' entimg_contract_wing calls and their programs build (add_executable,
    add_library, target_sources)."""
    built = set()
    for path in cmake_files + [os.path.join(contract, "CMakeLists.txt")]:
        text, base = layers.read(path), os.path.dirname(path)
        for _, body in WING_CALL.findall(text):
            built |= layers.built_paths(base, body.split())
        for body in re.findall(r"(?:add_(?:executable|library)|target_sources)\(\s*[\w-]+\s+([^)]*)\)", text):
            built |= layers.built_paths(base, body.split(), only_cpp=True)
    return built


def in_tests(contract, wing, folder):
    """Whether a folder of the wing holds its tests, checked as their program's (the rest, as the wing's)."""
    tests_dir = os.path.join(contract, wing, "tests")
    return os.path.commonpath([folder, tests_dir]) == tests_dir


def check_wings(part):
    contract = os.path.join(part.root, "contract")
    problems = part.problems
    folders, subdirs = wing_folders(contract)
    part.check_folders(folders)
    if subdirs != folders:
        problems.append(f"contract/CMakeLists.txt adds {subdirs}, the wing folders are {folders}")

    cmake_files = [os.path.join(contract, w, "CMakeLists.txt") for w in folders]
    test_folders = [w for w in folders if os.path.isfile(os.path.join(contract, w, "tests", "CMakeLists.txt"))]
    cmake_files += [os.path.join(contract, w, "tests", "CMakeLists.txt") for w in test_folders]
    part.read_links(cmake_files)
    for i, wing in enumerate(part.order):
        below = part.order[i + 1] if i + 1 < len(part.order) else None
        if wing in folders:
            part.check_link_line(f"contract/{wing}/CMakeLists.txt", wing, [below] if below in folders else [])
    for wing in test_folders:
        check_tests_links(part, wing, folders, problems)

    part.read_owners(folders)
    built = built_sources(contract, cmake_files)
    return part.check_files(
        [w for w in folders if w in part.order], built,
        lambda wing, folder: tests_target(wing) if in_tests(contract, wing, folder) else part.target(wing),
        lambda wing, folder: f"contract/{wing}/{'tests/' if in_tests(contract, wing, folder) else ''}CMakeLists.txt")


check = layers.checker("contract", "wing", MARKER, check_wings)


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
     ("PUBLIC entimg::contract::run)", "PUBLIC entimg::contract::run PRIVATE Threads::Threads)"),
     "report links ['Threads']"),
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
    # The end-to-end tests (contract/tests/) are not the wings'; the wings' own tests are.
    layers.broken_copy(root, "contract", lambda folder, names: ["tests"] if os.path.basename(folder) == "contract"
                       else [], where, how, what, into)


if __name__ == "__main__":
    sys.exit(layers.main(__doc__.splitlines()[0], check, BREAKS, broken_copy, "contract/*/CMakeLists.txt", "wing"))

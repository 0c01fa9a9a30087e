"""What the two layers checkers share (contract/tests/architecture.py, mock/tests/architecture.py).

A part (contract/ or mock/) is drawn in docs/architecture.md as a picture after a marker: its layers top to
bottom, each with the third-party libraries it links besides the layer below. Each layer <name> is the CMake
target entimg_<part>_<name>, linked by others as entimg::<part>::<name>. This module reads the picture, the
link lines, what a linked target lets a file include (transitively, through public links), and each file's
includes; it checks a layer's link line against its line of the picture, breaks copies of the tree for the
self-tests and runs them. What is a part's own (its marker, where its lists are, which sources are built,
its tests' rules, its breaks) stays in the part's script.
"""

import argparse
import os
import re
import shutil
import tempfile

# CMake targets as the pictures name them.
TARGET_NAMES = {
    "entimg::common": "common",
    "entimg::schema": "schema",
    "entimg::catch2": "Catch2",
    "entimg::catch_main": "Catch2",
    "httplib::httplib": "cpp-httplib",
    "OpenSSL::SSL": "OpenSSL",
    "OpenSSL::Crypto": "OpenSSL",
    "ZLIB::ZLIB": "zlib",
    "PkgConfig::BROTLIDEC": "Brotli",
    "PkgConfig::BROTLIENC": "Brotli",
    "PkgConfig::SIMDJSON": "simdjson",
    "PkgConfig::PCRE2": "PCRE2",
    "valijson::valijson": "valijson",
    "Threads::Threads": "Threads",
    "nlohmann_json::nlohmann_json": "nlohmann_json",
    "CLI11::CLI11": "CLI11",
    "EXPAT::EXPAT": "expat",
}
# Our own libraries outside the parts, by target: the name of the target whose link line common/CMakeLists.txt holds.
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
    ("expat.h", "expat"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
LINK_LINE = re.compile(r"target_link_libraries\(\s*([\w:]+)\s+([^)]*)\)", re.S)
PICTURE_LINE = re.compile(r"^  (\w+)\s+.*?\|(.*)$")
OTHER_PART = {"contract": "mock", "mock": "contract"}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def cmake_text(path):
    """A CMake file without its comments."""
    return re.sub(r"#[^\n]*", "", read(path))


def built_paths(base, words, only_cpp=False):
    """The normalised paths of a source list's words, relative to base."""
    return {os.path.normpath(os.path.join(base, w)) for w in words if not only_cpp or w.endswith(".cpp")}


def link_lines(cmake_files):
    """target -> {"PUBLIC"|"PRIVATE"|"INTERFACE": [items]} over every target_link_libraries call."""
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


def linked(entry):
    """Every item of a link line, whatever its scope."""
    return entry["PUBLIC"] + entry["PRIVATE"] + entry["INTERFACE"]


class Part:
    """One part's picture, layers and link lines, and the checks both parts make of them."""

    def __init__(self, root, part, noun, marker):
        """Reads the picture after `marker`; its problems start self.problems (self.order is None if unread)."""
        self.root, self.part, self.noun, self.marker = root, part, noun, marker
        self.prefix = f"entimg::{part}::"
        self.layers = self.order = None
        self.links = {}
        self.owner = {}
        self.problems = self.read_picture()

    def target(self, layer):
        return f"entimg_{self.part}_{layer}"

    def layer_of(self, item):
        """The layer an item of a link line names, or None."""
        return item[len(self.prefix):] if item.startswith(self.prefix) else None

    def read_picture(self):
        """Reads the layers top to bottom, each with the set of names after its '|'; returns the problems."""
        doc_path = "docs/architecture.md"
        doc = read(os.path.join(self.root, doc_path))
        if self.marker not in doc:
            return [f"{doc_path}: no '{self.marker}' before the picture"]
        block = doc.split(self.marker, 1)[1].split("```", 2)[1]
        self.layers = [(m.group(1), set(m.group(2).split())) for m in map(PICTURE_LINE.match, block.splitlines())
                       if m]
        if not self.layers:
            return [f"{doc_path}: the picture after '{self.marker}' names no {self.noun}"]
        self.order = [name for name, _ in self.layers]  # top first
        return []

    def check_folders(self, folders):
        if sorted(self.order) != folders:
            self.problems.append(f"the picture's {self.noun}s {sorted(self.order)} are not {self.part}/'s "
                                 f"{self.noun} folders {folders}")

    def read_links(self, cmake_files):
        self.links = link_lines(cmake_files + [os.path.join(self.root, "common", "CMakeLists.txt")])

    def usable(self, item, seen):
        """The names linking `item` lets a file include: its own, then what it links publicly, transitively."""
        if item in seen:
            return set()
        seen.add(item)
        layer = self.layer_of(item)
        if layer is not None:
            name, target = layer, self.target(layer)
        else:
            name, target = TARGET_NAMES.get(item, item), OWN_LIBRARIES.get(item)
        entry = self.links.get(target, {})
        out = {name}
        for public in entry.get("PUBLIC", []) + entry.get("INTERFACE", []):
            out |= self.usable(public, seen)
        return out

    def allowed(self, target):
        """Everything a file of `target` may include, by the pictures' names."""
        out = set()
        for item in sum(self.links.get(target, {}).values(), []):
            out |= self.usable(item, set())
        return out

    def check_link_line(self, where, layer, below):
        """The layer's link line against the picture: the layer below alone, and its line's libraries."""
        entry = self.links.get(self.target(layer))
        if entry is None:
            self.problems.append(f"{where}: no target_link_libraries({self.target(layer)} ...)")
            return
        items = linked(entry)
        layers = sorted(self.layer_of(x) for x in items if self.layer_of(x) is not None)
        if layers != below:
            self.problems.append(f"{where}: {layer} links the {self.noun}s {layers}; the picture puts "
                                 f"{below or 'none'} directly below it")
        others = [x for x in items if self.layer_of(x) is None]
        unknown = [x for x in others if x not in TARGET_NAMES]
        if unknown:
            self.problems.append(f"{where}: {unknown} have no name in common/tests/layers.py's TARGET_NAMES: "
                                 f"add them there and to the picture")
        named = {TARGET_NAMES.get(x, x) for x in others}
        pictured = dict(self.layers)[layer]
        if named != pictured:
            self.problems.append(f"{where}: {layer} links {sorted(named)}, its line in the picture says "
                                 f"{sorted(pictured)}")

    def read_owners(self, folders):
        """Which layer each header belongs to: face headers by their include path, the others by name."""
        face_dir = os.path.join("include", "entimg", self.part)
        for layer in folders:
            for dirpath, _, names in os.walk(os.path.join(self.root, self.part, layer)):
                face = dirpath.endswith(face_dir)
                self.owner.update({(f"entimg/{self.part}/{n}" if face else n): layer
                                   for n in names if n.endswith(".hpp")})

    def check_files(self, layers, built, target_of, unbuilt_hint):
        """Every source and header of the layers' folders: built by some target (else unbuilt_hint(layer,
        folder) says where to add it), and its includes as the target target_of(layer, folder) may have them.
        Returns how many files and includes it read."""
        allowed = {}
        files = includes = 0
        for layer in layers:
            for dirpath, _, names in os.walk(os.path.join(self.root, self.part, layer)):
                target = target_of(layer, dirpath)
                if target not in allowed:
                    allowed[target] = self.allowed(target)
                for name in sorted(n for n in names if n.endswith((".cpp", ".hpp"))):
                    path = os.path.join(dirpath, name)
                    files += 1
                    if name.endswith(".cpp") and os.path.normpath(path) not in built:
                        self.problems.append(f"{os.path.relpath(path, self.root)}: built by no target (add it to "
                                             f"{unbuilt_hint(layer, dirpath)})")
                    includes += self.check_file(path, layer, target, allowed[target])
        return files, includes

    def check_file(self, path, layer, target, allowed):
        """A file's includes: nothing of the other part, no header of a layer above, no third-party header
        its target cannot use. Returns how many includes it has."""
        shown = os.path.relpath(path, self.root)
        other = OTHER_PART[self.part]
        includes = INCLUDE.findall(read(path))
        for _, header in includes:
            home = self.owner.get(header)
            library = next((lib for prefix, lib in HEADER_LIBRARIES if header.startswith(prefix)), None)
            if header.startswith((f"entimg/{other}/", f"{other}/")):
                self.problems.append(f"{shown}: includes {header}: {self.part}/ never includes {other}/")
            elif home is not None and self.order.index(home) < self.order.index(layer):
                self.problems.append(f"{shown}: includes {header} of the {self.noun} {home}, above {layer}")
            elif library and library not in allowed:
                self.problems.append(f"{shown}: includes {header} ({library}), which {target} does not link")
        return len(includes)


def checker(part, noun, marker, check_part):
    """check(root) -> (problems, files read, includes read): reads the picture after `marker`, then, if there
    is one, check_part(Part), which adds its problems to the Part's and returns how many files and includes
    it read."""
    def check(root):
        layers = Part(root, part, noun, marker)
        files, includes = (0, 0) if layers.order is None else check_part(layers)
        return layers.problems, files, includes
    return check


def broken_copy(root, part, ignore, where, how, what, into):
    """Copies the part, docs/ and common/CMakeLists.txt into `into`, then breaks `where` as `how` says:
    "create" a file holding `what`, "append" `what`, "replace" what[0] by what[1], or "swap" the lines
    starting with what[0] and what[1]."""
    shutil.copytree(os.path.join(root, part), os.path.join(into, part), ignore=ignore)
    shutil.copytree(os.path.join(root, "docs"), os.path.join(into, "docs"))
    os.makedirs(os.path.join(into, "common"))
    shutil.copy(os.path.join(root, "common", "CMakeLists.txt"), os.path.join(into, "common"))
    if where is None:
        return
    path = os.path.join(into, where)
    text = "" if how == "create" else read(path)
    if how in ("append", "create"):
        text += what
    elif how == "replace":
        assert what[0] in text, f"{where} no longer holds {what[0]!r}: update {part}/tests/architecture.py's BREAKS"
        text = text.replace(what[0], what[1], 1)
    elif how == "swap":
        lines = text.splitlines(keepends=True)
        a, b = (next(i for i, line in enumerate(lines) if line.startswith(w)) for w in what)
        lines[a], lines[b] = lines[b], lines[a]
        text = "".join(lines)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test(root, check, breaks, copy):
    """Checks an unbroken copy (it must pass), then a copy broken each way (each must be found)."""
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, where, how, what, expected) in enumerate([("nothing", None, None, None, None)] + breaks):
            into = os.path.join(tmp, str(i))
            copy(root, where, how, what, into)
            problems, _, _ = check(into)
            if where is None:
                ok = not problems
                print(f"{'ok  ' if ok else 'FAIL'} the copy unbroken passes" +
                      ("" if ok else ": " + "; ".join(problems)))
            else:
                found = [p for p in problems if expected in p]
                ok = bool(found)
                print(f"{'ok  ' if ok else 'FAIL'} {label} ({where}) is found" +
                      (f": {found[0]}" if ok else f": expected a problem saying {expected!r}, got {problems}"))
            failed += not ok
    return failed


def main(description, check, breaks, copy, read_from, noun):
    """The command line both checkers share: --root, --self-test; exit 1 on any problem."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--root", required=True, help="the project's source folder")
    parser.add_argument("--self-test", action="store_true", help="break copies of the tree; each must fail")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if args.self_test:
        failed = self_test(root, check, breaks, copy)
        print(f"{len(breaks) + 1 - failed} of {len(breaks) + 1} as expected")
        return 1 if failed else 0
    problems, files, includes = check(root)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print(f"{len(problems)} disagreement(s) between docs/architecture.md, {read_from} and the includes")
        return 1
    print(f"ok: {files} files, {includes} includes in the {noun}s of docs/architecture.md, as their targets link")
    return 0

#!/usr/bin/python3
"""No production function over 60 lines (issue 18; STYLE.md habit 13: a long function holds two things).

Universal Ctags finds every function definition and where it ends, in C++ and in the JavaScript the npm
package ships; the test fails naming each function longer than the limit. Production code is everything
under common/, mock/ and contract/ that is not in a tests/ folder. Lambdas count towards the function that
holds them.

  function_length.py --root DIR            check the tree at DIR
  function_length.py --root DIR --self-test   show the check failing on functions one line too long
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

LIMIT = 60
PARTS = ("common", "mock", "contract")
SOURCE_ENDINGS = (".cpp", ".hpp", ".js", ".mjs")
SKIPPED_FOLDERS = {"tests", "node_modules", "build"}


def production_sources(root):
    for part in PARTS:
        for folder, subfolders, files in os.walk(os.path.join(root, part)):
            subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith("."))
            for name in sorted(files):
                if name.endswith(SOURCE_ENDINGS):
                    yield os.path.join(folder, name)


def cpp_functions(paths):
    """(lines, path, first line, name) of every C++ function definition ctags finds in paths."""
    ctags = shutil.which("ctags")
    if ctags is None:
        sys.exit("function_length: ctags not found: install universal-ctags (bash ci/setup.sh does)")
    command = [ctags, "--output-format=json", "--fields=+ne", "--languages=C++", "--kinds-C++=f", "-o", "-",
               "-L", "-"]
    done = subprocess.run(command, input="\n".join(paths), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"function_length: ctags failed ({done.returncode}): {done.stderr.strip()}")
    for line in done.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag" and "end" in tag:
            # An anonymous namespace is a generated name (__anon…): left out of what a person reads.
            scope = "::".join(p for p in tag.get("scope", "").split("::") if p and not p.startswith("__anon"))
            name = f"{scope}::{tag['name']}" if scope else tag["name"]
            yield tag["end"] - tag["line"] + 1, tag["path"], tag["line"], name


def js_functions(paths, node):
    """The same for JavaScript, through acorn (ctags does not tell where a JavaScript function ends)."""
    if not paths:
        return
    environment = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js_function_lengths.js")
    done = subprocess.run([node, script, *paths], capture_output=True, text=True, check=False, env=environment)
    if done.returncode != 0:
        sys.exit(f"function_length: reading JavaScript failed ({done.returncode}): {done.stderr.strip()}")
    for line in done.stdout.splitlines():
        tag = json.loads(line)
        yield tag["end"] - tag["line"] + 1, tag["path"], tag["line"], tag["name"]


def functions(paths, node):
    yield from cpp_functions([p for p in paths if p.endswith((".cpp", ".hpp"))])
    yield from js_functions([p for p in paths if p.endswith((".js", ".mjs"))], node)


def too_long(root, node):
    paths = list(production_sources(root))
    if not paths:
        sys.exit(f"function_length: no production source under {root}: wrong --root?")
    found = [f for f in functions(paths, node) if f[0] > LIMIT]
    return len(paths), sorted(found, key=lambda f: (f[1], f[2]))


def check(root, node):
    count, found = too_long(root, node)
    for lines, path, line, name in found:
        print(f"{os.path.relpath(path, root)}:{line}: {name} is {lines} lines (at most {LIMIT}): "
              "name its steps as functions")
    if found:
        print(f"function_length: {len(found)} production function(s) over {LIMIT} lines in {count} files")
        return 1
    print(f"function_length: no production function over {LIMIT} lines in {count} files")
    return 0


def body(lines):
    return "".join(f"  step({i});\n" for i in range(lines - 2))


def self_test(node):
    """A tree whose functions are exactly at and one over the limit, in each shape the code uses."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "mock", "src"))
        os.makedirs(os.path.join(root, "mock", "tests"))
        os.makedirs(os.path.join(root, "contract", "run"))
        os.makedirs(os.path.join(root, "mock", "npm"))
        with open(os.path.join(root, "mock", "src", "a.cpp"), "w") as f:
            f.write("void fits() {\n" + body(LIMIT) + "}\n")
            f.write("void too_long() {\n" + body(LIMIT + 1) + "}\n")
            f.write("namespace n {\nint Thing::member(int x) const {\n" + body(LIMIT + 1) + "}\n}\n")
        with open(os.path.join(root, "contract", "run", "b.hpp"), "w") as f:
            f.write("struct S {\n  void inline_member() {\n" + body(LIMIT + 1) + "  }\n};\n")
            f.write("inline auto with_lambda() {\n  auto l = [] {\n" + body(LIMIT) + "  };\n  return l;\n}\n")
        with open(os.path.join(root, "mock", "tests", "c_test.cpp"), "w") as f:
            f.write("void long_test() {\n" + body(LIMIT + 10) + "}\n")  # tests are not production
        with open(os.path.join(root, "mock", "npm", "d.js"), "w") as f:
            f.write("export function jsTooLong() {\n" + body(LIMIT + 1).replace("step", "call") + "}\n")
            f.write("const jsFits = () => {\n" + body(LIMIT).replace("step", "call") + "};\n")
        _, found = too_long(root, node)
        names = sorted(name.split("::")[-1] for _, _, _, name in found)
        expected = sorted(["too_long", "member", "inline_member", "with_lambda", "jsTooLong"])
        if names != expected:
            print(f"function_length self-test: found {names}, expected {expected}")
            return 1
        print(f"function_length self-test: {len(expected)} of {len(expected)} too-long functions found, "
              "none at the limit, none in tests/")
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="the repository's root")
    parser.add_argument("--node", default="node", help="the Node.js that reads the JavaScript (acorn)")
    parser.add_argument("--self-test", action="store_true", help="check the check on a made-up tree")
    arguments = parser.parse_args()
    return self_test(arguments.node) if arguments.self_test else check(os.path.abspath(arguments.root), arguments.node)


if __name__ == "__main__":
    sys.exit(main())

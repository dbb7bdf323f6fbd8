#!/usr/bin/env python3
"""Writes compat-matrix/tables/stdlib-history.txt: which Python versions have each module of the
standard library and each name a module defines, where that changed between versions.

Usage: compat-matrix/tools/stdlib_history.py > compat-matrix/tables/stdlib-history.txt

explain reads `No module named 'distutils'`, `module 'collections' has no attribute 'Mapping'`,
`name 'xrange' is not defined` against it: the Pythons that have the name, and so whether the one
that ran is the one the code was written for. The facts are typeshed's standard-library stubs,
the description of the standard library that type checkers (mypy, pyright) check code against,
per Python version: `stdlib/VERSIONS` gives each module's first and last version, and the stubs
say which names exist in which version with `if sys.version_info >= (3, 10):` blocks. They are
read from the copies mypy ships in its wheels on PyPI. typeshed drops the conditions for a
Python it no longer supports, so three mypy releases are read, each for the versions it still
described (SNAPSHOTS); at each version where two snapshots meet, a name they disagree on is
written as not known rather than as a change.

Python 2.7 comes from mypy 0.910, the last typeshed with Python 2 stubs (`stdlib/@python2`, and
the shared stubs evaluated for 2.7). A stub leaves out some names a module has at run time; a
name no stub of any version lists has no row, and explain then judges nothing from the table.

The output has the shape of name-history.txt, so one reader reads both: one block per top-level
module, `@ python MODULE VERSION...`, then `m MODULE RUNS` for a module (or submodule) not in
every version, and `n MODULE RUNS NAME...` for names not in every version where MODULE exists
(`.` where it does not). `builtins` holds Python 2's `__builtin__` for 2.7.
"""

import ast
import io
import json
import urllib.parse
import zipfile
from collections import defaultdict
from pathlib import PurePosixPath

# The table has name-history.txt's shape: its run-length writer and its PyPI reader are that tool's.
from name_history import API, fetch, runs

# (mypy release, the Python versions its typeshed is read for, the versions it also describes,
# for the cross-check where snapshots meet).
SNAPSHOTS = [
    ("0.910", ["2.7", "3.6", "3.7", "3.8"], ["3.9"]),
    ("1.19.1", ["3.9"], ["3.10"]),
    ("2.4.1", ["3.10", "3.11", "3.12", "3.13", "3.14", "3.15"], []),
]
STUBS = "mypy/typeshed/stdlib/"
# Python 2 modules with no submodules, whose Python 3 namesakes are packages
# (https://peps.python.org/pep-3108/): a submodule of theirs is Python 3's.
PYTHON2_WITHOUT_SUBMODULES = {"urllib", "dbm", "importlib"}


def version_tuple(text):
    major, minor = text.split(".")
    return (int(major), int(minor))


def wheel(release):
    """The files of mypy `release`'s typeshed: path under stdlib/ -> source."""
    api = API.format("mypy")
    files = json.loads(fetch(api))["releases"][release]
    # Every wheel of a release ships the same stubs; a pure one where there is one.
    wheels = sorted((f for f in files if f["filename"].endswith(".whl")), key=lambda f: "none-any" not in f["filename"])
    # A mirror may give file addresses relative to the page.
    archive = zipfile.ZipFile(io.BytesIO(fetch(urllib.parse.urljoin(api, wheels[0]["url"]))))
    return {
        name[len(STUBS):]: archive.read(name).decode()
        for name in archive.namelist()
        if name.startswith(STUBS) and (name.endswith(".pyi") or name.endswith("VERSIONS"))
    }


def ranges(versions_file):
    """VERSIONS: module -> (first, last or None)."""
    found = {}
    for line in versions_file.splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        module, span = line.split(":")
        first, _, last = span.strip().partition("-")
        found[module.strip()] = (version_tuple(first), version_tuple(last) if last else None)
    return found


def module_range(module, spans, newest_spans):
    """A submodule not listed has its parent's lifetime. Older snapshots list top-level modules
    only: a submodule the newest snapshot lists (importlib.metadata: 3.8-) has its span there."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        span = spans.get(name) or (newest_spans.get(name) if "." in name else None)
        if span:
            return span
    return None


class Bound:
    """The names one stub binds, as a type checker reads them."""

    def __init__(self):
        self.defined = set()
        self.imported = set()
        self.listed = set()
        self.has_all = False


class Stubs:
    """One snapshot's stubs, evaluated for one Python version."""

    def __init__(self, files, version, newest, every_branch=False):
        self.version = version
        # Every branch of every test taken: the names a stub mentions at all.
        self.every_branch = every_branch
        self.python2 = version < (3, 0)
        self.spans = ranges(files["VERSIONS"])
        self.newest_spans = ranges(newest["VERSIONS"])
        self.sources = {}
        # Python 2's own stub (`@python2/`) wins over the shared one of the same module.
        for path, source in sorted(files.items(), key=lambda item: item[0].startswith("@python2/")):
            if not path.endswith(".pyi"):
                continue
            if path.startswith("@python2/"):
                if self.python2:
                    self.sources[self.module_of(path[len("@python2/"):])] = (source, True)
            else:
                self.sources[self.module_of(path)] = (source, False)
        self.cache = {}
        self.listed = {}

    @staticmethod
    def module_of(path):
        parts = list(PurePosixPath(path).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    def modules(self):
        found = set()
        # A module Python 2 has a stub of its own for is Python 2's whole: the shared stubs of
        # its submodules (urllib.parse under Python 2's urllib) are Python 3's.
        python2_tops = {module.split(".")[0] for module, (_, py2) in self.sources.items() if py2}
        for module, (_, py2) in self.sources.items():
            if py2:
                found.add(module)
                continue
            if self.python2 and module.split(".")[0] in python2_tops:
                continue
            span = module_range(module, self.spans, self.newest_spans)
            if span and span[0] <= self.version and (span[1] is None or self.version <= span[1]):
                found.add(module)
        if self.python2 and "__builtin__" in found:
            # Python 2 calls `builtins` `__builtin__`; the table speaks of `builtins`.
            found.add("builtins")
        return found

    def names(self, module):
        """The names `module` has: what its stub defines, what it re-exports (`import x as x`,
        `from m import x as x`, `from m import *`), and what it imports and lists in `__all__`."""
        if module in self.cache:
            return self.cache[module]
        self.cache[module] = set()
        source, _ = self.sources[module]
        bound = Bound()
        self.walk(ast.parse(source).body, module, bound)
        names = bound.defined | (bound.imported & bound.listed)
        self.cache[module] = names
        self.listed[module] = bound.listed if bound.has_all else None
        return names

    def star(self, module):
        """What `from module import *` binds: its `__all__`, else its public names."""
        names = self.names(module)
        listed = self.listed.get(module)
        return set(listed) & names if listed is not None else {name for name in names if not name.startswith("_")}

    def condition(self, test):
        """True, False, or None where the test is not about the version."""
        if self.every_branch:
            return None
        if isinstance(test, ast.BoolOp):
            values = [self.condition(value) for value in test.values]
            if isinstance(test.op, ast.And):
                if False in values:
                    return False
                return True if all(v is True for v in values) else None
            if True in values:
                return True
            return False if all(v is False for v in values) else None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            value = self.condition(test.operand)
            return None if value is None else not value
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and ast.unparse(test.left) in ("sys.version_info", "sys.version_info[0]", "sys.version_info[:2]")
            and isinstance(test.comparators[0], (ast.Tuple, ast.Constant))
        ):
            right = ast.literal_eval(test.comparators[0])
            left = self.version if ast.unparse(test.left) != "sys.version_info[0]" else self.version[0]
            if isinstance(right, tuple):
                left = left[: len(right)]
            op = test.ops[0]
            return {
                ast.GtE: left >= right,
                ast.Gt: left > right,
                ast.Lt: left < right,
                ast.LtE: left <= right,
                ast.Eq: left == right,
                ast.NotEq: left != right,
            }.get(type(op))
        return None

    def walk(self, body, module, bound):
        for node in body:
            if isinstance(node, ast.If):
                value = self.condition(node.test)
                # A platform or other test: the name exists on some platform.
                if value is not False:
                    self.walk(node.body, module, bound)
                if value is not True:
                    self.walk(node.orelse, module, bound)
            elif isinstance(node, ast.Try):
                self.walk(node.body, module, bound)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id == "__all__":
                        bound.has_all = True
                        bound.listed |= {
                            item.value
                            for item in getattr(node.value, "elts", [])
                            if isinstance(item, ast.Constant) and isinstance(item.value, str)
                        }
                    elif isinstance(target, ast.Name):
                        bound.defined.add(target.id)
            elif hasattr(ast, "TypeAlias") and isinstance(node, ast.TypeAlias):
                bound.defined.add(node.name.id)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    # A stub re-exports only `import x as x`.
                    (bound.defined if alias.asname == alias.name else bound.imported).add(name)
            elif isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                for alias in node.names:
                    if alias.name == "*":
                        if source in self.sources:
                            bound.defined |= self.star(source)
                        continue
                    name = alias.asname or alias.name
                    # `from m import x as x` re-exports, and so does a relative import of a
                    # submodule (a package's `from . import sub` makes `sub` its attribute).
                    reexported = alias.asname == alias.name or (
                        node.level and alias.asname is None and self.is_submodule(source, alias.name)
                    )
                    (bound.defined if reexported else bound.imported).add(name)

    def is_submodule(self, package, name):
        return f"{package}.{name}" in self.sources

    def absolute(self, module, node):
        if not node.level:
            return node.module
        package = module if self.is_package(module) else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        return f"{package}.{node.module}" if node.module else package

    def is_package(self, module):
        return any(other.startswith(module + ".") for other in self.sources)


def main():
    versions = []
    modules = {}  # version -> set of modules
    names = {}  # version -> module -> names
    doubts = defaultdict(set)  # version -> (module, name) the snapshots disagree on
    snapshot_files = {release: wheel(release) for release, _, _ in SNAPSHOTS}
    newest = snapshot_files[SNAPSHOTS[-1][0]]
    newest_spans = ranges(newest["VERSIONS"])
    # How late a version's stubs are: Python 2's own, then each snapshot's.
    rank = {}
    # version -> module -> every name its stub mentions, under any condition.
    mentioned = {}
    for index, (release, read_for, also) in enumerate(SNAPSHOTS):
        files = snapshot_files[release]
        for text in read_for:
            version = version_tuple(text)
            stubs = Stubs(files, version, newest)
            versions.append(text)
            rank[text] = 0 if version < (3, 0) else index + 1
            modules[text] = stubs.modules()
            names[text] = {module: stubs.names(module) for module in modules[text]}
            everything = Stubs(files, version, newest, every_branch=True)
            mentioned[text] = {module: everything.names(module) for module in modules[text]}
    # Where two snapshots describe one version, a difference is a change of the stubs, not of Python.
    for release, _, also in SNAPSHOTS:
        for text in also:
            stubs = Stubs(snapshot_files[release], version_tuple(text), newest)
            for module in stubs.modules() & modules[text]:
                for name in stubs.names(module) ^ names[text][module]:
                    doubts[text].add((module, name))
            for module in stubs.modules() ^ modules[text]:
                doubts[text].add((module, None))

    # Python 2's stubs are a partial set (no _ctypes, no json.decoder): a module they lack is
    # not known in 2.7, except a submodule of the modules that were one file in Python 2 and
    # became packages in Python 3 (PEP 3108: urllib, dbm) or had no submodules (importlib's 2.7
    # backport of import_module).
    python2 = SNAPSHOTS[0][1][0]
    for module in set().union(*modules.values()) - modules[python2]:
        top = module.split(".")[0]
        if not ("." in module and top in PYTHON2_WITHOUT_SUBMODULES):
            doubts[python2].add((module, None))

    def module_present(module, version):
        # For Python 3, the newest VERSIONS file says when a module came and went: an older
        # snapshot without a stub for it (_lzma, _sqlite3) is silent, not a witness of absence.
        span = module_range(module, newest_spans, newest_spans) if rank[version] else None
        if span is None:
            return module in modules[version]
        first, last = span
        return first <= version_tuple(version) and (last is None or version_tuple(version) <= last)

    def name_known_absent(module, name, version):
        # Absent where the stub mentions the name under some condition (it dates it), or where
        # no later stubs have it either; a name only later stubs list is not known here.
        if name in mentioned[version].get(module, ()):
            return True
        return not any(rank[v] > rank[version] and name in names[v].get(module, ()) for v in versions)
    # typeshed's own helper modules are no Python's.
    every_module = sorted(module for module in set().union(*modules.values()) if module.split(".")[0] != "_typeshed")
    by_root = defaultdict(list)
    for module in every_module:
        by_root[module.split(".")[0]].append(module)

    print("# Generated by compat-matrix/tools/stdlib_history.py from typeshed's standard-library stubs")
    print("# as mypy " + ", ".join(r for r, _, _ in SNAPSHOTS) + " ship them; do not edit by hand (see the tool's docstring).")
    print("#")
    print("# `@ python MODULE VERSION...`: a top-level module and the Python versions read, oldest first.")
    print("# `m MODULE RUNS`: a module not in every version. `n MODULE RUNS NAME...`: names of MODULE")
    print("# not in every version where MODULE is. RUNS walk the versions: `+N` N have it, `-N` N lack it,")
    print("# `.N` N not known (the module absent there, or the snapshots meeting there disagree).")
    for root in sorted(by_root, key=str.lower):
        lines = []
        for module in by_root[root]:
            present = [module_present(module, v) for v in versions]
            marks = ["." if (module, None) in doubts[v] else "+" if here else "-" for v, here in zip(versions, present)]
            if "-" in marks:
                lines.append(f"m {module} {runs(marks)}")
            rows = defaultdict(list)
            every_name = set().union(*(names[v][module] for v in versions if module in modules[v]))
            # A private name is a stub's own helper (its TypeVars, its aliases) far more often
            # than a name of the module's a job uses.
            for name in sorted(name for name in every_name if not name.startswith("_")):
                marks = []
                for v in versions:
                    if module not in modules[v] or (module, name) in doubts[v]:
                        marks.append(".")
                    elif name in names[v][module]:
                        marks.append("+")
                    else:
                        marks.append("-" if name_known_absent(module, name, v) else ".")
                if "-" in marks:
                    rows[runs(marks)].append(name)
            for run, listed in sorted(rows.items()):
                lines.append(f"n {module} {run} {' '.join(listed)}")
        if lines:
            print(f"@ python {root} {' '.join(versions)}")
            print("\n".join(lines))


if __name__ == "__main__":
    main()

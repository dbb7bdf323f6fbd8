#!/usr/bin/env python3
"""Writes compat-matrix/tables/name-history.txt: for each distribution listed in
compat-matrix/tools/name-history-list.txt, which of its releases have each module and each public
name a module defines, where that changed between releases.

Usage: compat-matrix/tools/name_history.py [LIST] > compat-matrix/tables/name-history.txt
       compat-matrix/tools/name_history.py --keywords [LIST] > compat-matrix/tables/keyword-history.txt

explain reads `cannot import name 'X' from 'pkg.mod'`, `module 'pkg' has no attribute 'X'` and
`No module named 'pkg.mod'` against it: the releases that have the name, and so the one a job
written for it needs. The facts are the files users install: every final release's wheel (or
sdist) on PyPI, read with Python's own parser. Releases read: the first and the last of each
minor release line (X.Y.0 and X.Y.last), which is where names come and go in practice; a patch
between them is taken to agree with its neighbours, and explain says so when it judges one.

A module's names are what `from module import NAME` can find: its top-level definitions,
assignments and imports (also those under `if` and `try`), the names a `from X import *` of a
module of the same distribution brings, and the submodules a package's `__init__` imports. A
module whose names are partly built at run time (a module-level `__getattr__`, a `from X import *`
of a compiled module or of another distribution) has the names its source defines, and the
absence of any other is not known in that release; one built wholly at run time (transformers'
lazy modules) or whose source does not parse is not known at all.

With `--keywords` it writes keyword-history.txt instead: for the same releases, the keyword
arguments of each public function and public class method (signatures.py says which), in rows
`k MODULE CALLABLE RUNS KEYWORD...` where some release takes a keyword and another refuses it.

Wheels of hundreds of megabytes (torch, tensorflow) are not downloaded: their zip directory and
the byte ranges that hold their `.py` members are read with HTTP range requests (a few MB).
"""

import ast
import io
import json
import re
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import signatures
from pip._vendor.packaging.version import InvalidVersion, Version
from wheel_range import remote_wheel

LIST = Path(__file__).with_name("name-history-list.txt")

API = "https://pypi.org/pypi/{}/json"
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Files past this size are not read whole: a wheel is then read by ranges (below), and an sdist
# is left out of the releases read, so its neighbours decide for it where they agree, as for a
# patch release between them.
SIZE_LIMIT = 600 << 20
# Wheels past this size are read by ranges: the zip directory, then the spans holding `.py`
# members (wheel_range.py).
RANGED_ABOVE = 64 << 20
LAZY_MARKS = ("_LazyModule", "lazy_loader", "lazy.attach(", "LazyImportModule")
# Runs of the row strings: present, absent, not known (not read, built at run time, or the
# module missing or compiled in that release).
PRESENT, ABSENT, UNKNOWN = "+", "-", "."
# Not known because the module's names are partly built at run time: written as UNKNOWN, but
# unlike a module missing from a release it is reason for a row.
OPEN = "?"


def fetch(url):
    with urllib.request.urlopen(url, timeout=300) as response:
        return response.read()


def selected_releases(index):
    """Final releases with files, oldest first: X.Y.0 and the last X.Y.Z of each minor line."""
    finals = []
    for text, files in index["releases"].items():
        files = [file for file in files if not file.get("yanked")]
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if files and not version.is_prerelease and not version.is_devrelease:
            finals.append((version, text, files))
    finals.sort(key=lambda item: item[0])
    lines = {}
    for item in finals:
        lines.setdefault(item[0].release[:2], []).append(item)
    chosen = []
    for line in lines.values():
        chosen.append(line[0])
        if len(line) > 1:
            chosen.append(line[-1])
    return chosen


def pick_file(files):
    """A pure-Python wheel, else a CPython Linux x86_64 wheel, else any wheel, else the sdist."""
    wheels = [file for file in files if file["packagetype"] == "bdist_wheel"]
    for test in (
        lambda name: name.endswith("-any.whl"),
        lambda name: "x86_64" in name and "linux" in name and "-cp3" in name,
        lambda name: "x86_64" in name and "linux" in name,
        lambda name: True,
    ):
        for file in wheels:
            if test(file["filename"]):
                return file
    return next((file for file in files if file["packagetype"] == "sdist"), None)


def sources(archive, filename):
    """The release's files as (path inside the installed tree, bytes or None for compiled)."""
    if isinstance(archive, zipfile.ZipFile):
        members = [(info.filename, info) for info in archive.infolist() if not info.is_dir()]
        read = archive.read
    else:
        members = [(member.name, member) for member in archive.getmembers() if member.isfile()]
        read = lambda member: archive.extractfile(member).read()  # noqa: E731
    is_sdist = not filename.endswith(".whl")
    for name, member in members:
        parts = name.split("/")
        if is_sdist:
            parts = parts[1:]
            if parts[:1] == ["src"]:
                parts = parts[1:]
        elif parts[0].endswith(".data") and len(parts) > 2 and parts[1] in ("purelib", "platlib"):
            parts = parts[2:]
        path = "/".join(parts)
        if path.endswith(".py"):
            yield path, read(member)
        elif path.endswith((".so", ".pyd")):
            yield path, None


def module_name(path, roots):
    """The dotted module a file is, where it is under one of the distribution's import roots."""
    parts = path.split("/")
    last = parts[-1]
    if last.endswith(".py"):
        stem = last[:-3]
    else:
        stem = last.split(".")[0]
    parts = parts[:-1] + ([] if stem == "__init__" else [stem])
    if not parts or not all(IDENTIFIER.fullmatch(part) for part in parts):
        return None
    if "tests" in parts or "test" in parts:
        return None
    dotted = ".".join(parts)
    for root in roots:
        if dotted == root or dotted.startswith(root + "."):
            return dotted
    return None


def assigned_names(target):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from assigned_names(element)


def read_module(source, module, is_package):
    """(names, names it only imports, star imports as absolute modules, dynamic, `__all__` where
    a literal) of one module's source; None where its names are not known at all."""
    text = source.decode("utf-8", "replace")
    if any(mark in text for mark in LAZY_MARKS):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        # Python 2 sources among old releases: not read, so not known.
        return None
    names, imported, stars, dynamic, declared = set(), set(), [], False, None
    for statement in signatures.nested(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
            if statement.name == "__getattr__" and not isinstance(statement, ast.ClassDef):
                dynamic = True
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                names.update(assigned_names(target))
                if isinstance(target, ast.Name) and target.id == "__all__":
                    try:
                        value = ast.literal_eval(statement.value)
                        declared = {item for item in value if isinstance(item, str)}
                    except (ValueError, TypeError, SyntaxError):
                        declared = None
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            names.update(assigned_names(statement.target))
            # `__all__ += [...]`: the literal seen is not the whole list.
            if isinstance(statement, ast.AugAssign) and getattr(statement.target, "id", None) == "__all__":
                declared = None
        elif (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute)
            and getattr(statement.value.func.value, "id", None) == "__all__"
        ):
            # `__all__.extend(...)`, `__all__.append(...)`: likewise.
            declared = None
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                imported.add(alias.asname or alias.name.split(".")[0])
                # `import pkg.sub` inside pkg makes sub an attribute of pkg.
                if alias.asname is None and alias.name.startswith(module + "."):
                    names.add(alias.name[len(module) + 1 :].split(".")[0])
        elif isinstance(statement, ast.ImportFrom):
            source_module = signatures.absolute(module, is_package, statement)
            # `from .sub import x` binds sub in the package as a side effect.
            if is_package and source_module.startswith(module + "."):
                names.add(source_module[len(module) + 1 :].split(".")[0])
            for alias in statement.names:
                if alias.name == "*":
                    stars.append(source_module)
                elif source_module != "__future__":
                    imported.add(alias.asname or alias.name)
    # A package re-exports what its __init__ imports; a plain module's imports are importable
    # from it too, but only mark a name present where it is defined elsewhere in some release
    # (they make no row of their own: the table stays a tenth of the size).
    if is_package:
        names |= imported
    elif declared:
        names |= imported & declared
    return names, imported - names, stars, dynamic, declared


def read_release(job):
    """The modules of one release: {module: (names, names it only imports, whether no other name
    is there), or None where its names are not known}."""
    distribution, roots, text, file, url, keywords = job
    if file is None:
        return text, None
    filename = file["filename"]
    is_zip = filename.endswith((".whl", ".zip"))
    if not is_zip and file["size"] > SIZE_LIMIT:
        return text, None
    parsed, compiled = {}, set()
    try:
        if is_zip and file["size"] > RANGED_ABOVE:
            archive = remote_wheel(url, size=file["size"], ahead=lambda name: name.endswith(".py"))
        elif is_zip:
            archive = zipfile.ZipFile(io.BytesIO(fetch(url)))
        else:
            archive = tarfile.open(fileobj=io.BytesIO(fetch(url)))
        for path, source in sources(archive, filename):
            module = module_name(path, roots)
            if module is None:
                continue
            if source is None:
                compiled.add(module)
                continue
            if keywords:
                parsed[module] = signatures.read(
                    source.decode("utf-8", "replace"), module, path.endswith("__init__.py")
                )
            else:
                parsed[module] = read_module(source, module, path.endswith("__init__.py"))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
        print(f"{distribution} {text}: {error}", file=sys.stderr)
        return text, None
    if keywords:
        read = {module: result for module, result in parsed.items() if result is not None}
        signatures.resolve_dataclasses(read)
        return text, {module: found for module, (found, _) in read.items()}
    modules = {module: None for module in compiled}
    # Folders that hold modules are packages even without __init__.py (namespaces).
    for module in list(parsed):
        parts = module.split(".")
        for end in range(1, len(parts)):
            modules.setdefault(".".join(parts[:end]), None)
    resolved = {}

    def names_of(module, seen):
        if module in resolved:
            return resolved[module]
        result = parsed.get(module)
        if result is None or module in seen:
            return None
        names, imported, stars, dynamic, _ = result
        names, imported, complete = set(names), set(imported), not dynamic
        for star in stars:
            starred = names_of(star, seen | {module})
            # Names from another distribution, or built at run time, are not known here.
            if starred is None:
                complete = False
                continue
            declared = parsed[star][4]
            if declared is not None:
                names.update(declared)
            else:
                # Without `__all__`, a star brings every public name, imported ones included.
                names.update(name for name in starred[0] | starred[1] if not name.startswith("_"))
                complete = complete and starred[2]
        resolved[module] = (names, imported - names, complete)
        return resolved[module]

    for module in parsed:
        modules[module] = names_of(module, frozenset())
    return text, modules


def mark_of(name, read):
    """The mark of a name in one release's read of its module."""
    if read is None:
        return UNKNOWN
    names, imported, complete = read
    if name in names or name in imported:
        return PRESENT
    return ABSENT if complete else OPEN


def runs(marks):
    """`+` `-` `.` marks, run-length written: `-12+30.2`."""
    out = []
    for mark in marks:
        if out and out[-1][0] == mark:
            out[-1][1] += 1
        else:
            out.append([mark, 1])
    return "".join(f"{mark}{count}" for mark, count in out)


def releases_read(distribution, roots, pool, keywords=False):
    """The distribution's name on PyPI, the releases read (oldest first), and each one's read."""
    try:
        index = json.loads(fetch(API.format(distribution)))
    except OSError as error:
        print(f"{distribution}: {error}", file=sys.stderr)
        return distribution, [], {}
    name = index["info"]["name"]
    releases = selected_releases(index)
    jobs = []
    for _, text, files in releases:
        file = pick_file(files)
        url = urllib.parse.urljoin(API.format(distribution), file["url"]) if file else None
        jobs.append((name, roots, text, file, url, keywords))
    read = dict(pool.map(read_release, jobs))
    return name, [text for _, text, _ in releases if read.get(text) is not None], read


def history(distribution, roots, pool):
    name, texts, read = releases_read(distribution, roots, pool)
    if not texts:
        return name, [], [], []
    per_release = [read[text] for text in texts]
    all_modules = sorted(set().union(*per_release))
    module_rows, name_rows = [], []
    for module in all_modules:
        present = [module in release for release in per_release]
        if not all(present):
            module_rows.append((module, runs(PRESENT if here else ABSENT for here in present)))
        name_sets = [release.get(module) for release in per_release]
        known = [read[0] for read in name_sets if read is not None]
        if not known:
            continue
        every = set().union(*known)
        # A private module's names are its package's business, not a user's import (and five
        # times the rows of the public ones).
        if any(part.startswith("_") for part in module.split(".")):
            continue
        # Names that came and went together share a row. A public module's private names count:
        # old code imports them (`from torchvision.ops import _new_empty_tensor`). Dunders are
        # every module's.
        groups = {}
        for each in sorted(every):
            if each.startswith("__") and each.endswith("__"):
                continue
            marks = [mark_of(each, read) for read in name_sets]
            if ABSENT in marks or OPEN in marks:
                groups.setdefault(runs(UNKNOWN if mark == OPEN else mark for mark in marks), []).append(each)
        for marks, names in sorted(groups.items(), key=lambda group: group[1][0]):
            name_rows.append((module, marks, names))
    return name, texts, module_rows, name_rows


def keyword_mark(keyword, signature):
    """The mark of a keyword in one release's signature of its callable."""
    if signature is None:
        return UNKNOWN
    keywords, open_ended = signature
    if keyword in keywords:
        return PRESENT
    return OPEN if open_ended else ABSENT


def keyword_rows(per_release):
    """`(module, callable, runs, keywords)` for each keyword some release of a callable takes and
    another's refuses (not merely leaves to `**kwargs`); keywords that came and went together
    share a row."""
    rows = []
    modules = sorted(set().union(*per_release))
    for module in modules:
        found = [release.get(module) or {} for release in per_release]
        known = [release.get(module) is not None for release in per_release]
        for callable_ in sorted(set().union(*found)):
            signatures_ = [each.get(callable_) if here else None for each, here in zip(found, known)]
            every = set().union(*(signature[0] for signature in signatures_ if signature))
            groups = {}
            for keyword in sorted(every):
                marks = [keyword_mark(keyword, signature) for signature in signatures_]
                if ABSENT in marks:
                    groups.setdefault(runs(UNKNOWN if mark == OPEN else mark for mark in marks), []).append(keyword)
            for marks, keywords in sorted(groups.items(), key=lambda group: group[1][0]):
                rows.append((module, callable_, marks, keywords))
    return rows


def keyword_history(distribution, roots, pool):
    """The distribution's name, the releases read, and its keyword rows."""
    name, texts, read = releases_read(distribution, roots, pool, keywords=True)
    if not texts:
        return name, [], []
    return name, texts, keyword_rows([read[text] for text in texts])


def main():
    entries = []
    arguments = [argument for argument in sys.argv[1:] if argument != "--keywords"]
    listing = Path(arguments[0]) if arguments else LIST
    for line in listing.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            distribution, *roots = line.split()
            entries.append((distribution, roots or [distribution.replace("-", "_").lower()]))
    if "--keywords" in sys.argv[1:]:
        write_table(entries, KEYWORD_HEADER, keyword_history, keyword_lines)
    else:
        write_table(entries, NAME_HEADER, history, name_lines)


NAME_HEADER = """\
# Generated by compat-matrix/tools/name_history.py from compat-matrix/tools/name-history-list.txt;
# do not edit by hand. Read from PyPI's files of each release (see the tool's docstring).
#
# `@ DISTRIBUTION ROOTS RELEASE...`: the distribution, its import roots (comma-separated), and
# the releases read, oldest first. `m MODULE RUNS`: a module not in every release read.
# `n MODULE RUNS NAME...`: names of a public MODULE (private ones too, not dunders) not in every
# release where MODULE was read, which came and went together.
# RUNS walk the releases in order: `+N` N releases have it, `-N` N lack it, `.N` N not known
# (the module missing or compiled, or its names built at run time, wholly or in part)."""

KEYWORD_HEADER = """\
# Generated by compat-matrix/tools/name_history.py --keywords from
# compat-matrix/tools/name-history-list.txt; do not edit by hand. Read from PyPI's files of each
# release (see the tool's docstring and signatures.py).
#
# `@ DISTRIBUTION ROOTS RELEASE...`: as in name-history.txt. `k MODULE CALLABLE RUNS KEYWORD...`:
# keyword arguments the public CALLABLE of MODULE (a function, or a class's method, as Python's
# messages name it: `SFTTrainer.__init__`) takes in some releases read and refuses in others,
# which came and went together. RUNS as in name-history.txt: `+N` N releases take it, `-N` N
# refuse it, `.N` N not known (the callable or its module missing, or `**kwargs` or a wrapping
# decorator that may take it)."""


def name_lines(module_rows, name_rows):
    for module, marks in module_rows:
        yield f"m {module} {marks}"
    for module, marks, names in name_rows:
        yield f"n {module} {marks} {' '.join(names)}"


def keyword_lines(rows):
    for module, callable_, marks, keywords in rows:
        yield f"k {module} {callable_} {marks} {' '.join(keywords)}"


def write_table(entries, header, read, lines):
    """The table: `header`, then for each distribution its `@` line and the rows `read` finds,
    written by `lines`, a block at a time as each is read."""
    print(header)
    with ProcessPoolExecutor(max_workers=2) as pool:
        for distribution, roots in entries:
            print(f"reading {distribution}", file=sys.stderr)
            name, texts, *rows = read(distribution, roots, pool)
            if not texts:
                print(f"{distribution}: no release read", file=sys.stderr)
                continue
            print(f"@ {name} {','.join(roots)} {' '.join(texts)}")
            for line in lines(*rows):
                print(line)
            sys.stdout.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes compat-matrix/tables/import-names.toml: the modules each distribution listed in
compat-matrix/tools/import-names.txt installs at the top level (cv2 for opencv-python, hydra for
hydra-core), and the systems its newest release has builds for.

Usage: compat-matrix/tools/import_names.py > compat-matrix/tables/import-names.toml

The facts are the files users install: for each distribution, PyPI's JSON API names the newest
final release and its files. A wheel's own file list gives the modules (read by HTTP range
requests, so only the zip's directory is fetched, not a 900 MB torch wheel); a release with no
wheel is read from its sdist's `*.egg-info/top_level.txt`, else from its top-level folders that
hold an `__init__.py`. Folders every project may have (tests, docs, utils, ...) are left out: a
distribution that installs its test suite at the top level does not make `No module named
'tests'` its absence.
"""

import io
import json
import re
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from wheel_range import remote_wheel

LIST = Path(__file__).with_name("import-names.txt")
API = "https://pypi.org/pypi/{}/json"
# Names that are a project's own folders far more often than anyone's distribution.
GENERIC = {
    "test", "tests", "testing", "doc", "docs", "example", "examples", "benchmark", "benchmarks",
    "script", "scripts", "tool", "tools", "util", "utils", "src", "data", "build", "bin", "lib",
    "common", "config", "configs", "model", "models", "notebooks", "demo", "demos", "csrc", "third_party",
    "setup",
}
SDIST_LIMIT = 120 << 20
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def fetch_json(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def systems_of(files):
    """The systems the release's wheels are built for; `any` for a pure-Python wheel."""
    systems = set()
    for file in files:
        if file["packagetype"] != "bdist_wheel":
            continue
        platform = file["filename"].removesuffix(".whl").split("-")[-1]
        for tag in platform.split("."):
            if tag == "any":
                systems.add("any")
            elif "linux" in tag:
                systems.add("linux")
            elif tag.startswith("macosx"):
                systems.add("macos")
            elif tag.startswith("win"):
                systems.add("windows")
    return sorted(systems)


def module_of(top, is_folder):
    """The import name a top-level entry of a wheel installs, or None."""
    if is_folder:
        name = top
    elif top.endswith(".py"):
        name = top[:-3]
    elif top.endswith((".so", ".pyd")):
        name = top.split(".")[0]
    else:
        return None
    if not MODULE.fullmatch(name) or name.startswith("_") or name.lower() in GENERIC:
        return None
    return name


def wheel_modules(url):
    archive = remote_wheel(url)
    modules = set()
    members = archive.namelist()
    # A folder without `__init__.py` is a namespace several distributions share (google,
    # pyannote): it names none of them.
    packages = set()
    for member in members:
        parts = member.split("/")
        if parts[0].endswith(".data") and len(parts) > 3 and parts[1] in ("purelib", "platlib"):
            parts = parts[2:]
        if len(parts) == 2 and parts[1] == "__init__.py":
            packages.add(parts[0])
    for member in members:
        top, _, rest = member.partition("/")
        # Files under `NAME.data/purelib/` and `platlib/` install at the top level (pymeshlab's).
        if top.endswith(".data") and rest.startswith(("purelib/", "platlib/")):
            top, _, rest = rest.partition("/")[2].partition("/")
        elif top.endswith((".dist-info", ".data")):
            continue
        if rest and top not in packages:
            continue
        name = module_of(top, bool(rest))
        if name:
            modules.add(name)
    return modules


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def sdist_modules(url, size, distribution):
    if size > SDIST_LIMIT:
        return set()
    with urllib.request.urlopen(url, timeout=120) as response:
        blob = response.read()
    if url.endswith(".zip"):
        archive = zipfile.ZipFile(io.BytesIO(blob))
        names = archive.namelist()
        read = lambda name: archive.read(name).decode()  # noqa: E731
    else:
        archive = tarfile.open(fileobj=io.BytesIO(blob))
        names = archive.getnames()
        read = lambda name: archive.extractfile(name).read().decode()  # noqa: E731
    # The distribution's own egg-info, at the sdist's root (`pkg-1.0/pkg.egg-info/`) or under
    # src/; a vendored project's egg-info deeper in the tree is not it.
    for name in names:
        parts = name.split("/")
        if (
            parts[-1] == "top_level.txt"
            and parts[-2].endswith(".egg-info")
            and normalized(parts[-2].removesuffix(".egg-info")) == normalized(distribution)
            and (len(parts) == 3 or (len(parts) == 4 and parts[1] == "src"))
        ):
            found = {line.strip() for line in read(name).splitlines()}
            return {module for module in found if module and module_of(module, True)}
    modules = set()
    for name in names:
        parts = name.split("/")[1:]
        if parts[:1] == ["src"]:
            parts = parts[1:]
        if len(parts) == 2 and parts[1] == "__init__.py" and module_of(parts[0], True):
            modules.add(parts[0])
    return modules


def newest_final(index):
    """PyPI's newest release (`info.version`: a final release wherever there is one) and its
    files that were not yanked."""
    files = [file for file in index["urls"] if not file.get("yanked")]
    return index["info"]["version"], files


def pick_wheel(files):
    """A wheel to read: pure Python first, else a Linux x86_64 build, else any."""
    wheels = [file for file in files if file["packagetype"] == "bdist_wheel"]
    for test in (
        lambda name: name.endswith("-any.whl"),
        lambda name: "x86_64" in name and "linux" in name,
        lambda name: True,
    ):
        for file in wheels:
            if test(file["filename"]):
                return file
    return None


def read(distribution):
    index = fetch_json(API.format(distribution))
    name = index["info"]["name"]
    version, files = newest_final(index)
    if not files:
        sys.exit(f"{distribution} {version}: no file on PyPI")
    wheel = pick_wheel(files)
    sdist = next((file for file in files if file["packagetype"] == "sdist"), None)
    if wheel:
        modules = wheel_modules(urllib.parse.urljoin(API.format(distribution), wheel["url"]))
        read_from = wheel["filename"]
    elif sdist:
        modules = sdist_modules(urllib.parse.urljoin(API.format(distribution), sdist["url"]), sdist["size"], distribution)
        read_from = sdist["filename"]
    else:
        sys.exit(f"{distribution} {version}: neither a wheel nor an sdist")
    if not modules:
        # A meta-distribution (tensorrt's sdist only pulls tensorrt-cu12) installs no module of its own.
        return {"name": name, "version": version, "empty": read_from}
    return {
        "name": name,
        "version": version,
        "modules": sorted(modules),
        "systems": systems_of(files),
        "sdist": sdist is not None,
        "read_from": read_from,
    }


def quoted(items):
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def main():
    import datetime

    distributions = [
        line.strip()
        for line in LIST.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    rows = []
    empty = []
    for distribution in distributions:
        print(f"reading {distribution}", file=sys.stderr)
        row = read(distribution)
        if "empty" in row:
            empty.append(f'{row["name"]} {row["version"]} ({row["empty"]})')
        else:
            rows.append(row)
    print("# Generated by compat-matrix/tools/import_names.py from compat-matrix/tools/import-names.txt;")
    print("# do not edit by hand.")
    print("#")
    print("# The modules each listed distribution installs at the top level, read from the files of its")
    print("# newest final release on PyPI (`read_from`: a wheel's file list, or an sdist's top_level.txt),")
    print("# and the systems that release has wheels for (`any`: a pure-Python wheel; `sdist`: whether")
    print("# it can also be built from source). explain reads `No module named 'X'` against it: which")
    print("# distribution provides X, and whether that distribution has a build for the system the log")
    print("# ran on. Rows are in the list's order: where several provide one module, the first is the")
    print("# one a fix names.")
    if empty:
        print("#")
        print("# Listed but left out, for no module of their own found in the file read (a namespace other")
        print("# distributions share, a meta-distribution that only requires others, or an sdist whose")
        print("# modules its build makes or moves): ", end="")
        print(f"{', '.join(empty)}.")
    print()
    print(f'checked = "{datetime.date.today().isoformat()}"')
    for row in rows:
        print()
        print("[[distribution]]")
        print(f'name = "{row["name"]}"')
        print(f'version = "{row["version"]}"')
        print(f"modules = {quoted(row['modules'])}")
        print(f"systems = {quoted(row['systems'])}")
        print(f"sdist = {str(row['sdist']).lower()}")
        print(f'read_from = "{row["read_from"]}"')
        print(f'source = "https://pypi.org/project/{row["name"]}/{row["version"]}/#files"')


if __name__ == "__main__":
    main()

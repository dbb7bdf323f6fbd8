#!/usr/bin/env python3
"""Writes compat-matrix/tables/transformers-models.toml: every model type transformers' AutoConfig
knows, the prefix of its classes, and the first (and, where it went, the last) release on PyPI
that has it.

Usage: compat-matrix/tools/transformers_model_types.py > compat-matrix/tables/transformers-models.toml

The facts are the wheels users install: for each release of transformers 4.0.0 and later on PyPI,
the model types AutoConfig maps to a config class, read from the wheel's
transformers/models/auto/configuration_auto.py (and auto_mappings.py, where later releases moved
the mapping) with Python's own parser. Only those two files are fetched, by HTTP range requests
into each wheel's zip, so a run reads a few MB, not the wheels' 2 GB. Every minor release's first
and last patch are read; where they differ, every patch between them is, so a type that came or
went in a patch release is dated to it.
"""

import ast
import json
import re
import sys
import urllib.parse
import urllib.request

from wheel_range import remote_wheel

INDEX = "https://pypi.org/pypi/transformers/json"
MAPPING_FILES = [
    "transformers/models/auto/configuration_auto.py",
    "transformers/models/auto/auto_mappings.py",
]


def config_pairs(source):
    """(model type, config class) pairs of a mapping file: 2-tuples and dict items whose value
    names a class ending in Config, as literals or names."""
    pairs = {}
    for node in ast.walk(ast.parse(source)):
        items = []
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:
            items.append((node.elts[0], node.elts[1]))
        elif isinstance(node, ast.Dict):
            items.extend(zip(node.keys, node.values))
        for key, value in items:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            name = value.value if isinstance(value, ast.Constant) else getattr(value, "id", None)
            if isinstance(name, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*Config", name):
                pairs.setdefault(key.value, name)
    return pairs


def model_types(version, url):
    """The model types of one release, and the model directories its wheel has
    (`transformers/models/qwen2_vl/`)."""
    archive = remote_wheel(url, buffer_size=1 << 20)
    names = set(archive.namelist())
    pairs = {}
    mapping_file = None
    for member in MAPPING_FILES:
        if member in names:
            found = config_pairs(archive.read(member).decode())
            if found:
                mapping_file = member
            pairs.update(found)
    if not pairs:
        sys.exit(f"transformers {version}: no model types in {MAPPING_FILES}")
    # Where the mapping lives at this release: the last file that holds pairs.
    MAPPING_FILE_OF[version] = mapping_file
    # A deprecated model moves to transformers/models/deprecated/ and stays importable.
    directories = set()
    for name in names:
        parts = name.split("/")
        if parts[:2] == ["transformers", "models"] and parts[-1] == "__init__.py":
            middle = parts[2:-1]
            if middle[:1] == ["deprecated"]:
                middle = middle[1:]
            if len(middle) == 1:
                directories.add(middle[0])
    return pairs, directories


MAPPING_FILE_OF = {}


def release_key(version):
    return tuple(int(part) for part in version.split("."))


def main():
    with urllib.request.urlopen(INDEX, timeout=60) as response:
        index = json.load(response)
    wheels = {}
    for version, files in index["releases"].items():
        if not re.fullmatch(r"\d+\.\d+\.\d+", version) or release_key(version) < (4, 0, 0):
            continue
        for file in files:
            # A yanked release was installed by whoever had it before it was
            # yanked: its types date as any other release's.
            if file["packagetype"] == "bdist_wheel":
                wheels[version] = urllib.parse.urljoin(INDEX, file["url"])
    versions = sorted(wheels, key=release_key)
    minors = {}
    for version in versions:
        minors.setdefault(release_key(version)[:2], []).append(version)
    seen = {}

    def read(version):
        if version not in seen:
            print(f"reading {version}", file=sys.stderr)
            seen[version] = model_types(version, wheels[version])
        return seen[version]

    for patches in minors.values():
        if read(patches[0]) != read(patches[-1]):
            for version in patches[1:-1]:
                read(version)
    read_versions = sorted(seen, key=release_key)
    rows = {}
    for model_type in {model_type for types, _ in seen.values() for model_type in types}:
        # A type is dated by its own directory under transformers/models as well as by its key:
        # keys were renamed (`llava-next-video` to `llava_next_video`) and sub-configs registered
        # releases after their classes came, while the directory stays. A type without a
        # directory of its own is not dated at all.
        directory = model_type.replace("-", "_")
        present = [
            version
            for version in read_versions
            if model_type in seen[version][0] or directory in seen[version][1]
        ]
        has_directory = any(directory in seen[version][1] for version in read_versions)
        first, last = present[0], present[-1]
        later = [version for version in read_versions if release_key(version) > release_key(last)]
        latest_with_key = [version for version in present if model_type in seen[version][0]][-1]
        rows[model_type] = {
            "prefix": seen[latest_with_key][0][model_type].removesuffix("Config"),
            "added": first if has_directory and first != read_versions[0] else None,
            "removed": later[0] if has_directory and later else None,
            "tag": first if has_directory else latest_with_key,
        }
    first_release = read_versions[0]
    print("# Generated by compat-matrix/tools/transformers_model_types.py; do not edit by hand.")
    print("#")
    print("# Every model type transformers' AutoConfig maps to a config class, in every release from")
    print(f"# {first_release} to {read_versions[-1]} on PyPI (read from each wheel's")
    print("# transformers/models/auto/configuration_auto.py and auto_mappings.py): the prefix of its")
    print("# classes (the config class without `Config`: Qwen2VL of Qwen2VLConfig), the first release")
    print(f"# that has it (`added`, left out for a type {first_release} already had: older releases are not")
    print("# read) and the first that no longer has it (`removed`), by its key or its directory under")
    print("# transformers/models, whichever is there; a type without a directory of its own (a")
    print("# sub-config, a key spelt apart from its module) is not dated. `source` is the file holding")
    print("# the mapping at the release tag the row dates. explain reads a model class or type the")
    print("# installed transformers lacks against it.")
    print()
    print("[[read]]")
    print(f'first = "{first_release}"')
    print(f'last = "{read_versions[-1]}"')
    print(f'source = "{INDEX.removesuffix("/json").replace("/pypi/", "/project/")}/#history"')
    for model_type in sorted(rows):
        row = rows[model_type]
        tag = row["tag"]
        print()
        print("[[model]]")
        print(f'type = "{model_type}"')
        print(f'prefix = "{row["prefix"]}"')
        if row["added"]:
            print(f'added = "{row["added"]}"')
        if row["removed"]:
            print(f'removed = "{row["removed"]}"')
        print(f'source = "https://github.com/huggingface/transformers/blob/v{tag}/src/{MAPPING_FILE_OF[tag]}"')

if __name__ == "__main__":
    main()

# The one question envdoctor asks a Python interpreter (see src/probe/python.rs).
#
# It runs with `site` enabled, as a training job would, so PYTHONPATH, .pth files,
# user site-packages and sitecustomize all shape the sys.path it reports. It prints
# exactly one JSON object on a line of stdout that starts with ANSWER_MARKER, so
# that whatever a .pth file or sitecustomize prints, before or after, is told apart.
# It must run on any Python 3, so it avoids f-strings. It imports nothing that
# `site` has not already loaded: `import json` alone would pull in `re` and `enum`
# and cost more than the rest of the script, so it carries its own JSON encoder.
import os
import sys

ANSWER_MARKER = "envdoctor-interpreter-answer:"


def to_json(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(quote(key) + ":" + to_json(item) for key, item in value.items()) + "}"
    raise TypeError("cannot encode %r" % (value,))


def quote(text):
    parts = []
    for character in text:
        code = ord(character)
        if character in '"\\':
            parts.append("\\" + character)
        elif 0x20 <= code < 0x7F:
            parts.append(character)
        elif code > 0xFFFF:
            code -= 0x10000
            parts.append("\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
        elif 0xD800 <= code <= 0xDFFF:
            # A lone surrogate: an undecodable byte in a path (surrogateescape).
            # JSON cannot carry it; U+FFFD marks the spot.
            parts.append("\\ufffd")
        else:
            parts.append("\\u%04x" % code)
    return '"' + "".join(parts) + '"'


def listdir_pth(directory):
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(os.path.join(directory, n) for n in names if n.endswith(".pth"))


def pth_path_lines(pth_file):
    """The directories a .pth file names, as `site` would join them, whether or not
    they exist: `site` skips a missing one, and it must be noticed when it appears."""
    try:
        with open(pth_file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    directory = os.path.dirname(pth_file)
    return [os.path.abspath(os.path.join(directory, line.rstrip()))
            for line in lines
            if line.strip() and not line.startswith(("#", "import ", "import\t"))]


def blank_if_unknown(value):
    # `platform.uname()` reports "unknown" as "".
    return "" if value == "unknown" else value


def marker_environment():
    """PEP 508's environment markers, as `packaging.markers.default_environment()`
    computes them (what pip evaluates `Requires-Dist` markers with), without
    importing `platform`: on POSIX, `platform.uname()` is `os.uname()`, and
    `platform.python_implementation()` reads `sys.version` the way done here."""
    try:
        system, _node, release, version, machine = os.uname()
    except AttributeError:
        # Not POSIX: envdoctor does not run there, but the script must still answer.
        system, release, version, machine = sys.platform, "", "", ""
    full_version = sys.version.split()[0]
    if sys.platform.startswith("java"):
        python_implementation = "Jython"
    elif "IronPython" in sys.version:
        python_implementation = "IronPython"
    elif "PyPy" in sys.version:
        python_implementation = "PyPy"
    else:
        python_implementation = "CPython"
    info = sys.implementation.version
    implementation_version = "%d.%d.%d" % (info.major, info.minor, info.micro)
    if info.releaselevel != "final":
        implementation_version += info.releaselevel[0] + str(info.serial)
    return {
        "implementation_name": sys.implementation.name,
        "implementation_version": implementation_version,
        "os_name": os.name,
        "platform_machine": blank_if_unknown(machine),
        "platform_python_implementation": python_implementation,
        "platform_release": blank_if_unknown(release),
        "platform_system": blank_if_unknown(system),
        "platform_version": blank_if_unknown(version),
        "python_full_version": full_version,
        "python_version": ".".join(full_version.split(".")[:2]),
        "sys_platform": sys.platform,
    }


def answer(value):
    # A leading newline ends any line that site-time code left unfinished.
    sys.stdout.write("\n" + ANSWER_MARKER + to_json(value) + "\n")
    sys.stdout.flush()


def main():
    if sys.version_info < (3, 6):
        answer({"result": "error", "kind": "unsupported_version", "version": sys.version.split()[0]})
        return
    import site

    path = list(sys.path)
    # sys.path[0] is the launching script's directory ('' for -c): it depends on how
    # a job is started, not on the environment, so it is left out.
    if path and path[0] == "" and not getattr(sys.flags, "safe_path", False):
        path = path[1:]

    site_packages = list(getattr(site, "getsitepackages", lambda: [])())
    user_site = getattr(site, "USER_SITE", None)
    user_site_enabled = bool(getattr(site, "ENABLE_USER_SITE", False))
    site_dirs = site_packages + ([user_site] if user_site_enabled and user_site else [])

    customize = []
    for module in ("sitecustomize", "usercustomize"):
        loaded = sys.modules.get(module)
        if loaded is not None and getattr(loaded, "__file__", None):
            customize.append(loaded.__file__)

    pth_files = [p for d in site_dirs for p in listdir_pth(d)]
    answer({
        "result": "success",
        "executable": sys.executable,
        "version": sys.version.split()[0],
        "implementation": sys.implementation.name,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "site_packages": site_packages,
        "user_site": user_site,
        "user_site_enabled": user_site_enabled,
        "sys_path": path,
        "pth_files": pth_files,
        "pth_directories": [line for p in pth_files for line in pth_path_lines(p)],
        "customize_files": customize,
        "markers": marker_environment(),
    })


main()

"""`python -m envdoctor ...`: run the envdoctor binary that this wheel installed.

The wheel puts the binary into the environment's scripts directory (bin/), not
into this package, so it is looked for where pip puts scripts: the scheme of the
running interpreter, then the user scheme (`pip install --user`), then bin/ of a
`pip install --target DIR` or `--prefix` tree above this file, then PATH. The
approach follows ruff's python/ruff/__main__.py (astral-sh/ruff); this is a
separate, smaller implementation.
"""

import os
import shutil
import sys
import sysconfig


def find_envdoctor_bin() -> str:
    exe = "envdoctor" + (sysconfig.get_config_var("EXE") or "")
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    try:
        # get_preferred_scheme is 3.10+; before it, posix_user is the user scheme on Linux.
        user_scheme = sysconfig.get_preferred_scheme("user")  # type: ignore[attr-defined]
    except AttributeError:
        user_scheme = "posix_user"
    try:
        candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe))
    except KeyError:
        pass
    # `pip install --target DIR`: DIR/envdoctor/__main__.py and DIR/bin/envdoctor;
    # `--prefix P`: P/lib/pythonX.Y/site-packages/envdoctor and P/bin/envdoctor.
    package_dir = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(os.path.dirname(package_dir), "bin", exe))
    candidates.append(os.path.join(package_dir, "..", "..", "..", "..", "bin", exe))
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    found = shutil.which(exe)
    if found:
        return found
    raise FileNotFoundError(
        "the envdoctor binary is not installed next to this Python package; looked in: "
        + ", ".join(os.path.normpath(p) for p in candidates)
        + ", and PATH"
    )


def main() -> None:
    envdoctor = os.fsdecode(find_envdoctor_bin())
    # exec, not a child process: the binary gets this process's id, signals and exit status.
    os.execv(envdoctor, [envdoctor, *sys.argv[1:]])


if __name__ == "__main__":
    main()

"""envdoctor as a Python package: only so that `python -m envdoctor` runs the binary (see __main__.py)."""

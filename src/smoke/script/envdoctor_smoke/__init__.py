"""envdoctor's GPU smoke test; see __main__.py. Embedded in the envdoctor binary
(src/smoke/harness.rs) and unpacked to a temporary directory for each run."""

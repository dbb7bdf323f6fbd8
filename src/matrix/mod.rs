//! The compatibility matrix: loading, linting and evaluating compat-matrix rules.

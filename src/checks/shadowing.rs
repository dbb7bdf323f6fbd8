//! (filled in by the issue-4 work)

use super::BuiltinCheck;

pub(super) const CHECKS: &[BuiltinCheck] = &[];

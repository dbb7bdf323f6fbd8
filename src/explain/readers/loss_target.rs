//! A class index outside the loss's classes: torch's nll_loss (and
//! cross_entropy through it) checks each target on the CPU and raises
//! `IndexError: Target 5 is out of bounds.` (aten/src/ATen/native/LossNLL.cpp,
//! "Target %ld is out of bounds."). The sentence's other words, `is out of
//! bounds.`, are any index's (`Row index 17 is out of bounds.`), so the
//! target's own words are read here rather than listed as the cause's message.

use super::{Reading, text};

pub const CAUSE: &str = "loss-target-out-of-bounds";

pub fn read(text: &str) -> Option<Reading> {
    // A wrap may fall after `Target`.
    let rest = text::after_marker(text, "Target")?.trim_start();
    let (number, after) = rest.split_once(char::is_whitespace)?;
    let after = after.trim_start();
    let number_only = number.strip_prefix('-').unwrap_or(number);
    if number_only.is_empty()
        || !number_only.chars().all(|c| c.is_ascii_digit())
        || !after.starts_with("is out of bounds.")
    {
        return None;
    }
    Some(Reading {
        cause: CAUSE,
        said: format!(
            "a target of the loss, {number}, is not one of its class indices 0..C-1 (torch's nll_loss checks each)"
        ),
        node: Vec::new(),
        // Nothing read fills the entry's fix in: it stands.
        fix: String::new(),
        stated: false,
        settles: true,
        rules_out: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_outside_the_classes_is_read_by_its_own_words() {
        for message in [
            "IndexError: Target 225 is out of bounds.",
            "IndexError: Target -1 is out of bounds.",
        ] {
            let found = read(message).unwrap();
            assert_eq!(found.cause, CAUSE);
            assert!(found.settles, "{found:?}");
        }
        assert!(read("IndexError: Target\n10 is out of bounds.").is_some());
        // Any other index out of bounds is not a loss's target.
        assert!(read("IndexError: Row index 17 is out of bounds.").is_none());
        assert!(read("IndexError: index 5 is out of bounds for axis 0 with size 3").is_none());
        assert!(read("IndexError: Target x is out of bounds.").is_none());
    }
}

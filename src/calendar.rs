//! Calendar dates as the matrix writes them (`2026-11-26`): when a rule's
//! sources were last checked, when a package was last released. Only whole
//! days in UTC; a date library would be more than this needs.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    year: i64,
    month: u32,
    day: u32,
}

impl Date {
    /// `YYYY-MM-DD`, a day that exists (`2026-02-30` does not).
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.split('-');
        let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
        let digits = |part: &str, width: usize| part.len() == width && part.bytes().all(|b| b.is_ascii_digit());
        if parts.next().is_some() || !digits(year, 4) || !digits(month, 2) || !digits(day, 2) {
            return None;
        }
        let date = Date {
            year: year.parse().ok()?,
            month: month.parse().ok()?,
            day: day.parse().ok()?,
        };
        let valid = (1..=12).contains(&date.month) && date.day >= 1 && date.day <= days_in_month(date.year, date.month);
        valid.then_some(date)
    }

    /// Today in UTC, by this machine's clock.
    pub fn today() -> Date {
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        Date::from_days((seconds / 86_400) as i64)
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Date) -> i64 {
        later.days() - self.days()
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    fn days(self) -> i64 {
        let year = if self.month <= 2 { self.year - 1 } else { self.year };
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month = i64::from(self.month);
        let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The inverse of [`Date::days`] (Hinnant's `civil_from_days`).
    fn from_days(days: i64) -> Date {
        let shifted = days + 719_468;
        let era = shifted.div_euclid(146_097);
        let day_of_era = shifted - era * 146_097;
        let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
        let month = if month_index < 10 {
            month_index + 3
        } else {
            month_index - 9
        } as u32;
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        Date { year, month, day }
    }
}

/// Now in UTC as a file name may hold it: `2026-11-27T164252Z`.
pub fn utc_stamp() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let of_day = seconds % 86_400;
    format!(
        "{}T{:02}{:02}{:02}Z",
        Date::from_days((seconds / 86_400) as i64),
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_real_days_only() {
        assert_eq!(
            Date::parse("2026-11-26").map(|d| d.to_string()),
            Some("2026-11-26".into())
        );
        assert!(Date::parse("2024-02-29").is_some());
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-1-01",
            "26-11-26",
            "2026-11-26x",
            "",
            "2026-11",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn day_counts_round_trip_across_leap_years_and_the_epoch() {
        for text in ["1970-01-01", "2000-02-29", "2026-11-26", "2100-03-01", "1969-12-31"] {
            let date = Date::parse(text).unwrap();
            assert_eq!(Date::from_days(date.days()), date, "{text}");
        }
        assert_eq!(Date::parse("1970-01-01").unwrap().days(), 0);
        let (start, end) = (Date::parse("2024-02-28").unwrap(), Date::parse("2024-03-01").unwrap());
        assert_eq!(start.days_until(end), 2);
    }
}

//! Showing the steps as they run: a spinner with the elapsed time while a step
//! runs, then one line with its verdict. Only on a terminal: a CI log or a
//! JSON consumer gets the report and nothing else.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Step;

/// What the harness tells about the steps while they run.
pub trait Observer {
    fn started(&mut self, name: &str, title: &str);
    fn ended(&mut self, step: &Step);
}

/// Says nothing.
pub struct Quiet;

impl Observer for Quiet {
    fn started(&mut self, _name: &str, _title: &str) {}
    fn ended(&mut self, _step: &Step) {}
}

/// Spinners on stderr.
pub struct Spinners {
    current: Option<ProgressBar>,
}

/// Spinners when stderr is a terminal and `wanted`, else silence.
pub fn for_stderr(wanted: bool) -> Box<dyn Observer> {
    if wanted && std::io::stderr().is_terminal() {
        Box::new(Spinners { current: None })
    } else {
        Box::new(Quiet)
    }
}

impl Observer for Spinners {
    fn started(&mut self, _name: &str, title: &str) {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed:.dim}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(title.to_string());
        bar.enable_steady_tick(Duration::from_millis(100));
        self.current = Some(bar);
    }

    fn ended(&mut self, step: &Step) {
        if let Some(bar) = self.current.take() {
            bar.finish_and_clear();
        }
        eprintln!("{}", verdict_line(step));
    }
}

/// `pass  cuda:0 fp16 matrix product and throughput (0.4 s): 612.3 TFLOPS`
pub fn verdict_line(step: &Step) -> String {
    let detail = step.detail.lines().next().unwrap_or_default();
    format!(
        "{:<7} {} ({:.1} s){}{}",
        step.status.as_str(),
        step.title,
        step.duration_ms as f64 / 1000.0,
        if detail.is_empty() { "" } else { ": " },
        detail
    )
}

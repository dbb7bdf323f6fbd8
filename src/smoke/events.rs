//! The smoke test's events, one JSON object per line (see `script/envdoctor_smoke/protocol.py`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Status, StepError};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum Event {
    Start(Started),
    End(Ended),
    /// A thread started or finished importing libraries beside the steps.
    Background(Background),
    /// Every stage ran.
    Done,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Background {
    pub imports: Vec<String>,
    /// `start` or `end`.
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Started {
    pub step: String,
    pub title: String,
    /// How long the step may take; envdoctor kills the test after that.
    pub deadline_s: f64,
    #[serde(default)]
    pub gpu: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Ended {
    pub step: String,
    pub status: Status,
    pub duration_ms: u64,
    #[serde(default)]
    pub detail: String,
    #[serde(default)]
    pub figures: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub error: Option<StepError>,
}

/// An event, or `None` for a line that is not one (the script writes nothing
/// else to this channel, so such a line is ignored rather than fatal).
pub fn parse(line: &str) -> Option<Event> {
    serde_json::from_str(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_events_the_script_writes() {
        let start = parse(r#"{"event": "start", "step": "gpu0.fp16", "title": "t", "deadline_s": 30, "gpu": 0}"#);
        assert_eq!(
            start,
            Some(Event::Start(Started {
                step: "gpu0.fp16".into(),
                title: "t".into(),
                deadline_s: 30.0,
                gpu: Some(0)
            }))
        );
        let end = parse(
            r#"{"event": "end", "step": "torch.cuda", "status": "fail", "duration_ms": 3, "detail": "d",
                "figures": {"device_count": 0}, "error": {"type": "RuntimeError", "message": "m", "traceback": "tb"}}"#,
        );
        let Some(Event::End(end)) = end else { panic!("{end:?}") };
        assert_eq!(end.status, Status::Fail);
        assert_eq!(end.figures["device_count"], 0);
        assert_eq!(end.error.unwrap().kind, "RuntimeError");
        assert_eq!(parse(r#"{"event": "done"}"#), Some(Event::Done));
        let background = parse(r#"{"event": "background", "imports": ["peft"], "state": "start"}"#);
        let Some(Event::Background(background)) = background else {
            panic!("{background:?}")
        };
        assert_eq!(
            (background.imports, background.state.as_str()),
            (vec!["peft".to_string()], "start")
        );
    }

    #[test]
    fn a_stray_line_is_not_an_event() {
        assert_eq!(parse("NCCL INFO Bootstrap"), None);
        assert_eq!(parse(r#"{"event": "start"}"#), None);
    }
}

//! Whether a failure happened in a package's build from source, and whose.

use super::text;
use crate::explain::signals::{BUILDING_WHEEL, PIP_BUILD_STEPS};
use crate::explain::traceback::Traceback;

/// The paths of build environments (pip's, uv's).
const BUILD_ENVIRONMENTS: [&str; 2] = ["pip-build-env-", "builds-v0"];

/// A build from source a failure ran in.
pub(crate) struct Build {
    pub package: Option<String>,
    /// pip's lines show an isolated build.
    pub isolated: bool,
}

/// The build from source the failure ran in, if the frames or pip's lines
/// before it show one: a frame in setup.py, pip's build-hook runner or a
/// build environment, or, with no frame of the job's own, a build step
/// failing since the last build that finished (`Getting requirements to
/// build wheel ... error`): a finished one is an earlier install's.
pub(crate) fn build_of(traceback: &Traceback, earlier: &[String]) -> Option<Build> {
    let in_environment = traceback
        .frames()
        .any(|frame| BUILD_ENVIRONMENTS.iter().any(|words| frame.file.contains(words)));
    let in_frames = in_environment
        || traceback.frames().any(|frame| {
            let file = frame.file.as_str();
            text::file_name(file) == "setup.py" || file.contains("_in_process")
        });
    let steps: Vec<&str> = earlier
        .iter()
        .map(|line| line.trim())
        .filter(|line| PIP_BUILD_STEPS.iter().any(|step| line.contains(step)))
        .collect();
    // This build's steps: those after the last build that finished
    // (`Building wheel for x (setup.py) ... done`), an earlier install's.
    let finished = steps
        .iter()
        .rposition(|step| step.starts_with(BUILDING_WHEEL) && step.ends_with("done"));
    let this_build = &steps[finished.map_or(0, |at| at + 1)..];
    let failing = this_build
        .iter()
        .rev()
        .find(|step| step.ends_with("error") || step.contains("did not run successfully"));
    // Frames of the job's own files say the job ran, whatever pip printed
    // before it; a build's are setup.py's, pip's hook runner's, or setup.py
    // run from a string (`File "<string>"`).
    let only_strings = traceback.frames().all(|frame| frame.may_be_pseudo_file("<string>"));
    let in_a_build = in_frames || (failing.is_some() && only_strings);
    if !in_a_build {
        return None;
    }
    // Only an isolated build installs build dependencies (pip's first step).
    let isolated = in_environment || this_build.iter().any(|step| step.contains(PIP_BUILD_STEPS[0]));
    let package = failing.and_then(|step| {
        let rest = text::after_marker(step, BUILDING_WHEEL)?;
        Some(rest.split_whitespace().next()?.to_string())
    });
    Some(Build { package, isolated })
}

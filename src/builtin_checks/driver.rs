//! Whether the NVIDIA driver runs the CUDA torch was built with, and whether
//! this interpreter is one the installed torch release was made for. Both
//! compute from `compat-matrix/tables/` (driver floors, the drivers toolkits
//! shipped with, torch's Python ranges) rather than matching a rule.

use super::{BuiltinCheck, finding, with_note};
use crate::facts::Facts;
use crate::findings::{Finding, Severity};
use crate::knowledge::tables::{MajorMinor, Tables, TorchRelease};
use crate::torch_install::{self, Install, Prefer, driver_cuda, how_it_runs, torch_version};

const DRIVER_TOO_OLD: &str = "driver-too-old-for-torch-cuda";
const PTX_CAVEAT: &str = "driver-older-than-torch-cuda-minor";
const PYTHON_OUTSIDE: &str = "python-outside-torch-range";

const MVC_PAGE: &str = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html";

pub(super) const CHECKS: &[BuiltinCheck] = &[
    BuiltinCheck {
        id: "driver-runs-torch-cuda",
        title: "The NVIDIA driver runs the CUDA torch was built with",
        produces: &[DRIVER_TOO_OLD, PTX_CAVEAT],
        explanation: "Compares the NVIDIA driver with the CUDA version of the installed torch build \
            (torch.version.cuda). Software built with CUDA N.x needs at least the driver of CUDA N.0 \
            (NVIDIA's minor-version compatibility floor: 450.80.02 for 11.x, 525.60.13 for 12.x, \
            580.65.06 for 13.x); below it torch cannot use the GPU at all, an error. Above the floor \
            but below the driver the torch build's own CUDA release shipped with, torch runs under \
            minor-version compatibility, which cannot JIT-compile PTX from the newer toolkit: \
            torch.compile/Triton kernels and extensions shipping PTX may fail with \
            cudaErrorUnsupportedPtxVersion, a warning.",
        run: driver_runs_torch_cuda,
    },
    BuiltinCheck {
        id: "python-supported-by-torch",
        title: "The interpreter is one the torch release supports",
        produces: &[PYTHON_OUTSIDE],
        explanation: "Compares the interpreter's version with the Python range PyTorch's release \
            compatibility matrix gives for the installed torch release. PyTorch publishes wheels only \
            for those versions, so a torch outside its range is a source build, a wheel made for another \
            interpreter, or an experimental build.",
        run: python_supported_by_torch,
    },
];

/// The lowest compute capability among the visible GPUs, where all are known:
/// a driver branch must still drive it.
fn oldest_gpu(facts: &Facts, tables: &Tables) -> Option<MajorMinor> {
    let capabilities: Option<Vec<MajorMinor>> = facts
        .gpus
        .iter()
        .map(|gpu| torch_install::capability(tables, gpu))
        .collect();
    capabilities?.into_iter().min()
}

/// Another build of the installed torch release that this driver runs and
/// every visible GPU runs: the fix that changes the least.
fn same_release_build<'t>(facts: &Facts, tables: &'t Tables) -> Option<Install<'t>> {
    let installed = torch_version(facts)?.release;
    torch_install::choose(
        facts,
        tables,
        &torch_install::visible_capabilities(facts, tables),
        &|version| MajorMinor::of(version) == Some(installed),
        Prefer::Lowest,
    )
}

/// Whether [`driver_runs_torch_cuda`] can judge this node: torch's CUDA is
/// known, and so is the driver's CUDA, or the driver and the floor of torch's
/// CUDA major. Where it cannot, its silence says nothing (explain reads it so).
pub fn judges_driver(facts: &Facts, tables: &Tables) -> bool {
    let Some(torch_cuda) = facts.torch_cuda.as_ref().and_then(MajorMinor::of) else {
        return false;
    };
    driver_cuda(facts, tables).is_some() || (facts.driver.is_some() && tables.drivers.floor(torch_cuda.major).is_some())
}

fn driver_runs_torch_cuda(facts: &Facts, tables: &Tables) -> Vec<Finding> {
    // No driver facts at all (`no-gpu-visible` says why), or none it can compare.
    if !judges_driver(facts, tables) {
        return Vec::new();
    }
    let Some(torch_cuda) = facts.torch_cuda.as_ref().and_then(MajorMinor::of) else {
        return Vec::new();
    };
    let driver = facts.snapshot.nvidia.as_ref().and_then(|n| n.driver_version.as_deref());
    let reported = driver_cuda(facts, tables);
    let torch_text = facts
        .torch
        .and_then(|build| build.version.clone())
        .unwrap_or_else(|| "torch".to_string());
    let driver_text = driver.unwrap_or("of unknown version");
    let driver_cuda_text = match reported {
        Some((cuda, true)) => format!(", which supports CUDA {cuda}"),
        Some((cuda, false)) => format!(", which by NVIDIA's table of toolkit drivers supports CUDA {cuda}"),
        None => String::new(),
    };
    let floor = tables.drivers.floor(torch_cuda.major);
    let below_floor = matches!((&facts.driver, floor), (Some(driver), Some(floor)) if driver.version < floor.linux_min_driver.version);
    let major_behind = reported.is_some_and(|(cuda, _)| cuda.major < torch_cuda.major);

    if below_floor || major_behind {
        let needed = match floor {
            Some(floor) => format!("driver {} or newer", floor.linux_min_driver),
            None => format!("a driver that supports CUDA {}", torch_cuda.major),
        };
        let install = same_release_build(facts, tables);
        let branch = tables
            .drivers
            .branch_for(torch_cuda.major, oldest_gpu(facts, tables))
            .map(|branch| {
                format!(
                    " (branch {}, a {} supported until {})",
                    branch.branch, branch.support, branch.end_of_life
                )
            })
            .unwrap_or_default();
        let target = match floor {
            Some(floor) => format!("{} or newer", floor.linux_min_driver),
            None => format!("a version that supports CUDA {}", torch_cuda.major),
        };
        let upgrade = format!("upgrade the NVIDIA driver to {target}{branch}");
        // The reinstall is a command to paste; the driver upgrade, the other way, is said in the note.
        let (fix, note) = match install {
            Some(install) => (
                install.command.clone(),
                Some(format!("{}; or {upgrade}", how_it_runs(install.candidate))),
            ),
            None => (upgrade, None),
        };
        let mut references = vec![MVC_PAGE.to_string()];
        references.extend(floor.map(|floor| floor.source.clone()));
        references.push("https://pytorch.org/get-started/previous-versions/".to_string());
        return vec![with_note(
            finding(
                DRIVER_TOO_OLD,
                Severity::Error,
                format!("The NVIDIA driver is too old for torch built with CUDA {torch_cuda}"),
                format!(
                    "torch {torch_text} was built with CUDA {torch_cuda}, which needs {needed} on Linux; \
                 this node has driver {driver_text}{driver_cuda_text}."
                ),
                format!(
                    "Software built with CUDA {major}.x runs only on a driver at least as new as the one CUDA {major}.0 \
                 shipped with (NVIDIA's minor-version compatibility floor). With an older driver \
                 torch.cuda.is_available() returns False and the first CUDA call fails with \
                 cudaErrorInsufficientDriver (\"CUDA driver version is insufficient for CUDA runtime version\").",
                    major = torch_cuda.major
                ),
                Some(fix),
                references,
            ),
            note,
        )];
    }

    let Some((driver_cuda, _)) = reported else {
        return Vec::new();
    };
    if driver_cuda.major != torch_cuda.major || driver_cuda >= torch_cuda {
        return Vec::new();
    }
    let upgrade = tables.drivers.release(torch_cuda).map(|release| {
        format!(
            "upgrade the NVIDIA driver to {} or newer, the driver CUDA {} shipped with",
            release.linux_driver, torch_cuda
        )
    });
    let install = same_release_build(facts, tables).filter(|install| install.candidate.1);
    // The reinstall is a command to paste; the driver upgrade, the other way, is said in the note.
    let (fix, note) = match install {
        Some(install) => (
            Some(install.command.clone()),
            Some(format!(
                "a build for CUDA {}, which this driver runs without minor-version compatibility{}",
                install.candidate.0.cuda,
                upgrade.map(|upgrade| format!("; or {upgrade}")).unwrap_or_default()
            )),
        ),
        None => (upgrade, None),
    };
    let mut references = vec![
        MVC_PAGE.to_string(),
        "https://github.com/NVIDIA/nvbandwidth/issues/61".to_string(),
    ];
    references.extend(tables.drivers.release(torch_cuda).map(|release| release.source.clone()));
    vec![with_note(
        finding(
            PTX_CAVEAT,
            Severity::Warning,
            format!("The driver supports CUDA {driver_cuda}, older than torch's CUDA {torch_cuda}"),
            format!(
                "torch {torch_text} was built with CUDA {torch_cuda}; this node has driver {driver_text}{driver_cuda_text}, \
             so torch runs under minor-version compatibility."
            ),
            format!(
                "Minor-version compatibility runs CUDA {major}.x code on any CUDA {major} driver, but the driver cannot \
             JIT-compile PTX produced by a newer toolkit than its own. Precompiled kernels work; Triton kernels \
             (torch.compile) and extensions that ship PTX may fail with cudaErrorUnsupportedPtxVersion \
             (\"the provided PTX was compiled with an unsupported toolchain\").",
                major = torch_cuda.major
            ),
            fix,
            references,
        ),
        note,
    )]
}

/// Who gives a release's Python range: PyTorch's release matrix, or for the
/// releases before it, the wheels PyTorch published on PyPI.
fn who_says(release: &TorchRelease) -> &'static str {
    if release.source.contains("RELEASE.md") {
        "PyTorch's release matrix supports"
    } else {
        "PyPI has wheels of"
    }
}

fn python_supported_by_torch(facts: &Facts, tables: &Tables) -> Vec<Finding> {
    let (Some(torch), Some(python)) = (
        torch_version(facts),
        facts.python_version.as_ref().and_then(MajorMinor::of),
    ) else {
        return Vec::new();
    };
    let Some(release) = tables.torch.release(torch.release) else {
        return Vec::new();
    };
    if (release.python_min..=release.python_max).contains(&python) {
        return Vec::new();
    }
    let range = format!("Python {} to {}", release.python_min, release.python_max);
    let references = vec![release.source.clone()];
    if release.python_experimental.contains(&python) {
        return vec![finding(
            PYTHON_OUTSIDE,
            Severity::Info,
            format!("Python {python} is experimental for torch {}", torch.release),
            format!(
                "The interpreter is Python {python}; {} torch {} on {range}, and its wheels for {python} are \
                 experimental or made for some platforms only.",
                who_says(release),
                torch.release
            ),
            "Experimental builds are published but not held to the release's tests; a failure there is \
             more likely than on a supported version."
                .to_string(),
            Some(format!(
                "use {range} for torch {} to stay on a supported combination",
                torch.release
            )),
            references,
        )];
    }
    // The torch releases made for this Python, to name one in the fix: those
    // whose set of torch and companions the table knows, which a fix can install.
    let supporting: Vec<MajorMinor> = tables
        .torch
        .releases
        .iter()
        .filter(|row| row.latest.is_some() && (row.python_min..=row.python_max).contains(&python))
        .map(|row| row.torch)
        .collect();
    let alternative = if python < release.python_min {
        supporting.last()
    } else {
        supporting.first()
    };
    let new_venv = format!("use {range} (a new virtual environment with that interpreter)");
    let (mut fix, mut note) = (new_venv.clone(), None);
    if let Some(&alternative) = alternative {
        // Torch with the torchvision and torchaudio made for it, from an index
        // this driver and these GPUs can use.
        let install = torch_install::choose(
            facts,
            tables,
            &torch_install::visible_capabilities(facts, tables),
            &|version| MajorMinor::of(version) == Some(alternative),
            Prefer::Lowest,
        );
        match install {
            Some(install) => {
                fix = install.command.clone();
                note = Some(format!(
                    "a torch release made for Python {python}: {}; or {new_venv}",
                    install.note()
                ));
            }
            None => fix.push_str(&format!(
                ", or install torch {alternative}, made for Python {python}, with the torchvision and torchaudio \
                 made for it"
            )),
        }
    }
    vec![with_note(
        finding(
            PYTHON_OUTSIDE,
            Severity::Warning,
            format!("Python {python} is outside torch {}'s supported range", torch.release),
            format!(
                "The interpreter is Python {python}; {} torch {} ({}) on {range}.",
                who_says(release),
                torch.release,
                torch.public
            ),
            "PyTorch publishes wheels of a release only for the Python versions in its matrix, so this torch is a \
         source build or a wheel made for another interpreter; the latter fails at import, and either is \
         outside what the release was tested on."
                .to_string(),
            Some(fix),
            references,
        ),
        note,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fix, then its note: the command and what the text says beside it.
    fn fix_and_note(finding: &Finding) -> String {
        format!(
            "{} | {}",
            finding.fix.as_deref().unwrap_or_default(),
            finding.fix_note.as_deref().unwrap_or_default()
        )
    }
    use crate::builtin_checks::test_support::{healthy, ids, run};
    use crate::snapshot::Snapshot;
    use crate::snapshot::frameworks::Build;

    fn set_torch(snapshot: &mut Snapshot, version: &str, cuda: &str) {
        let Some(Build::Torch(build)) = snapshot.frameworks.get_mut("torch").and_then(|f| f.build.as_mut()) else {
            panic!("the fixture has a torch build");
        };
        build.version = Some(version.to_string());
        build.variant = version.split_once('+').map(|(_, variant)| variant.to_string());
        build.cuda = Some(cuda.to_string());
    }

    fn set_driver(snapshot: &mut Snapshot, driver: &str, cuda: Option<&str>) {
        let nvidia = snapshot.nvidia.as_mut().expect("the fixture has NVIDIA facts");
        nvidia.driver_version = Some(driver.to_string());
        nvidia.cuda_driver_version = cuda.map(str::to_string);
    }

    #[test]
    fn a_volta_node_is_pointed_at_r580_the_last_branch_that_drives_it() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.9.1+cu130", "13.0");
        for gpu in &mut snapshot.nvidia.as_mut().unwrap().gpus {
            gpu.name = Some("Tesla V100-SXM2-32GB".to_string());
            gpu.compute_capability = Some("7.0".to_string());
        }
        let fix = fix_and_note(&run(&snapshot, driver_runs_torch_cuda)[0]);
        assert!(
            fix.contains("(branch R580, a long-term support branch supported until 2028-06)"),
            "{fix}"
        );
    }

    #[test]
    fn a_cuda_13_torch_on_a_535_driver_is_an_error_with_both_ways_out() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.9.1+cu130", "13.0");
        let findings = run(&snapshot, driver_runs_torch_cuda);
        assert_eq!(ids(&findings), [(DRIVER_TOO_OLD, Severity::Error)]);
        let finding = &findings[0];
        assert!(
            finding.detail.contains("needs driver 580.65.06 or newer"),
            "{}",
            finding.detail
        );
        assert!(finding.detail.contains("driver 535.183.01, which supports CUDA 12.2"));
        let fix = fix_and_note(finding);
        let fix = fix.as_str();
        // No torch 2.9 build is for CUDA <= 12.2; cu126 runs on this driver
        // under minor-version compatibility, and the fix says so.
        assert!(
            fix.starts_with(
                "pip install \"torch==2.9.1\" --index-url https://download.pytorch.org/whl/cu126 \
                 | a build for CUDA 12.6, which this driver runs under minor-version compatibility"
            ),
            "{fix}"
        );
        // Hopper is driven by R620, supported longest.
        assert!(
            fix.contains("; or upgrade the NVIDIA driver to 580.65.06 or newer (branch R620"),
            "{fix}"
        );
    }

    #[test]
    fn the_suggested_build_is_one_the_driver_runs() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.9.1+cu130", "13.0");
        set_driver(&mut snapshot, "570.124.06", Some("12.8"));
        let findings = run(&snapshot, driver_runs_torch_cuda);
        assert_eq!(ids(&findings), [(DRIVER_TOO_OLD, Severity::Error)]);
        let fix = fix_and_note(&findings[0]);
        let fix = fix.as_str();
        assert!(
            fix.starts_with("pip install \"torch==2.9.1\" --index-url https://download.pytorch.org/whl/cu128"),
            "{fix}"
        );
    }

    #[test]
    fn a_driver_below_the_major_floor_is_caught_without_a_reported_cuda() {
        let mut snapshot = healthy();
        set_driver(&mut snapshot, "520.61.05", None);
        let findings = run(&snapshot, driver_runs_torch_cuda);
        assert_eq!(ids(&findings), [(DRIVER_TOO_OLD, Severity::Error)]);
        assert!(
            findings[0]
                .detail
                .contains("by NVIDIA's table of toolkit drivers supports CUDA 11.8")
        );
        // 2.3 has a cu118 build, which a 520 driver runs.
        assert!(findings[0].fix.as_deref().unwrap().contains("whl/cu118"));
    }

    #[test]
    fn a_newer_minor_than_the_driver_is_the_ptx_caveat() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.5.1+cu124", "12.4");
        let findings = run(&snapshot, driver_runs_torch_cuda);
        assert_eq!(ids(&findings), [(PTX_CAVEAT, Severity::Warning)]);
        let fix = fix_and_note(&findings[0]);
        let fix = fix.as_str();
        assert!(
            fix.contains("550.54.14 or newer, the driver CUDA 12.4 shipped with"),
            "{fix}"
        );
        assert!(
            fix.contains("\"torch==2.5.1\" --index-url https://download.pytorch.org/whl/cu121"),
            "{fix}"
        );
    }

    #[test]
    fn an_equal_or_newer_driver_cuda_is_quiet_and_so_is_a_cpu_torch() {
        let mut snapshot = healthy();
        set_torch(&mut snapshot, "2.5.1+cu124", "12.4");
        set_driver(&mut snapshot, "550.54.14", Some("12.4"));
        assert_eq!(run(&snapshot, driver_runs_torch_cuda), []);
        set_driver(&mut snapshot, "580.65.06", Some("13.0"));
        assert_eq!(run(&snapshot, driver_runs_torch_cuda), []);
        set_torch(&mut snapshot, "2.5.1+cpu", "");
        set_driver(&mut snapshot, "450.80.02", Some("11.0"));
        assert_eq!(run(&snapshot, driver_runs_torch_cuda), []);
    }

    #[test]
    fn no_driver_facts_leave_the_absence_to_the_device_check() {
        let mut snapshot = healthy();
        snapshot.nvidia = None;
        assert_eq!(run(&snapshot, driver_runs_torch_cuda), []);
    }

    #[test]
    fn python_outside_the_release_range_is_a_warning_and_experimental_is_info() {
        let mut snapshot = healthy();
        snapshot.python.version = "3.8.18".to_string();
        set_torch(&mut snapshot, "2.9.1+cu128", "12.8");
        let findings = run(&snapshot, python_supported_by_torch);
        assert_eq!(ids(&findings), [(PYTHON_OUTSIDE, Severity::Warning)]);
        let fix = fix_and_note(&findings[0]);
        let fix = fix.as_str();
        assert!(fix.contains("Python 3.10 to 3.14"), "{fix}");
        // torch 2.4, the newest release for 3.8, with its torchvision and torchaudio
        // where installed, from an index driver 535 runs.
        assert!(
            fix.contains("pip install \"torch==2.4.1\" --index-url https://download.pytorch.org/whl/cu121"),
            "{fix}"
        );

        snapshot.python.version = "3.12.3".to_string();
        set_torch(&mut snapshot, "2.3.1+cu121", "12.1");
        assert_eq!(
            ids(&run(&snapshot, python_supported_by_torch)),
            [(PYTHON_OUTSIDE, Severity::Info)]
        );

        snapshot.python.version = "3.13.0".to_string();
        let findings = run(&snapshot, python_supported_by_torch);
        let fix = fix_and_note(&findings[0]);
        let fix = fix.as_str();
        assert!(fix.contains("pip install \"torch==2.6.0\""), "{fix}");
    }

    #[test]
    fn a_torch_release_the_table_does_not_know_is_not_judged() {
        let mut snapshot = healthy();
        snapshot.python.version = "3.7.0".to_string();
        set_torch(&mut snapshot, "0.4.1", "9.2");
        assert_eq!(run(&snapshot, python_supported_by_torch), []);
    }

    /// torch 1.13's Linux wheels include Python 3.11, which RELEASE.md does
    /// not list: a note, not a warning. torch 1.8 on 3.10 has no wheel at
    /// all, and the PyPI-dated row says so in its own source's words; the fix
    /// names no 1.x release, whose companions the table does not know.
    #[test]
    fn torch_1_x_is_judged_by_its_own_sources_words() {
        let mut snapshot = healthy();
        snapshot.python.version = "3.11.4".to_string();
        set_torch(&mut snapshot, "1.13.1+cu117", "11.7");
        assert_eq!(
            ids(&run(&snapshot, python_supported_by_torch)),
            [(PYTHON_OUTSIDE, Severity::Info)]
        );
        snapshot.python.version = "3.10.12".to_string();
        set_torch(&mut snapshot, "1.8.1+cu111", "11.1");
        let findings = run(&snapshot, python_supported_by_torch);
        assert_eq!(ids(&findings), [(PYTHON_OUTSIDE, Severity::Warning)]);
        assert!(
            findings[0].detail.contains("PyPI has wheels of torch 1.8"),
            "{findings:#?}"
        );
        snapshot.python.version = "3.6.15".to_string();
        set_torch(&mut snapshot, "2.1.0+cu118", "11.8");
        let fix = fix_and_note(&run(&snapshot, python_supported_by_torch)[0]);
        assert!(!fix.contains("torch 1."), "{fix}");
    }
}

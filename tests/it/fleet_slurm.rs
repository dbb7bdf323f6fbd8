//! `envdoctor fleet --slurm` against a real Slurm cluster: munged, slurmctld
//! and three slurmd (nodes n1, n2, n3) on loopback, brought up by
//! `tests/slurm/cluster.sh` and torn down after. Each node runs envdoctor
//! through `tests/slurm/node-wrapper.sh`, which sets `NCCL_IB_DISABLE=1` on
//! one node only and, when asked, makes another node never answer; and once
//! with no `--envdoctor`, from a copy of envdoctor the nodes cannot see, which
//! srun's broadcast must carry to them.
//!
//! The cluster needs root and Debian's Slurm packages. Where they are missing
//! the test records its skip, unless `ENVDOCTOR_TEST_REQUIRE` names `slurm`
//! (as `.ci/run` does where it installed them), which makes it a failure.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

const ENVDOCTOR: &str = env!("CARGO_BIN_EXE_envdoctor");
/// Ports away from Slurm's defaults and from a developer's own test cluster.
const CTLD_PORT: &str = "17817";
const SLURMD_PORT: &str = "17818";
/// The hung node's sleep: a length no other process on the machine uses, so it can be looked for.
const HANG_SECS: &str = "347";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    /// `None` when this machine cannot run one (and the test may skip).
    fn up() -> Option<Cluster> {
        let dir = tempfile::tempdir().unwrap();
        // munged refuses a socket folder others cannot enter; tempdir makes it 0700.
        std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let output = cluster_script(dir.path(), "up");
        match output.status.code() {
            Some(0) => Some(Cluster { dir }),
            Some(77) => {
                common::skip(
                    "fleet_slurm",
                    "slurm",
                    &format!(
                        "no Slurm cluster can run here: {}",
                        String::from_utf8_lossy(&output.stderr).trim()
                    ),
                );
                None
            }
            _ => panic!(
                "the test cluster did not come up:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ),
        }
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    fn fleet(&self, hang: Option<&str>, arguments: &[&str]) -> (Output, Duration) {
        let started = Instant::now();
        let output = Command::new(ENVDOCTOR)
            .arg("fleet")
            .args(arguments)
            .env("SLURM_CONF", self.conf())
            .env("ENVDOCTOR_TEST_BIN", ENVDOCTOR)
            .env("ENVDOCTOR_TEST_DIFFER_NODE", "n2")
            .env("ENVDOCTOR_TEST_HANG_NODE", hang.unwrap_or(""))
            .env("ENVDOCTOR_TEST_HANG_SECS", HANG_SECS)
            .output()
            .unwrap();
        (output, started.elapsed())
    }

    fn queue(&self) -> String {
        let output = Command::new("squeue")
            .args(["-h", "-o", "%i %T"])
            .env("SLURM_CONF", self.conf())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let output = cluster_script(self.dir.path(), "down");
        if !output.status.success() && !std::thread::panicking() {
            panic!("teardown failed:\n{}", String::from_utf8_lossy(&output.stderr));
        }
    }
}

fn cluster_script(dir: &Path, action: &str) -> Output {
    Command::new("bash")
        .arg(repo().join("tests/slurm/cluster.sh"))
        .arg(action)
        .env("SLURM_TEST_DIR", dir)
        .env("NNODES", "3")
        .env("SLURMCTLD_PORT", CTLD_PORT)
        .env("SLURMD_PORT", SLURMD_PORT)
        .output()
        .unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "not JSON ({error}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn names(list: &Value, key: &str) -> Vec<String> {
    let mut names: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[key].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Processes still running the hung node's `sleep`.
fn hung_sleeps() -> Vec<String> {
    let output = Command::new("pgrep").args(["-a", "-x", "sleep"]).output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.ends_with(&format!(" {HANG_SECS}")))
        .map(str::to_string)
        .collect()
}

fn wait_until(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what} after {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn every_node_of_a_real_cluster_answers_and_the_one_that_differs_is_named() {
    let Some(cluster) = Cluster::up() else { return };
    let wrapper = repo().join("tests/slurm/node-wrapper.sh");
    let wrapper = wrapper.to_str().unwrap();

    // All three answer; n2 differs by an NCCL variable only its task sets.
    let (output, _) = cluster.fleet(
        None,
        &["--format", "json", "--envdoctor", wrapper, "--slurm", "-N", "3"],
    );
    let report = json(&output);
    assert_eq!(report["nodes"]["reported"], 3, "{report:#}");
    assert_eq!(report["nodes"]["not_answered"], 0);
    let deviations = report["deviations"].as_array().unwrap();
    assert_eq!(deviations.len(), 1, "{report:#}");
    assert_eq!(deviations[0]["nodes"], serde_json::json!(["n2"]));
    let difference = &deviations[0]["differences"][0];
    assert_eq!(difference["subject"], "NCCL_IB_DISABLE");
    assert_eq!(difference["found"], "1");
    assert_eq!(difference["severity"], "warning");
    // Every node sent a check report, with its findings.
    assert_eq!(report["nodes"]["judged"], 3);
    // A warning passes the default --fail-on error.
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // n3 hangs: it is named as not answering within the deadline, and its task is stopped.
    let (output, took) = cluster.fleet(
        Some("n3"),
        &[
            "--format",
            "json",
            "--deadline",
            "4",
            "--envdoctor",
            wrapper,
            "--slurm",
            "-N",
            "3",
        ],
    );
    let report = json(&output);
    assert_eq!(report["nodes"]["reported"], 2, "{report:#}");
    assert_eq!(names(&report["not_answered"], "node"), ["n3"]);
    assert!(
        report["not_answered"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("within 4 s"),
        "{report:#}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "a node that did not answer fails the fleet"
    );
    assert!(took < Duration::from_secs(30), "stopping the step took {took:?}");
    wait_until("the hung task is still running", Duration::from_secs(20), || {
        hung_sleeps().is_empty() && cluster.queue().is_empty()
    });

    // The same through text, for a person: the nodes are named.
    let (output, _) = cluster.fleet(
        Some("n3"),
        &["--deadline", "4", "--envdoctor", wrapper, "--slurm", "-N", "3"],
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("n3: did not answer within 4 s"), "{text}");
    assert!(text.contains("NCCL_IB_DISABLE is `1` on this node"), "{text}");

    // An envdoctor the nodes cannot run: nothing came back, which is the
    // command's fault, not a node's: exit 2, one line naming a node and why.
    let (output, _) = cluster.fleet(None, &["--envdoctor", "/nonexistent/envdoctor", "--slurm", "-N", "3"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("ended without a report: exited with exit code 127"),
        "{stderr}"
    );

    broadcast_reaches_nodes_that_have_no_envdoctor(&cluster);

    // As the first step of a batch job. The job's own task counts (here as a job
    // with two tasks per node would have them) must not leak into fleet's step.
    let work = tempfile::tempdir().unwrap();
    let result = work.path().join("fleet.json");
    let script = work.path().join("job.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n#SBATCH -N 3 -o {out}\nexport SLURM_NTASKS=6 SLURM_NTASKS_PER_NODE=2\n\
             {envdoctor} fleet --format json -o {result} --envdoctor {wrapper} --slurm || exit 1\n\
             echo the job would start here\n",
            out = work.path().join("job.out").display(),
            envdoctor = ENVDOCTOR,
            result = result.display(),
        ),
    )
    .unwrap();
    let batch = Command::new("sbatch")
        .arg("--wait")
        .arg(&script)
        .env("SLURM_CONF", cluster.conf())
        .env("ENVDOCTOR_TEST_BIN", ENVDOCTOR)
        .env("ENVDOCTOR_TEST_DIFFER_NODE", "n2")
        .output()
        .unwrap();
    let job_out = std::fs::read_to_string(work.path().join("job.out")).unwrap_or_default();
    assert!(
        batch.status.success(),
        "{}{job_out}",
        String::from_utf8_lossy(&batch.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(report["nodes"]["reported"], 3, "{report:#}");
    assert_eq!(report["deviations"][0]["nodes"], serde_json::json!(["n2"]));
    assert!(job_out.contains("the job would start here"), "{job_out}");

    let conf_dir = cluster.dir.path().to_path_buf();
    drop(cluster);
    // Nothing of the cluster is left: no daemon, no step, no task.
    assert!(!conf_dir.exists(), "the cluster's folder was not removed");
    let leftovers = Command::new("pgrep")
        .args(["-a", "-f", conf_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        leftovers.stdout.is_empty(),
        "still running: {}",
        String::from_utf8_lossy(&leftovers.stdout)
    );
    assert!(hung_sleeps().is_empty());
}

/// The broadcast copies srun left in /tmp for this cluster's nodes.
fn broadcast_copies() -> Vec<String> {
    let mut copies: Vec<String> = std::fs::read_dir("/tmp")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| {
            name.starts_with("slurm_bcast_") && ["_n1", "_n2", "_n3"].iter().any(|node| name.ends_with(node))
        })
        .collect();
    copies.sort();
    copies
}

/// Runs `fleet ARGUMENTS` from a copy of envdoctor in a folder that only this
/// command sees: a tmpfs mounted in a mount namespace of its own, so the
/// slurmd of the nodes (in the machine's namespace) cannot open the copy's
/// path. PATH holds no envdoctor either. `None` where no mount namespace can be
/// made here.
fn fleet_from_a_private_copy(cluster: &Cluster, arguments: &[&str]) -> Option<Output> {
    let folder = tempfile::tempdir().unwrap();
    // What the nodes see of the folder: nothing; the copy is only inside the namespace.
    let script = r#"set -e
folder=$1; envdoctor=$2; shift 2
mount -t tmpfs envdoctor-private "$folder"
cp "$envdoctor" "$folder/envdoctor"
if command -v envdoctor; then echo "an envdoctor is on PATH" >&2; exit 3; fi
# {copy} in the arguments is the copy's path
for argument; do shift; [ "$argument" = "{copy}" ] && argument=$folder/envdoctor; set -- "$@" "$argument"; done
exec "$folder/envdoctor" fleet "$@""#;
    let output = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script, "sh"])
        .arg(folder.path())
        .arg(ENVDOCTOR)
        .args(arguments)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("SLURM_CONF", cluster.conf())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("unshare failed") || stderr.contains("mount: ") {
        common::skip(
            "fleet_slurm (broadcast)",
            "slurm",
            &format!("no private mount namespace here: {}", stderr.trim()),
        );
        return None;
    }
    assert_ne!(output.status.code(), Some(3), "{stderr}");
    assert!(
        std::fs::read_dir(folder.path()).unwrap().next().is_none(),
        "the private copy showed outside its namespace"
    );
    Some(output)
}

fn broadcast_reaches_nodes_that_have_no_envdoctor(cluster: &Cluster) {
    let before = broadcast_copies();
    // The nodes cannot reach the copy's path: asked to run it there, every node fails.
    let Some(output) = fleet_from_a_private_copy(cluster, &["--envdoctor", "{copy}", "--slurm", "-N", "3"]) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    eprintln!("--envdoctor at the copy's path: {stderr}");
    assert!(stderr.contains("ended without a report"), "{stderr}");

    // Without --envdoctor, srun broadcasts the copy itself, and every node answers.
    let output = fleet_from_a_private_copy(cluster, &["--format", "json", "--slurm", "-N", "3"]).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("fleet from a copy the nodes cannot see, broadcast (stderr: {stderr:?}):");
    let report = json(&output);
    eprintln!("{}", serde_json::to_string(&report["nodes"]).unwrap());
    assert_eq!(report["nodes"]["reported"], 3, "{report:#}\n{stderr}");
    assert_eq!(report["nodes"]["not_answered"], 0, "{report:#}");
    assert_eq!(report["nodes"]["judged"], 3, "{report:#}");
    assert_eq!(report["nodes"]["deviating"], 0, "{report:#}");
    // 1 is findings, which the machine's own Python (the only one on this PATH) may have;
    // 2 would be fleet failing.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    // Each node's copy removed itself once its report was out.
    assert_eq!(broadcast_copies(), before, "broadcast copies left in /tmp");

    // A broadcast that cannot land: one line, in srun's words.
    let output = fleet_from_a_private_copy(cluster, &["--slurm", "-N", "3", "--bcast=/nonexistent/"]).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("broadcast to a missing folder: {stderr}");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("srun could not copy envdoctor to the nodes (--bcast): REQUEST_FILE_BCAST(n")
            && stderr.contains("No such file or directory; Failed to broadcast"),
        "{stderr}"
    );
}

//! A log's cause does not depend on how the log reached explain. Each corpus
//! log is rewrapped as tools, pages and people present logs (`docker compose
//! logs`, `kubectl logs --timestamps`, a CI runner, a Python logger,
//! journalctl, Docker's JSON log file, a CRI runtime's log file, `docker build`,
//! pip's lines and progress bars above,
//! torchrun with one rank or two failing alike, mpirun, `srun -l`, an e-mail quote, a
//! Markdown code block or fence, a page's HTML source, a word processor, a
//! coloured terminal, a launcher's summary of the child that failed after it,
//! an exception Python passed over at exit)
//! and must get the
//! answer the log itself gets. Before the wrapping was read through, one
//! prefix changed the answer on 13 of 586 fixture logs, and HTML escaping on 53.

use std::path::{Path, PathBuf};

use envdoctor::explain::{Explainer, Explanation, FactsFrom, explain};
use envdoctor::facts::Facts;
use envdoctor::matrix::Matrix;

type Wrap = fn(&str) -> String;

fn each_line(log: &str, prefix: impl Fn(usize) -> String) -> String {
    log.split('\n')
        .enumerate()
        .map(|(index, line)| format!("{}{line}", prefix(index)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A second that moves on with the line, as a real time stamp does.
fn second(index: usize) -> String {
    format!("{:02}:{:02}", index / 60 % 60, index % 60)
}

const WRAPPINGS: [(&str, Wrap); 31] = [
    ("compose", |log| each_line(log, |_| "trainer-worker-1  | ".into())),
    ("Docker's JSON log file", docker_json),
    ("a CRI runtime's log file", |log| {
        each_line(log, |index| {
            format!("2024-05-01T12:{}.123456789Z stderr F ", second(index))
        })
    }),
    ("docker build", |log| {
        each_line(log, |index| format!("#14 {}.{:03} ", index / 10, index % 1000))
    }),
    ("kubectl --prefix", |log| {
        each_line(log, |_| "[pod/trainer-0/pytorch] ".into())
    }),
    ("CI runner", |log| {
        each_line(log, |index| format!("2024-05-01T12:{}.1234567Z ", second(index)))
    }),
    ("Python logger", |log| {
        each_line(log, |index| format!("2024-05-01 12:{},123 - ERROR - ", second(index)))
    }),
    ("bracketed stamp and level", |log| {
        each_line(log, |index| format!("[2024-05-01 12:{}] [INFO] ", second(index)))
    }),
    ("Python logger with its name", |log| {
        each_line(log, |index| {
            format!("2024-05-01 12:{},5 - accelerate.utils - WARNING - ", second(index))
        })
    }),
    ("journalctl", |log| {
        each_line(log, |index| {
            format!("May  1 12:{} node7 python3[4242]: ", second(index))
        })
    }),
    ("torchrun, one rank", |log| each_line(log, |_| "[rank0]: ".into())),
    ("torchrun, two ranks failing alike", |log| {
        log.split('\n')
            .flat_map(|line| [format!("[rank0]: {line}"), format!("[rank1]: {line}")])
            .collect::<Vec<_>>()
            .join("\n")
    }),
    ("mpirun", |log| each_line(log, |_| "[1,0]<stderr>:".into())),
    ("srun -l", |log| each_line(log, |_| "0: ".into())),
    ("quote", |log| each_line(log, |_| "> ".into())),
    ("code block", |log| each_line(log, |_| "    ".into())),
    ("quoted compose with stamps", |log| {
        each_line(log, |index| format!("> web-1  | 2024-05-01T12:{}Z ", second(index)))
    }),
    ("HTML source", |log| {
        log.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#x27;")
    }),
    ("curly quotes", |log| {
        log.replace('\'', "\u{2019}").replace('"', "\u{201d}")
    }),
    ("colour", |log| each_line(log, |_| "\u{1b}[31m".into()) + "\u{1b}[0m"),
    ("no-break spaces", |log| log.replace(' ', "\u{a0}")),
    ("en spaces", |log| log.replace(' ', "\u{2002}")),
    ("the last line in bold", |log| {
        let log = log.trim_end();
        match log.rsplit_once('\n') {
            Some((before, last)) => format!("{before}\n**{}**\n", last.trim()),
            None => format!("**{}**\n", log.trim()),
        }
    }),
    ("shell prompt above", |log| {
        format!("(venv) user@gpu-node:~/run$ python train.py\n{log}")
    }),
    ("Windows prompt above", |log| {
        format!("C:\\Users\\me\\sd>python launch.py\n{log}")
    }),
    ("Markdown fence", |log| format!("```console\n{log}\n```\n")),
    ("pip's lines above", |log| format!("{PIP_ROUTINE}{log}")),
    ("progress bars above", |log| format!("{PROGRESS}{log}")),
    ("torchrun's summary after", |log| format!("{log}\n{TORCHRUN_SUMMARY}")),
    ("accelerate's summary after", |log| {
        format!("{log}\n{ACCELERATE_SUMMARY}")
    }),
    ("an exception Python passed over after", |log| {
        format!("{log}\n{IGNORED_AT_EXIT}")
    }),
];

/// What pip prints installing a project's requirements that are there already.
const PIP_ROUTINE: &str = "Looking in indexes: https://pypi.org/simple\nRequirement already satisfied: numpy in /usr/local/lib/python3.10/dist-packages (from -r requirements.txt (line 1)) (1.26.4)\nRequirement already satisfied: tqdm in /usr/local/lib/python3.10/dist-packages (from -r requirements.txt (line 2)) (4.66.1)\nCollecting einops (from -r requirements.txt (line 3))\n  Downloading einops-0.8.0-py3-none-any.whl (43 kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 43.2/43.2 kB 3.1 MB/s eta 0:00:00\nInstalling collected packages: einops\nSuccessfully installed einops-0.8.0\nWARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.\n";

/// tqdm's bars as a model's shards load.
const PROGRESS: &str = "Loading checkpoint shards:   0%|          | 0/4 [00:00<?, ?it/s]\nLoading checkpoint shards:  25%|##5       | 1/4 [00:02<00:06,  2.10s/it]\nLoading checkpoint shards:  50%|#####     | 2/4 [00:04<00:04,  2.05s/it]\nLoading checkpoint shards: 100%|##########| 4/4 [00:08<00:00,  2.01s/it]\n";

/// The wrappings that print a failure of their own after the log.
const ADD_A_FAILURE: [&str; 3] = [
    "torchrun's summary after",
    "accelerate's summary after",
    "an exception Python passed over after",
];

/// Each line as Docker's json-file driver stores it: a JSON string, with
/// `<`, `>` and `&` escaped as Go escapes them.
fn docker_json(log: &str) -> String {
    log.split('\n')
        .map(|line| {
            let escaped = serde_json::to_string(&format!("{line}\n"))
                .unwrap()
                .replace('<', "\\u003c")
                .replace('>', "\\u003e")
                .replace('&', "\\u0026");
            format!("{{\"log\":{escaped},\"stream\":\"stderr\",\"time\":\"2024-05-01T12:00:00.123456789Z\"}}\n")
        })
        .collect()
}

/// What Python prints for an exception raised where nothing could catch it,
/// here a DataLoader's worker shutdown as the interpreter exits after the failure.
const IGNORED_AT_EXIT: &str = r#"Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f3a2c1d5e50>
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1479, in __del__
    self._shutdown_workers()
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1443, in _shutdown_workers
    if self._persistent_workers or self._workers_status[worker_id]:
AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'
"#;

/// What torchrun prints when a child it started failed: its own traceback,
/// ending in ChildFailedError, after whatever the child printed.
const TORCHRUN_SUMMARY: &str = r#"E0501 12:00:05.123000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4243) of binary: /usr/bin/python3
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main
    run(args)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 4243)
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"#;

/// What `accelerate launch` prints when the process it started failed.
const ACCELERATE_SUMMARY: &str = r#"Traceback (most recent call last):
  File "/usr/local/bin/accelerate", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/launch.py", line 1174, in launch_command
    simple_launcher(args)
  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/launch.py", line 769, in simple_launcher
    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)
subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py']' returned non-zero exit status 1.
"#;

/// What decides a verdict: the outcome, and the first cause with its confidence.
fn verdict(explanation: &Explanation) -> String {
    let first = explanation
        .candidates
        .first()
        .map(|best| format!("{} ({:?})", best.id, best.confidence));
    format!("{:?}, {first:?}", explanation.outcome)
}

fn explained(log: &str, explainer: &Explainer, facts: &Facts) -> String {
    let explanation = explainer
        .explain(log.as_bytes(), "log", facts, FactsFrom::TheLogsNode)
        .unwrap();
    verdict(&explanation)
}

/// Wrappings each case is checked under, in turn: with 150 cases or more,
/// every wrapping meets 33 or more of them, which keeps the test to seconds
/// in a debug build.
const WRAPPINGS_PER_CASE: usize = 7;

#[test]
fn every_corpus_log_gets_the_same_answer_however_it_is_wrapped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/explain");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("log.txt").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 150, "{} cases", cases.len());
    let matrix = Matrix::load(&[]).unwrap();
    let explainer = Explainer::new(&matrix);
    let changed: Vec<String> = crate::common::across_cores(&cases, |index, case| {
        let wrappings =
            (0..WRAPPINGS_PER_CASE).map(|turn| WRAPPINGS[(index * WRAPPINGS_PER_CASE + turn) % WRAPPINGS.len()]);
        changes(case, &explainer, wrappings)
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

/// Each wrapping under which `case` gets another answer than its log's own.
fn changes(case: &Path, explainer: &Explainer, wrappings: impl Iterator<Item = (&'static str, Wrap)>) -> Vec<String> {
    let log = std::fs::read_to_string(case.join("log.txt")).unwrap();
    let path = case.join("snapshot.json");
    let snapshot = envdoctor::snapshot::parse(&std::fs::read(&path).unwrap(), &path).unwrap();
    let configs = envdoctor::configs::TrainingConfigs::default();
    let facts = Facts::new(&snapshot, &configs);
    let plain = explained(&log, explainer, &facts);
    let case = case.file_name().unwrap().to_string_lossy();
    // A launcher's summary after a log that holds no error is a failure of its own to explain.
    let no_error = plain.starts_with("NoError");
    wrappings
        .filter(|(name, _)| !(no_error && ADD_A_FAILURE.contains(name)))
        .filter_map(|(name, wrap)| {
            let wrapped = explained(&wrap(&log), explainer, &facts);
            (wrapped != plain).then(|| format!("{case}, {name}: {plain} became {wrapped}"))
        })
        .collect()
}

/// A logger that stamps its own lines, and a traceback printed raw among
/// them: the stamps come off, yet the logger's next record still ends the
/// exception's message instead of joining it.
#[test]
fn a_stamped_record_after_a_raw_traceback_ends_its_message() {
    let mut log: String = (0..100)
        .map(|step| format!("2024-05-01 12:00:{:02},001 - INFO - step {step} loss 2.31\n", step % 60))
        .collect();
    log.push_str(concat!(
        "Traceback (most recent call last):\n",
        "  File \"train.py\", line 3, in <module>\n",
        "ValueError: the batch holds no tokens\n",
        "2024-05-01 12:00:41,002 - INFO - saving the checkpoint to out/step-100\n",
    ));
    let (snapshot, configs) = recorded_node();
    let facts = Facts::new(&snapshot, &configs);
    let explanation = explain(
        log.as_bytes(),
        "log",
        &Matrix::load(&[]).unwrap(),
        &facts,
        FactsFrom::TheLogsNode,
    )
    .unwrap();
    let traceback = explanation.traceback.expect("a traceback");
    assert_eq!(traceback.message.as_deref(), Some("the batch holds no tokens"));
}

/// A short paste read as a failure in words (no exception class; four lines,
/// the most a paste may have) keeps its answer when the command that started
/// the job is pasted above it, at a shell's or Windows' prompt: the prompt's
/// line is no part of the failure (wekws93). Nor are the labels of two ranks
/// that print the same words, nor the Markdown fence a post put around it.
#[test]
fn a_prompt_above_a_short_paste_or_its_ranks_labels_are_not_part_of_it() {
    let paste = concat!(
        "Start training ...\n",
        "[W socket.cpp:401] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - Address already in use).\n",
        "[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:29400 (errno: 98 - Address already in use).\n",
        "[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network address.\n",
    );
    let (snapshot, configs) = recorded_node();
    let facts = Facts::new(&snapshot, &configs);
    let matrix = Matrix::load(&[]).unwrap();
    let plain = explain(paste.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
    assert_ne!(format!("{:?}", plain.outcome), "NoError", "{plain:#?}");
    // Two ranks that fail alike, each line after its rank's label.
    let ranks: String = paste
        .lines()
        .flat_map(|line| [format!("[rank0]: {line}\n"), format!("[rank1]: {line}\n")])
        .collect();
    for pasted in [
        format!("(venv) user@gpu-node:~/run$ torchrun --nproc_per_node 2 train.py\n{paste}"),
        format!("C:\\Users\\me\\wekws>python train.py\n{paste}"),
        ranks,
        format!("```shell\n{paste}```\n"),
        format!("~~~\n{paste}~~~\n"),
    ] {
        let prompt = pasted.lines().next().unwrap().to_string();
        let explanation = explain(pasted.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
        assert_eq!(verdict(&explanation), verdict(&plain), "{prompt}");
    }
}

/// A library's words pasted without an exception's class are read as the
/// message they are (date1: mmdet's refusal of the MMCV installed), also
/// with a run's routine output around them: pip's lines, progress bars,
/// nvidia-smi's table, notices of deprecation above, wandb's account of its
/// run after. Without it the paste is too long to be one message,
/// and the log is said to hold no error.
#[test]
fn routine_output_above_a_pasted_message_leaves_it_a_paste() {
    let paste = "MMCV==1.7.1 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.1.0.\n";
    let (snapshot, configs) = recorded_node();
    let facts = Facts::new(&snapshot, &configs);
    let matrix = Matrix::load(&[]).unwrap();
    let plain = explain(paste.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
    assert!(
        verdict(&plain).contains("package-requirement-unmet"),
        "{}",
        verdict(&plain)
    );
    let table = "+-----------------------------------------------------------------------------+\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n|-------------------------------+----------------------+----------------------+\n| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |\n+-------------------------------+----------------------+----------------------+\n";
    let notices = "/usr/local/lib/python3.10/dist-packages/transformers/utils/generic.py:311: FutureWarning: `torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.\n  torch.utils._pytree._register_pytree_node(\n/usr/local/lib/python3.10/dist-packages/mmcv/__init__.py:20: DeprecationWarning: On January 1, 2023, MMCV will release v2.0.0.\n  warnings.warn(\n/usr/local/lib/python3.10/dist-packages/timm/models/layers/__init__.py:48: FutureWarning: Importing from timm.models.layers is deprecated, please import via timm.layers\n  warnings.warn(f\"Importing from {__name__} is deprecated, please import via timm.layers\", FutureWarning)\n";
    let wandb = "wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.\nwandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)\nwandb: Find logs at: ./wandb/run-20240501_100000-abc123/logs\n";
    for pasted in [
        format!("{PIP_ROUTINE}{paste}"),
        format!("{PROGRESS}{paste}"),
        format!("{table}{paste}"),
        format!("{notices}{paste}"),
        format!("{paste}{wandb}"),
        // Routine lines are counted as written: Docker's JSON around each makes them longer.
        docker_json(&format!("{}{paste}", PIP_ROUTINE.repeat(8))),
    ] {
        let explanation = explain(pasted.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
        assert_eq!(verdict(&explanation), verdict(&plain), "{pasted}");
    }
}

/// Corpus logs copied from a terminal that cut every long line at its
/// width (100 columns) get the answer the log itself gets: the cut
/// split frames' paths and the error's words, and each gave another answer
/// (no error, unexplained, a sibling) before the cut lines were joined. A
/// log with one long line only shows no width, and is read as it comes.
#[test]
fn a_log_cut_at_a_terminals_width_is_read_as_the_log() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/explain");
    let matrix = Matrix::load(&[]).unwrap();
    let explainer = Explainer::new(&matrix);
    for case in [
        "blackwell-torch-without-sm100-sm120-leggedlab26",
        "dataloader-shm-too-small-megatronlm878",
        "deepspeed-0-14-0-torch-elastic-log-import-alignmenthandbook180",
        "deepspeed-zero3-offload-ds5538-lihe07",
        "extension-built-for-other-torch-pytorch_scatter348",
    ] {
        let case = root.join(case);
        let log = std::fs::read_to_string(case.join("log.txt")).unwrap();
        let path = case.join("snapshot.json");
        let snapshot = envdoctor::snapshot::parse(&std::fs::read(&path).unwrap(), &path).unwrap();
        let configs = envdoctor::configs::TrainingConfigs::default();
        let facts = Facts::new(&snapshot, &configs);
        let plain = explained(&log, &explainer, &facts);
        let cut = cut_at(&log, 100);
        assert_ne!(cut, log, "{}: no line longer than 100", case.display());
        assert_eq!(explained(&cut, &explainer, &facts), plain, "{}", case.display());
    }
}

/// `log` with every line longer than `width` characters cut into lines of `width`.
fn cut_at(log: &str, width: usize) -> String {
    let mut out = String::new();
    for line in log.lines() {
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            out.push('\n');
        }
        for piece in chars.chunks(width) {
            out.extend(piece);
            out.push('\n');
        }
    }
    out
}

/// A launcher's summary is passed over only where it says nothing of its
/// own: accelerate's `died with <Signals.SIGKILL: 9>` says the child was
/// killed, and stays the answer with a crash or a passed-over exception after
/// it (autotrain456).
#[test]
fn a_summary_that_says_why_the_child_ended_is_not_passed_over() {
    let (snapshot, configs) = recorded_node();
    let facts = Facts::new(&snapshot, &configs);
    let matrix = Matrix::load(&[]).unwrap();
    let killed = ACCELERATE_SUMMARY.replace("returned non-zero exit status 1.", "died with <Signals.SIGKILL: 9>.");
    let alone = explain(killed.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
    assert!(
        verdict(&alone).contains("host-out-of-memory-killed"),
        "{}",
        verdict(&alone)
    );
    for after in ["Segmentation fault (core dumped)\n", IGNORED_AT_EXIT] {
        let log = format!("{killed}{after}");
        let explanation = explain(log.as_bytes(), "log", &matrix, &facts, FactsFrom::TheLogsNode).unwrap();
        assert_eq!(verdict(&explanation), verdict(&alone), "{after}");
    }
}

/// The node recorded on a real H100, which the short logs above are judged on.
fn recorded_node() -> (envdoctor::snapshot::Snapshot, envdoctor::configs::TrainingConfigs) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/explain/deepspeed-zero3-offload-h100-recorded/snapshot.json");
    let snapshot = envdoctor::snapshot::parse(&std::fs::read(&path).unwrap(), &path).unwrap();
    (snapshot, envdoctor::configs::TrainingConfigs::default())
}

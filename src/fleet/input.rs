//! Reports from files, directories and standard input, handed on one at a
//! time. A report that cannot be read is an item of its own (it names the file
//! and line), so one truncated file does not hide ten thousand good ones; an
//! argument that names nothing is the user's mistake and stops the command.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::aggregate::Prepared;
use super::documents::{Piece, Splitter};
use super::reports::{self, GivenName, NodeReport};

/// What a source yields: a document not yet parsed (parsing is the costly part,
/// done on worker threads by `pipeline`), or an outcome already known.
pub enum Raw {
    Document {
        bytes: Vec<u8>,
        /// The file (or node) it came from, and the line it began on there.
        source: String,
        line: usize,
        name: GivenName,
    },
    Done(Item),
}

pub enum Item {
    Report(Box<Prepared>),
    /// A report that could not be read: `source` names the file, or the node.
    Unreadable {
        source: String,
        problem: String,
    },
    /// A node that was asked (through Slurm) and sent nothing usable.
    NotAnswered {
        node: String,
        problem: String,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read `{path}`")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read standard input")]
    Stdin(#[source] std::io::Error),
}

/// Standard input, as an argument.
pub const STDIN: &str = "-";

/// Reads every report the arguments name, in order; a directory's `*.json`
/// files in name order.
pub fn read(arguments: &[PathBuf], sink: &mut dyn FnMut(Raw)) -> Result<(), InputError> {
    for argument in arguments {
        if argument.as_os_str() == STDIN {
            // Nothing at all on standard input is no report, as an empty directory is:
            // if nothing else was read either, the command says so and stops.
            read_stream(std::io::stdin().lock(), "standard input", "stdin", sink).map_err(InputError::Stdin)?;
            continue;
        }
        let unreadable = |source| InputError::Unreadable {
            path: argument.clone(),
            source,
        };
        if argument.is_dir() {
            for file in json_files(argument).map_err(unreadable)? {
                read_file(&file, sink);
            }
        } else {
            let file = crate::bounded_read::open_regular(argument).map_err(unreadable)?;
            let source = argument.display().to_string();
            if read_stream(file, &source, &stem(argument), sink).map_err(unreadable)? == Stream::Empty {
                empty_file(source, sink);
            }
        }
    }
    Ok(())
}

fn json_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|extension| extension == "json") && !path.is_dir() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A file found in a directory: one that cannot be opened is a report lost, not a typo.
fn read_file(path: &Path, sink: &mut dyn FnMut(Raw)) {
    let source = path.display().to_string();
    let result = crate::bounded_read::open_regular(path).and_then(|file| read_stream(file, &source, &stem(path), sink));
    match result {
        Ok(Stream::Read) => {}
        Ok(Stream::Empty) => empty_file(source, sink),
        Err(error) => sink(Raw::Done(Item::Unreadable {
            source,
            problem: format!("cannot read it: {error}"),
        })),
    }
}

/// A report file with nothing in it: a node that began to write its report and stopped.
fn empty_file(source: String, sink: &mut dyn FnMut(Raw)) {
    sink(Raw::Done(Item::Unreadable {
        source,
        problem: "empty: no report in it".to_string(),
    }));
}

/// Whether a stream held anything at all.
#[derive(Debug, PartialEq, Eq)]
pub enum Stream {
    /// Reports, or text that is not one (each is an item of its own).
    Read,
    /// Not a byte but white space: the caller says whether that is a report lost.
    Empty,
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Every report in one stream. `source` names it in problems; `fallback` names
/// a node whose report carries no name (with `#2`, ... after the first). Stray
/// text between reports is noise from launchers and is dropped, unless the
/// stream holds nothing else.
pub fn read_stream(
    mut stream: impl Read,
    source: &str,
    fallback: &str,
    sink: &mut dyn FnMut(Raw),
) -> std::io::Result<Stream> {
    let mut splitter = Splitter::new();
    let mut buffer = vec![0; 256 * 1024];
    let mut documents = 0;
    let mut first_stray: Option<(String, usize)> = None;
    let mut handle = |piece: Piece| match piece {
        Piece::Stray { text, line } => {
            first_stray.get_or_insert((text, line));
        }
        piece => {
            let fallback = if documents == 0 {
                fallback.to_string()
            } else {
                format!("{fallback}#{}", documents + 1)
            };
            sink(raw_of(piece, source, GivenName::Fallback(fallback)));
            documents += 1;
        }
    };
    loop {
        let read = match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        splitter.feed(&buffer[..read], &mut handle);
    }
    splitter.finish(&mut handle);
    if documents > 0 {
        return Ok(Stream::Read);
    }
    let Some((text, line)) = first_stray else {
        return Ok(Stream::Empty);
    };
    sink(Raw::Done(Item::Unreadable {
        source: source.to_string(),
        problem: format!("line {line}: not a report: `{text}`"),
    }));
    Ok(Stream::Read)
}

/// What one piece of a stream amounts to.
pub fn raw_of(piece: Piece, source: &str, name: GivenName) -> Raw {
    let unreadable = |line: usize, problem: String| {
        Raw::Done(Item::Unreadable {
            source: source.to_string(),
            problem: format!("line {line}: {problem}"),
        })
    };
    match piece {
        Piece::Document { bytes, line } => Raw::Document {
            bytes,
            source: source.to_string(),
            line,
            name,
        },
        Piece::TooLarge { line } => unreadable(
            line,
            format!(
                "a document over {} MiB, skipped",
                super::documents::MAX_DOCUMENT / (1024 * 1024)
            ),
        ),
        Piece::Truncated { line } => unreadable(line, "truncated: the stream ended inside this report".to_string()),
        Piece::Stray { text, line } => unreadable(line, format!("not a report: `{text}`")),
    }
}

/// Parses a document, or says in one line, with the file and line, why it is not a report.
pub fn parse(bytes: &[u8], source: &str, line: usize, name: &GivenName) -> Result<NodeReport, Item> {
    reports::parse(bytes, name).map_err(|refused| Item::Unreadable {
        source: source.to_string(),
        // The position is within the document, which began at `line` of the stream.
        problem: match refused.at {
            Some((within, column)) => format!("line {}:{column}: {}", line + within - 1, refused.problem),
            None => refused.problem,
        },
    })
}

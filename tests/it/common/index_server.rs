//! tests/fixtures/index/serve.py, the package index on loopback, run for the
//! length of a test.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// serve.py serving `ROOT/files`, stopped by closing its stdin when dropped.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    pub port: u16,
}

impl Server {
    /// `serve.py ROOT ARGUMENTS...`, once it has printed its port.
    pub fn start(root: &Path, arguments: &[&str]) -> Server {
        let mut child = Command::new(super::system_python())
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/index/serve.py"))
            .arg(root)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs serve.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("serve.py printed {line:?}"));
        let stdin = child.stdin.take();
        Server { child, stdin, port }
    }

    /// The simple-repository root, without a trailing slash.
    pub fn index(&self) -> String {
        format!("http://127.0.0.1:{}/simple", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

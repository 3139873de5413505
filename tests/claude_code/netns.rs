//! A network namespace of the test's own, with loopback and nothing else:
//! the fake API listens in it and every Claude Code run happens in it, so
//! nothing a client sends can leave the machine.
//!
//! A holder process (`unshare -n`) keeps the namespace alive and brings
//! its loopback up; the fake's socket is bound by a thread that moves into
//! the namespace first (a socket stays in the namespace it was made in),
//! and clients are started with `nsenter --net`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A namespace held open for as long as the value lives.
pub(crate) struct Netns {
    holder: Child,
}

impl Netns {
    /// A new namespace with its loopback up; `Err` says why there is none.
    pub(crate) fn new() -> Result<Netns, String> {
        let mut holder = Command::new("unshare")
            .args(["-n", "--", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run unshare: {e}"))?;
        let mut line = String::new();
        let out = holder.stdout.take().ok_or("no stdout")?;
        BufReader::new(out).read_line(&mut line).map_err(|e| e.to_string())?;
        if line.trim() != "up" {
            let _ = holder.kill();
            let err = holder.wait_with_output().map(|o| String::from_utf8_lossy(&o.stderr).into_owned());
            return Err(format!(
                "unshare -n failed (root, or user namespaces, are needed): {}",
                err.unwrap_or_default()
            ));
        }
        Ok(Netns { holder })
    }

    /// `/proc/<holder>/ns/net`.
    pub(crate) fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/ns/net", self.holder.id()))
    }

    /// A listener on the namespace's loopback, on a port of its choosing.
    pub(crate) fn listen(&self) -> TcpListener {
        let path = self.path();
        std::thread::spawn(move || {
            let ns = std::fs::File::open(&path).expect("namespace file");
            rustix::thread::move_into_link_name_space(
                std::os::fd::AsFd::as_fd(&ns),
                Some(rustix::thread::LinkNameSpaceType::Network),
            )
            .expect("setns");
            TcpListener::bind("127.0.0.1:0").expect("bind in the namespace")
        })
        .join()
        .expect("listener thread")
    }

    /// The namespace's network interfaces, from the kernel's own list.
    pub(crate) fn interfaces(&self) -> Vec<String> {
        let dev = std::fs::read_to_string(format!("/proc/{}/net/dev", self.holder.id())).unwrap_or_default();
        dev.lines().skip(2).filter_map(|l| l.split(':').next()).map(|s| s.trim().to_owned()).collect()
    }

    /// `program` to be run inside the namespace.
    pub(crate) fn command(&self, program: &str) -> Command {
        let mut c = Command::new("nsenter");
        c.arg(format!("--net={}", self.path().display())).arg("--").arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

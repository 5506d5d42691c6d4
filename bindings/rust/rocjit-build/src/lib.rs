//! Embedding a folder of kernels at build time, for a downstream `build.rs` (the Rust
//! counterpart of CMake's `rocjit_add_kernels`).  Pure std, a crate of its own: it calls
//! nothing of rocjit and links nothing, so a build script using it runs on a machine where
//! librocjit is not on the loader's path (a build-dependency on `rocjit` itself would link
//! librocjit.so into the build script).  `rocjit::build` is this crate, re-exported.
//!
//! ```no_run
//! // build.rs of your crate ([build-dependencies] rocjit-build = ...)
//! fn main() {
//!     rocjit_build::embed_kernels("kernels").unwrap();
//! }
//! // src/main.rs
//! // include!(concat!(env!("OUT_DIR"), "/rocjit_kernels.rs"));
//! // fn main() { register_kernels().unwrap(); /* ctx.kernel_registered("affine.hip", ...) */ }
//! ```
//!
//! Every file under the folder (recursively) whose name ends in one of the extensions
//! (default `.hip .cu .h .hpp .cuh`, as rocjit_add_kernels) is embedded with
//! `include_str!` under its path relative to the folder, '/' separated, sorted (the
//! registration order, which registered headers' order in the cache key follows: the same
//! order as rocjit_add_kernels, so both give the same keys).  The generated file defines
//! `KERNELS: &[rocjit::EmbeddedFile]` and `register_kernels()`, which registers them with
//! rocjit_register_sources (call it once at start; Rust has no constructors).  It also
//! writes `rocjit_kernels.rocjit-manifest` beside it, the manifest `rocjit prewarm
//! --manifest` reads.  Cargo reruns the build script when a file of the folder changes.
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What to embed and where to write it.
#[derive(Debug, Clone)]
pub struct Embed {
    dir: PathBuf,
    extensions: Vec<String>,
    headers: Vec<String>,
    crate_path: String,
    out_file: Option<PathBuf>,
}

/// Embeds the kernel files of `dir` (relative paths are relative to the crate, as cargo
/// runs build scripts there) into `$OUT_DIR/rocjit_kernels.rs`; returns its path.
pub fn embed_kernels(dir: impl AsRef<Path>) -> io::Result<PathBuf> {
    Embed::new(dir).write()
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

impl Embed {
    pub fn new(dir: impl AsRef<Path>) -> Embed {
        Embed {
            dir: dir.as_ref().to_path_buf(),
            extensions: ["hip", "cu", "h", "hpp", "cuh"].iter().map(|s| s.to_string()).collect(),
            headers: Vec::new(),
            crate_path: "rocjit".to_string(),
            out_file: None,
        }
    }

    /// Replaces the extensions (without the dot: "hip", "inc") of the files embedded.
    pub fn extensions(mut self, exts: &[&str]) -> Embed {
        self.extensions = exts.iter().map(|e| e.trim_start_matches('.').to_string()).collect();
        self
    }

    /// A file of the folder (relative path, e.g. "cmath") that is a header whatever its
    /// name: embedded even when no extension matches, and registered with
    /// rocjit_register_headers (as rocjit_add_kernels' HEADERS).
    pub fn header(mut self, name: &str) -> Embed {
        self.headers.push(name.to_string());
        self
    }

    /// How the generated code names the rocjit crate (default "rocjit"; e.g. "::rocjit"
    /// or a renamed dependency).
    pub fn crate_path(mut self, path: &str) -> Embed {
        self.crate_path = path.to_string();
        self
    }

    /// Where to write the generated file (default `$OUT_DIR/rocjit_kernels.rs`).
    pub fn out_file(mut self, path: impl AsRef<Path>) -> Embed {
        self.out_file = Some(path.as_ref().to_path_buf());
        self
    }

    /// The embedded files: (registered name, absolute path, registered as a header).
    pub fn files(&self) -> io::Result<Vec<(String, PathBuf, bool)>> {
        let root = fs::canonicalize(&self.dir).map_err(|e| {
            io::Error::new(e.kind(), format!("kernel folder {}: {}", self.dir.display(), e))
        })?;
        let mut found = Vec::new();
        walk(&root, &root, &mut found)?;
        let mut out = Vec::new();
        for (name, path) in found {
            let is_listed = self.headers.contains(&name);
            let ext_ok = Path::new(&name)
                .extension()
                .and_then(|e| e.to_str())
                .map_or(false, |e| self.extensions.iter().any(|x| x == e));
            if ext_ok || is_listed {
                out.push((name, path, is_listed));
            }
        }
        for h in &self.headers {
            if !out.iter().any(|(n, _, _)| n == h) {
                return Err(invalid(format!(
                    "header {} is not a file under {}",
                    h,
                    root.display()
                )));
            }
        }
        // Byte order, as CMake's list(SORT) gives rocjit_add_kernels.
        out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        if out.is_empty() {
            return Err(invalid(format!(
                "no kernel files (*.{}) under {}",
                self.extensions.join(" *."),
                root.display()
            )));
        }
        Ok(out)
    }

    /// The generated Rust source.
    pub fn generate(&self) -> io::Result<String> {
        let files = self.files()?;
        let root = fs::canonicalize(&self.dir)?;
        let k = &self.crate_path;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Generated by rocjit-build from {:?}: do not edit.",
            root.display().to_string()
        );
        let _ = writeln!(
            s,
            "/// The kernel files embedded from the folder, registered by `register_kernels`."
        );
        let _ = writeln!(s, "#[allow(dead_code)]");
        let _ = writeln!(s, "pub static KERNELS: &[{}::EmbeddedFile] = &[", k);
        for (name, path, header) in &files {
            let p =
                path.to_str().ok_or_else(|| invalid(format!("{} is not UTF-8", path.display())))?;
            if name.contains(['\0', '\n', '\r']) {
                return Err(invalid(format!(
                    "{:?}: a kernel name cannot hold NUL or line breaks",
                    name
                )));
            }
            // The file must be UTF-8 text for include_str!; say so here rather than in
            // a compile error of the generated file.
            let text = fs::read(path)?;
            if std::str::from_utf8(&text).is_err() {
                return Err(invalid(format!("{} is not UTF-8 text", path.display())));
            }
            if text.contains(&0) {
                return Err(invalid(format!("{} holds a NUL byte", path.display())));
            }
            let _ = writeln!(
                s,
                "    {}::EmbeddedFile {{ name: {:?}, text: concat!(include_str!({:?}), \"\\0\"), header: {} }},",
                k,
                format!("{}\0", name),
                p,
                header
            );
        }
        let _ = writeln!(s, "];");
        let _ = writeln!(
            s,
            "/// Registers `KERNELS` with rocjit (process-wide; again is a no-op): call it once"
        );
        let _ = writeln!(s, "/// at start, before asking for a registered kernel.");
        let _ = writeln!(s, "#[allow(dead_code)]");
        let _ = writeln!(s, "pub fn register_kernels() -> {}::Result<()> {{", k);
        let _ = writeln!(s, "    {}::register_embedded(KERNELS)", k);
        let _ = writeln!(s, "}}");
        Ok(s)
    }

    /// The manifest `rocjit prewarm --manifest` reads (rocjit_add_kernels' format).
    pub fn manifest(&self) -> io::Result<String> {
        let files = self.files()?;
        let root = fs::canonicalize(&self.dir)?;
        let mut m = String::new();
        let v = if self.headers.is_empty() { 1 } else { 2 };
        let _ = writeln!(m, "# rocjit-manifest {}\ndir={}", v, root.display());
        for (name, _, header) in &files {
            if v == 1 {
                let _ = writeln!(m, "{}", name);
            } else if *header {
                let _ = writeln!(m, "header={}", name);
            } else {
                let _ = writeln!(m, "file={}", name);
            }
        }
        Ok(m)
    }

    /// Writes the generated file (only when its content changes) and the manifest beside
    /// it, and tells cargo to rerun when the folder changes.  Returns the file's path.
    pub fn write(&self) -> io::Result<PathBuf> {
        let out = match &self.out_file {
            Some(p) => p.clone(),
            None => {
                let dir = std::env::var_os("OUT_DIR").ok_or_else(|| {
                    invalid(
                        "OUT_DIR is not set: call this from a build script, or set out_file".into(),
                    )
                })?;
                PathBuf::from(dir).join("rocjit_kernels.rs")
            }
        };
        let text = self.generate()?;
        write_if_changed(&out, &text)?;
        write_if_changed(&out.with_extension("rocjit-manifest"), &self.manifest()?)?;
        if std::env::var_os("CARGO").is_some() {
            // Folders too, so that an added or removed file reruns the script.
            let root = fs::canonicalize(&self.dir)?;
            let mut dirs = vec![root.clone()];
            collect_dirs(&root, &mut dirs)?;
            for d in dirs {
                println!("cargo:rerun-if-changed={}", d.display());
            }
            for (_, p, _) in self.files()? {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
        Ok(out)
    }
}

fn write_if_changed(path: &Path, text: &str) -> io::Result<()> {
    if fs::read_to_string(path).map_or(false, |old| old == text) {
        return Ok(());
    }
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)?;
    fs::rename(&tmp, path)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(root, &path, out)?;
        } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let name: Vec<String> =
                rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push((name.join("/"), path.clone()));
        }
    }
    Ok(())
}

fn collect_dirs(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            out.push(entry.path());
            collect_dirs(&entry.path(), out)?;
        }
    }
    Ok(())
}

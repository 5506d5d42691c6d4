//! Finds librocjit and rocjit.h, and writes what the layout test expects.
//!
//! Where the library is, first found wins:
//!  1. `ROCJIT_LIB_DIR` (the folder of librocjit.so) and `ROCJIT_INCLUDE_DIR` (the folder
//!     of rocjit.h; default `$ROCJIT_LIB_DIR/../include`, else the repository's include/);
//!  2. `pkg-config --libs --cflags rocjit`, run as a process;
//!  3. the repository's `build/` folder and `include/` (in-tree development:
//!     `../../../build` from this crate, i.e. `../../build` from bindings/rust).
//!
//! Linking: librocjit.so, with the library's folder as the RUNPATH of this crate's own
//! tests (the rocjit crate does the same for its tests and examples; a dependent's
//! binary gets none, cargo passing link arguments to the package's own targets only).
//! With the `static` feature: librocjit.a from that folder, and the libraries it needs
//! as `pkg-config --static --libs rocjit` lists them (rocjit.pc, looked for beside the
//! library first), so that a binary runs with no librocjit installed and no environment.
//!
//! The layout probe: a small C program that includes rocjit.h and prints sizeof, alignof
//! and offsetof of every struct and field declared in src/lib.rs, and the value of every
//! integer `#define ROCJIT_*` of the header, compiled with the system C compiler (`$CC`,
//! else `cc`) and run here.  Its output becomes `$OUT_DIR/layout_expected.rs`, which
//! tests/layout.rs includes.  A probe that cannot be built or run does not fail the build
//! (the bindings are usable without it): the test then fails, saying why.
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Found {
    lib_dir: Option<PathBuf>,
    include_dir: PathBuf,
    extra_cflags: Vec<String>,
    how: &'static str,
}

fn env_path(name: &str) -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed={}", name);
    match env::var_os(name) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => None,
    }
}

fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    manifest.join("..").join("..").join("..")
}

fn from_env() -> Option<Found> {
    let lib = env_path("ROCJIT_LIB_DIR");
    let inc = env_path("ROCJIT_INCLUDE_DIR");
    if lib.is_none() && inc.is_none() {
        return None;
    }
    let include_dir = match inc {
        Some(i) => i,
        None => {
            let beside = lib.as_ref().unwrap().join("..").join("include");
            if beside.join("rocjit.h").is_file() {
                beside
            } else {
                repo_root().join("include")
            }
        }
    };
    Some(Found { lib_dir: lib, include_dir, extra_cflags: Vec::new(), how: "ROCJIT_LIB_DIR" })
}

fn from_pkg_config() -> Option<Found> {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(["--libs", "--cflags", "rocjit"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lib_dir = None;
    let mut include_dir = None;
    let mut extra = Vec::new();
    for tok in text.split_whitespace() {
        if let Some(d) = tok.strip_prefix("-L") {
            lib_dir.get_or_insert_with(|| PathBuf::from(d));
        } else if let Some(d) = tok.strip_prefix("-I") {
            if include_dir.is_none() && Path::new(d).join("rocjit.h").is_file() {
                include_dir = Some(PathBuf::from(d));
            } else {
                extra.push(tok.to_string());
            }
        } else if tok.starts_with("-D") {
            extra.push(tok.to_string());
        }
    }
    let include_dir = include_dir.or_else(|| {
        ["/usr/local/include", "/usr/include"]
            .iter()
            .map(PathBuf::from)
            .find(|d| d.join("rocjit.h").is_file())
    })?;
    Some(Found { lib_dir, include_dir, extra_cflags: extra, how: "pkg-config" })
}

fn in_tree() -> Found {
    let root = repo_root();
    Found {
        lib_dir: Some(root.join("build")),
        include_dir: root.join("include"),
        extra_cflags: Vec::new(),
        how: "the repository's build/",
    }
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/lib.rs");
    let found = from_env().or_else(from_pkg_config).unwrap_or_else(in_tree);
    let include_dir = canonical(&found.include_dir);
    let header = include_dir.join("rocjit.h");
    println!("cargo:rerun-if-changed={}", header.display());

    if let Some(lib) = &found.lib_dir {
        let lib = canonical(lib);
        if !lib.join("librocjit.so").exists() && !lib.join("librocjit.a").exists() {
            println!(
                "cargo:warning=rocjit-sys: no librocjit.so in {} (found by {}): build the \
                 library (cmake --build build --target rocjit) or set ROCJIT_LIB_DIR",
                lib.display(),
                found.how
            );
        }
        println!("cargo:rustc-link-search=native={}", lib.display());
        // For dependents' build scripts (DEP_ROCJIT_LIB_DIR): the rocjit crate puts it in
        // its tests' and examples' run path.
        println!("cargo:lib_dir={}", lib.display());
        // This crate's own tests run against it without LD_LIBRARY_PATH.  RUNPATH (new
        // dtags), so that LD_LIBRARY_PATH still wins where it is set.
        println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags,-rpath,{}", lib.display());
    }
    println!("cargo:include={}", include_dir.display());
    if env::var_os("CARGO_FEATURE_STATIC").is_some() {
        link_static(found.lib_dir.as_deref().map(canonical));
    } else {
        println!("cargo:rustc-link-lib=dylib=rocjit");
    }
    println!("cargo:rustc-env=ROCJIT_SYS_HEADER={}", header.display());

    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let expected = match probe(&header, &include_dir, &found.extra_cflags, &out_dir) {
        Ok(rust) => rust,
        Err(why) => {
            println!(
                "cargo:warning=rocjit-sys: layout probe failed: {}",
                why.lines().next().unwrap_or("")
            );
            format!(
                "pub const PROBE_ERROR: Option<&str> = Some({:?});\n\
                 macro_rules! layout_checks {{ () => {{ Vec::<(String, i64, i64)>::new() }} }}\n\
                 macro_rules! constant_checks {{ () => {{ Vec::<(&str, i64, i64)>::new() }} }}\n",
                why
            )
        }
    };
    fs::write(out_dir.join("layout_expected.rs"), expected).unwrap();
}

/// The `static` feature: librocjit.a and its dependencies, as rocjit.pc gives them for
/// static linking (sqlite3, xxhash, sodium, hiredis where built with it, dl, threads).
/// Panics, saying what to do, when either cannot be found: a build that silently fell
/// back to the shared library would fail only where the binary is run.
fn link_static(lib_dir: Option<PathBuf>) {
    if let Some(dir) = &lib_dir {
        if !dir.join("librocjit.a").is_file() {
            panic!(
                "rocjit-sys: the `static` feature needs librocjit.a, which {} lacks: build it \
                 (cmake --build build --target rocjit_static) or set ROCJIT_LIB_DIR",
                dir.display()
            );
        }
    }
    println!("cargo:rustc-link-lib=static=rocjit");
    // rocjit.pc beside the library (a build folder) or in its pkgconfig/ (an install)
    // comes before any other on PKG_CONFIG_PATH.
    let mut path = env::var_os("PKG_CONFIG_PATH").unwrap_or_default();
    if let Some(dir) = &lib_dir {
        let mine = env::join_paths([dir.clone(), dir.join("pkgconfig")]).unwrap();
        path = if path.is_empty() {
            mine
        } else {
            let mut p = mine;
            p.push(":");
            p.push(&path);
            p
        };
    }
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(["--static", "--libs", "rocjit"])
        .env("PKG_CONFIG_PATH", &path)
        .output();
    let text = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => panic!(
            "rocjit-sys: the `static` feature takes librocjit.a's dependencies from \
             `pkg-config --static --libs rocjit`, which failed: {}put rocjit.pc's folder \
             on PKG_CONFIG_PATH (a build folder has one)",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("rocjit-sys: the `static` feature needs pkg-config: {}", e),
    };
    for tok in text.split_whitespace() {
        if let Some(l) = tok.strip_prefix("-l") {
            if l != "rocjit" {
                println!("cargo:rustc-link-lib=dylib={}", l);
            }
        } else if tok == "-pthread" {
            println!("cargo:rustc-link-lib=dylib=pthread");
        } else if let Some(d) = tok.strip_prefix("-L") {
            // rocjit.pc's own libdir (wrong for a build folder) is harmless: it is searched
            // after lib_dir.
            println!("cargo:rustc-link-search=native={}", d);
        }
    }
}

/// The `#[repr(C)]` structs of src/lib.rs and their fields, in order; opaque ones
/// (`_private`) are left out.
fn rust_structs(lib_rs: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in lib_rs.lines() {
        let t = line.trim();
        if inside {
            if t == "}" {
                inside = false;
            } else if let Some(rest) = t.strip_prefix("pub ") {
                if let (Some(colon), Some(last)) = (rest.find(':'), out.last_mut()) {
                    last.1.push(rest[..colon].trim().to_string());
                }
            }
        } else if let Some(rest) = t.strip_prefix("pub struct rocjit_") {
            if let Some(brace) = rest.find(" {") {
                out.push((format!("rocjit_{}", &rest[..brace]), Vec::new()));
                inside = true;
            }
        }
    }
    out.retain(|(_, fields)| !fields.is_empty());
    out
}

/// The integer `#define ROCJIT_*` constants of the header (object-like macros whose value
/// is an integer expression: not the `_INIT` initialisers, strings or attributes).
fn header_constants(header: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = header.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let rest = match t.strip_prefix("#define ") {
            Some(r) => r.trim_start(),
            None => continue,
        };
        let name_len =
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = &rest[..name_len];
        let mut value = rest[name_len..].to_string();
        let function_like = value.starts_with('(');
        while value.trim_end().ends_with('\\') {
            let v = value.trim_end();
            value = format!("{} {}", &v[..v.len() - 1], lines.next().unwrap_or(""));
        }
        if !name.starts_with("ROCJIT_") || function_like || name == "ROCJIT_H" {
            continue;
        }
        let value = match value.find("/*") {
            Some(i) => value[..i].to_string(),
            None => value,
        };
        let value = value.trim();
        let integer = !value.is_empty()
            && value.chars().all(|c| {
                c.is_ascii_alphanumeric() || c == '_' || c == ' ' || "()+-*/|<>".contains(c)
            });
        if integer && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

fn probe(
    header: &Path,
    include_dir: &Path,
    cflags: &[String],
    out_dir: &Path,
) -> Result<String, String> {
    let header_text = fs::read_to_string(header)
        .map_err(|e| format!("cannot read {}: {}", header.display(), e))?;
    let lib_rs = fs::read_to_string("src/lib.rs").map_err(|e| format!("src/lib.rs: {}", e))?;
    let structs = rust_structs(&lib_rs);
    let constants = header_constants(&header_text);

    // The C program prints Rust source: two macros that give the checks as vectors of
    // (what, value in C, value in Rust).
    let mut c = String::new();
    c.push_str(
        "#define ROCJIT_NO_DEPRECATION_WARNINGS 1\n#include <stdio.h>\n#include <stddef.h>\n\
         #include <rocjit.h>\nint main(void)\n{\n",
    );
    c.push_str("\tputs(\"pub const PROBE_ERROR: Option<&str> = None;\");\n");
    c.push_str("\tputs(\"macro_rules! layout_checks { () => { vec![\");\n");
    for (s, fields) in &structs {
        let _ = writeln!(
            c,
            "\tprintf(\"    (String::from(\\\"sizeof({s})\\\"), %lld, std::mem::size_of::<{s}>() as i64),\\n\", (long long)sizeof({s}));\n\
             \tprintf(\"    (String::from(\\\"alignof({s})\\\"), %lld, std::mem::align_of::<{s}>() as i64),\\n\", (long long)_Alignof({s}));",
            s = s
        );
        for f in fields {
            let _ = writeln!(
                c,
                "\tprintf(\"    (String::from(\\\"offsetof({s}, {f})\\\"), %lld, offset_of!({s}, {f}) as i64),\\n\", (long long)offsetof({s}, {f}));\n\
                 \tprintf(\"    (String::from(\\\"sizeof({s}.{f})\\\"), %lld, field_size!({s}, {f}) as i64),\\n\", (long long)sizeof(((const {s} *)0)->{f}));",
                s = s,
                f = f
            );
        }
    }
    c.push_str("\tputs(\"] } }\");\n");
    c.push_str("\tputs(\"macro_rules! constant_checks { () => { vec![\");\n");
    for k in &constants {
        let _ = writeln!(
            c,
            "\tprintf(\"    (\\\"{k}\\\", %lld, {k} as i64),\\n\", (long long)({k}));",
            k = k
        );
    }
    c.push_str("\tputs(\"] } }\");\n");
    c.push_str("#ifdef ROCJIT_VERSION_STRING\n\tprintf(\"pub const C_VERSION_STRING: &str = \\\"%s\\\";\\n\", ROCJIT_VERSION_STRING);\n#endif\n");
    c.push_str("\treturn 0;\n}\n");

    let src = out_dir.join("layout_probe.c");
    let exe = out_dir.join("layout_probe");
    fs::write(&src, c).map_err(|e| e.to_string())?;
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    println!("cargo:rerun-if-env-changed=CC");
    let out = Command::new(&cc)
        .arg("-std=c11")
        .arg("-I")
        .arg(include_dir)
        .args(cflags)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {}", cc, e))?;
    if !out.status.success() {
        return Err(format!(
            "{} could not compile {} against {}:\n{}",
            cc,
            src.display(),
            header.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(&exe).output().map_err(|e| format!("cannot run the probe: {}", e))?;
    if !run.status.success() {
        return Err("the layout probe failed".into());
    }
    Ok(String::from_utf8_lossy(&run.stdout).into_owned())
}

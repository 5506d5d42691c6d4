//! A program of a user's own, depending on this crate, built with `cargo build` and run
//! with LD_LIBRARY_PATH unset: with the `static` feature it needs nothing at run time
//! (librocjit.a linked in); with the shared library it runs when its own build script
//! puts DEP_ROCJIT_LIB_DIR in its RUNPATH (a direct dependency on rocjit-sys gives it
//! that variable), as README.md shows (cargo gives a dependent's binary
//! no link argument of rocjit-sys's).
//!
//! A build script embedding kernels with rocjit-build runs with LD_LIBRARY_PATH unset too:
//! it links no librocjit.
//!
//! The crate is written under target/tmp and built with the cargo running these tests,
//! offline, into a target folder of its own that later runs reuse.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN: &str = r#"fn main() {
    let dir = std::env::args().nth(1).expect("a cache folder");
    let ctx = rocjit::Context::builder().cache_dir(dir).open().expect("rocjit_open");
    let prog = rocjit::Program::new(
        "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2; }",
    )
    .name("k.hip");
    let code = ctx.compile(Some("gfx90a"), &prog).expect("compile for gfx90a");
    let info = rocjit::codeobj_inspect(code.data()).expect("inspect");
    println!("user app: rocjit {}, kernels {:?}", rocjit::version(), info.kernels);
}
"#;

const BUILD_RS: &str = r#"fn main() {
    // The folder rocjit-sys linked librocjit.so from (given to the build scripts of the
    // crates that depend on rocjit-sys directly), as this program's RUNPATH.
    if let Ok(dir) = std::env::var("DEP_ROCJIT_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags,-rpath,{}", dir);
    }
}
"#;

const EMBED_MAIN: &str = r#"include!(concat!(env!("OUT_DIR"), "/rocjit_kernels.rs"));
fn main() {
    let dir = std::env::args().nth(1).expect("a cache folder");
    register_kernels().expect("register the embedded kernels");
    let ctx = rocjit::Context::builder().cache_dir(dir).open().expect("rocjit_open");
    let code = ctx
        .compile_registered(Some("gfx90a"), "k.hip", &Default::default())
        .expect("compile the embedded k.hip for gfx90a");
    let info = rocjit::codeobj_inspect(code.data()).expect("inspect");
    println!("user app: rocjit {}, kernels {:?}", rocjit::version(), info.kernels);
}
"#;

const EMBED_BUILD_RS: &str = r#"fn main() {
    rocjit_build::embed_kernels("kernels").unwrap();
    if let Ok(dir) = std::env::var("DEP_ROCJIT_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags,-rpath,{}", dir);
    }
}
"#;

/// Writes the user's crate (with `build.rs` or the `static` feature) and builds it.
fn build_user_app(name: &str, with_static: bool) -> PathBuf {
    build_app(name, with_static, false)
}

/// As build_user_app; with embed, its build script embeds kernels/ with rocjit-build and
/// cargo runs with LD_LIBRARY_PATH unset, so a build script that needed librocjit fails.
fn build_app(name: &str, with_static: bool, embed: bool) -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join(name);
    fs::create_dir_all(dir.join("src")).unwrap();
    let rocjit = Path::new(env!("CARGO_MANIFEST_DIR"));
    let features = if with_static { ", features = [\"static\"]" } else { "" };
    let manifest = format!(
        "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nrocjit = {{ path = {:?}{} }}\n{}\n{}[workspace]\n",
        name,
        rocjit.display().to_string(),
        features,
        if with_static {
            String::new()
        } else {
            let sys = rocjit.join("..").join("rocjit-sys");
            format!("rocjit-sys = {{ path = {:?} }}\n", sys.display().to_string())
        },
        if embed {
            let b = rocjit.join("..").join("rocjit-build");
            format!(
                "[build-dependencies]\nrocjit-build = {{ path = {:?} }}\n\n",
                b.display().to_string()
            )
        } else {
            String::new()
        }
    );
    fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    if embed {
        fs::create_dir_all(dir.join("kernels")).unwrap();
        fs::write(
            dir.join("kernels/k.hip"),
            "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2; }\n",
        )
        .unwrap();
        fs::write(dir.join("src/main.rs"), EMBED_MAIN).unwrap();
        fs::write(dir.join("build.rs"), EMBED_BUILD_RS).unwrap();
    } else {
        fs::write(dir.join("src/main.rs"), MAIN).unwrap();
        if !with_static {
            fs::write(dir.join("build.rs"), BUILD_RS).unwrap();
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = tmp.join("user-apps-target");
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--offline", "--quiet", "--target-dir"]).arg(&target).current_dir(&dir);
    if embed {
        cmd.env_remove("LD_LIBRARY_PATH");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "cargo build of {} failed:\n{}",
        name,
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("debug").join(name)
}

fn run_without_environment(exe: &Path, cache: &str) {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(cache);
    let out = Command::new(exe).arg(&cache).env_remove("LD_LIBRARY_PATH").output().unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{}", text);
    assert!(out.status.success(), "{} failed ({}):\n{}", exe.display(), out.status, text);
    assert!(text.contains("kernels [\"k\"]"), "{}", text);
}

#[test]
fn a_users_binary_linked_statically_runs_with_no_environment() {
    let exe = build_user_app("user_app_static", true);
    // No librocjit.so among what it loads: the library is inside.
    let ldd = Command::new("ldd").arg(&exe).output().map(|o| o.stdout).unwrap_or_default();
    let ldd = String::from_utf8_lossy(&ldd);
    assert!(!ldd.contains("librocjit"), "{}", ldd);
    run_without_environment(&exe, "user-app-static-cache");
}

#[test]
fn a_users_binary_with_the_runpath_line_runs_with_no_environment() {
    let exe = build_user_app("user_app_shared", false);
    run_without_environment(&exe, "user-app-shared-cache");
}

#[test]
fn a_users_build_script_embedding_kernels_runs_with_no_environment() {
    let exe = build_app("user_app_embed", false, true);
    run_without_environment(&exe, "user-app-embed-cache");
}

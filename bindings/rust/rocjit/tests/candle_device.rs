//! The Candle-shaped example (examples/candle_device.rs), run as a user runs it: the
//! binary `cargo test` built, started with LD_LIBRARY_PATH unset (the RUNPATH rocjit's
//! build scripts give finds librocjit).  Without a GPU it compiles every module for
//! gfx90a and sm_90 (sm_90 where NVRTC is installed) and checks kernels and resources;
//! its GPU path launches and compares with the CPU, or prints SKIP without a GPU.
mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;

/// The example binary: cargo builds examples for `cargo test`, beside the test binaries
/// (target/<profile>/examples, this test being target/<profile>/deps/...).
fn example() -> Command {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path: PathBuf = profile.join("examples").join("candle_device");
    assert!(path.is_file(), "{} is missing: run through `cargo test`", path.display());
    let mut c = Command::new(path);
    c.env_remove("LD_LIBRARY_PATH");
    c
}

fn run(mut c: Command, cache: &str) -> String {
    let dir = fresh_dir(cache);
    let out = c.env("ROCJIT_CACHE_DIR", dir.join("cache")).output().unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{}", text);
    assert!(out.status.success(), "candle_device failed ({}):\n{}", out.status, text);
    text
}

#[test]
fn the_example_compiles_its_modules_for_gfx90a_and_sm_90_without_a_gpu() {
    let mut c = example();
    c.args(["--compile-only", "--target", "gfx90a"]);
    if nvrtc_or_skip("the_example_compiles_its_modules_for_sm_90") {
        c.args(["--target", "sm_90"]);
    }
    let text = run(c, "candle-compile");
    for f in ["affine_f32", "usqr_f32", "urelu_f32"] {
        assert!(text.contains(&format!("gfx90a {} -> gfx90a", f)), "{}", text);
    }
}

#[test]
fn the_example_launches_on_a_gpu_or_says_it_skips() {
    let text = run(example(), "candle-gpu");
    assert!(text.starts_with("SKIP: no GPU") || text.contains("OK: "), "{}", text);
}

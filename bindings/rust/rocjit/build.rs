//! The rocjit crate's build script.
//!  - Its tests and examples run against the librocjit rocjit-sys found, without
//!    LD_LIBRARY_PATH: a RUNPATH entry (LD_LIBRARY_PATH still wins where it is set, as on
//!    a GPU machine the example binary is carried to).
//!  - The example candle_device embeds examples/kernels with rocjit-build (what
//!    `rocjit::build` re-exports), into $OUT_DIR/rocjit_kernels.rs.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_ROCJIT_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_ROCJIT_LIB_DIR") {
        // rustc-link-arg: every linked target of this package (tests, examples), never
        // a dependent crate's.
        println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags,-rpath,{}", dir);
    }
    rocjit_build::Embed::new("examples/kernels").write().expect("embedding examples/kernels");
}

//! What the tests share: a fresh folder per test under the target directory (nothing is
//! written outside bindings/rust/target), and small kernels.
#![allow(dead_code)]
use std::path::PathBuf;

/// A new, empty folder for one test: target/tmp/<name>-<pid>.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A context on a fresh cache of its own.
pub fn context(name: &str) -> (rocjit::Context, PathBuf) {
    let dir = fresh_dir(name);
    let ctx = rocjit::Context::builder().cache_dir(dir.join("cache")).open().expect("rocjit_open");
    (ctx, dir)
}

pub const SCALE: &str = r#"#include <hip/hip_runtime.h>
extern "C" __global__ void scale_f32(int n, float a, float *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
"#;

pub const TEMPLATED: &str = r#"#include <hip/hip_runtime.h>
template <typename T, int N>
__global__ void fill(T *x, T v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		x[i] = v;
}
"#;

/// Whether NVRTC can be loaded here; prints why not.
pub fn nvrtc_or_skip(test: &str) -> bool {
    match rocjit::compiler_identity(rocjit::Platform::Nvidia) {
        Ok(_) => true,
        Err(e) => {
            println!("SKIP {}: no NVRTC on this machine ({})", test, e);
            false
        }
    }
}

/// The kernels both bindings' tests compile (bindings/testdata).
pub const TILE: &str = include_str!("../../../../testdata/tile.hip");
pub const TABLE: &str = include_str!("../../../../testdata/table.cu");
pub const COOP: &str = include_str!("../../../../testdata/coop.cu");

/// Whether the library reads resources yet (rocjit_codeobj_resources_get answers
/// EUNSUPPORTED until the code-object reader lands); prints why not.
pub fn resources_or_skip(test: &str, r: &rocjit::Result<rocjit::Resources>) -> bool {
    match r {
        Err(e) if e.kind() == rocjit::ErrorKind::Unsupported => {
            println!("SKIP {}: this librocjit reads no resources yet ({})", test, e);
            false
        }
        _ => true,
    }
}

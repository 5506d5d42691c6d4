//! What a launch needs beyond grid and block, on a GPU (issue 29): module variables
//! written and read through rocjit around a launch, occupancy and the suggested block
//! size against the kernel's launch bound, a cooperative launch with a grid-wide barrier,
//! native handles.  Self-contained: no device memory but the module's own variables, so
//! no driver call of the test's own.  Each test prints "SKIP" and passes without a GPU
//! (build with `cargo test --no-run`, run the binary where the GPU is).
mod common;
use common::*;
use rocjit::{Attribute, ErrorKind, Platform, Program};

fn gpu_or_skip(test: &str) -> bool {
    let n = rocjit::device_count(Platform::Nvidia).unwrap_or(0)
        + rocjit::device_count(Platform::Amd).unwrap_or(0);
    if n == 0 {
        println!("SKIP {}: no GPU", test);
    }
    n > 0
}

#[test]
fn a_constant_table_written_through_rocjit_is_what_the_kernel_reads() {
    if !gpu_or_skip("a_constant_table_written_through_rocjit_is_what_the_kernel_reads") {
        return;
    }
    let (ctx, _dir) = context("gpu-table");
    let k = ctx.kernel(&Program::new(TABLE).name("table.cu"), "scale_table").unwrap();
    let (address, size) = k.global("table").unwrap();
    assert!(address.addr() != 0);
    assert_eq!(size, 64 * 4);
    let e = k.global("no_such_table").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{}", e);
    assert!(e.message().contains("table"), "{}", e);
    let e = k.global_write("table", 200, &[0u8; 64]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}", e);

    let table: Vec<f32> = (0..64).map(|i| 0.5 + i as f32).collect();
    k.global_write("table", 0, &table).unwrap();
    let a = 3.0f32;
    // SAFETY: the kernel takes one float; 64 threads, one per entry of the tables.
    unsafe { k.launch(1, 64, 0, std::ptr::null_mut(), &rocjit::args![&a]).unwrap() };
    // Synchronous, on the null stream: after the launch.
    let mut out = [0f32; 64];
    k.global_read("scaled", 0, &mut out).unwrap();
    for i in 0..64 {
        assert_eq!(out[i], table[i] * a, "entry {}", i);
    }
    let mut half = [[0f32; 4]; 8];
    k.global_read("table", 32 * 4, &mut half).unwrap();
    assert_eq!(half[0][0], table[32]);
    assert_eq!(half[7][3], table[63]);
}

#[test]
fn occupancy_block_size_attributes_and_native_handles() {
    if !gpu_or_skip("occupancy_block_size_attributes_and_native_handles") {
        return;
    }
    let (ctx, _dir) = context("gpu-occupancy");
    let k = ctx.kernel(&Program::new(TILE).name("tile.hip"), "tile_flip").unwrap();
    assert!(k.occupancy(128, 0).unwrap() > 0);
    let b = k.suggested_block_size(0, 0).unwrap();
    assert!(b.block_threads > 0 && b.block_threads <= 128, "{:?}", b);
    assert!(b.min_grid_blocks > 0, "{:?}", b);
    let limited = k.suggested_block_size(0, 64).unwrap();
    assert!(limited.block_threads <= 64, "{:?}", limited);
    let max = k.attribute(Attribute::MaxThreadsPerBlock).unwrap();
    assert!(max > 0 && max <= 128, "{}", max);
    assert_eq!(k.attribute(Attribute::SharedBytes).unwrap(), 1024);
    k.set_attribute(Attribute::MaxDynamicSharedBytes, 1024).unwrap();
    assert!(k.attribute(Attribute::MaxDynamicSharedBytes).unwrap() >= 1024);
    let e = k.set_attribute(Attribute::MaxDynamicSharedBytes, 1 << 30).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}", e);

    let n = k.native().unwrap();
    assert!(!n.function.is_null() && !n.module.is_null(), "{:?}", n);
    assert!(n.platform == Platform::Nvidia || n.platform == Platform::Amd);
    assert!(n.device >= 0);

    let r = k.resources();
    if resources_or_skip("occupancy_block_size_attributes_and_native_handles (resources)", &r) {
        let r = r.unwrap();
        assert_eq!((r.shared_bytes, r.max_threads, r.platform), (1024, 128, n.platform));
    }
}

#[test]
fn a_cooperative_launch_synchronizes_the_whole_grid() {
    if !gpu_or_skip("a_cooperative_launch_synchronizes_the_whole_grid") {
        return;
    }
    let (ctx, _dir) = context("gpu-coop");
    let k = ctx.kernel(&Program::new(COOP).name("coop.cu"), "rotate").unwrap();
    assert!(k.occupancy(128, 0).unwrap() > 0);
    let round = 5u32;
    let args = rocjit::args![&round];
    // SAFETY: one unsigned int argument; 8 x 128 threads, the size of the variables.
    unsafe { k.launch_cooperative(8, 128, 0, std::ptr::null_mut(), &args).unwrap() };
    let mut seen = vec![0u32; 1024];
    k.global_read("seen", 0, &mut seen).unwrap();
    for (i, v) in seen.iter().enumerate() {
        assert_eq!(*v, ((i as u32 + 128) % 1024) * 7 + round, "thread {}", i);
    }
    // A grid that cannot be resident at once is refused, saying how many blocks fit.
    // SAFETY: as above; refused before anything runs.
    let e =
        unsafe { k.launch_cooperative(1 << 20, 128, 0, std::ptr::null_mut(), &args) }.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}", e);
    assert!(e.message().contains("at most"), "{}", e);
}

/// What a framework's `'static` device type needs of a kernel (checked at compile time).
#[test]
fn a_kernel_is_clone_send_sync_static() {
    fn owned<T: Clone + Send + Sync + 'static>() {}
    owned::<rocjit::Kernel>();
    owned::<rocjit::Context>();
}

#[test]
fn a_kernel_keeps_its_context_open_after_the_last_handle_is_dropped() {
    if !gpu_or_skip("a_kernel_keeps_its_context_open_after_the_last_handle_is_dropped") {
        return;
    }
    let (ctx, _dir) = context("gpu-owned");
    let k = ctx.kernel(&Program::new(TABLE).name("table.cu"), "scale_table").unwrap();
    let copy = ctx.clone();
    assert!(copy.same(k.context()));
    drop((ctx, copy));
    // On another thread, after every handle went: the kernel still holds the context.
    let k2 = k.clone();
    let t = std::thread::spawn(move || {
        k2.global_write("table", 0, &[1.0f32; 64]).unwrap();
        // SAFETY: the kernel takes one float; 64 threads, one per entry of the tables.
        unsafe { k2.launch(1, 64, 0, std::ptr::null_mut(), &rocjit::args![&2.0f32]).unwrap() };
    });
    t.join().unwrap();
    let mut out = [0f32; 64];
    k.global_read("scaled", 0, &mut out).unwrap();
    assert_eq!(out, [2.0f32; 64]);
    assert!(k.native().unwrap().module == k.clone().native().unwrap().module);
}

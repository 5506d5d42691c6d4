//! Each kernel's resources read from code objects compiled here, with no GPU
//! (rocjit_codeobj_resources_get): for gfx90a with hipRTC, for sm_90 where NVRTC is.
mod common;
use common::*;
use rocjit::{codeobj_resources, ErrorKind, Platform, Program};

fn check_tile(target: &str, platform: Platform, wavefront: u32) {
    let test = format!("tile resources for {}", target);
    let (ctx, _dir) = context(&format!("resources-{}", target));
    let code = ctx.compile(Some(target), &Program::new(TILE).name("tile.hip")).unwrap();
    let r = code.resources("tile_flip");
    if !resources_or_skip(&test, &r) {
        return;
    }
    let r = r.unwrap();
    assert_eq!(r.platform, platform, "{:?}", r);
    assert_eq!(r.shared_bytes, 1024, "{:?}", r);
    assert_eq!(r.max_threads, 128, "{:?}", r);
    assert_eq!(r.wavefront, wavefront, "{:?}", r);
    assert!(r.registers > 0, "{:?}", r);
    assert!(r.param_bytes >= 16, "two pointers: {:?}", r);

    let all = code.all_resources().unwrap();
    assert_eq!(all, vec![("tile_flip".to_string(), r)]);
    assert_eq!(codeobj_resources(code.data(), "tile_flip").unwrap(), r);

    let e = code.resources("no_such_kernel").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{}", e);
    println!("{}: {:?}", target, r);
}

#[test]
fn static_shared_launch_bounds_and_wavefront_of_a_gfx90a_kernel() {
    check_tile("gfx90a", Platform::Amd, 64);
}

#[test]
fn static_shared_launch_bounds_and_warp_of_an_sm_90_kernel() {
    if nvrtc_or_skip("static_shared_launch_bounds_and_warp_of_an_sm_90_kernel") {
        check_tile("sm_90", Platform::Nvidia, 32);
    }
}

#[test]
fn bytes_that_are_no_code_object_are_refused() {
    let r = codeobj_resources(b"\x7fELF but not really", "k");
    if !resources_or_skip("bytes_that_are_no_code_object_are_refused", &r) {
        return;
    }
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{}", e);
    let e = codeobj_resources(b"", "k").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Format | ErrorKind::InvalidArgument), "{}", e);
    let e = codeobj_resources(b"x", "nul\0inside").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

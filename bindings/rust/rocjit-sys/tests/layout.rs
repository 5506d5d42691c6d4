//! The declarations of this crate against the C header they were built with (build.rs
//! compiled and ran a probe that printed what the C compiler says): every struct's size
//! and alignment, every field's offset and size, every integer constant's value, and
//! that the header's ROCJIT_API functions and these declarations are the same set.
#![allow(clippy::all)]
use rocjit_sys::*;
use std::mem::MaybeUninit;

/// offsetof without memoffset or offset_of! (not in Rust 1.63): the distance from an
/// uninitialised value's address to its field's, taken with addr_of! (no reference to
/// uninitialised memory is made).
macro_rules! offset_of {
    ($t:ty, $f:ident) => {{
        let u = MaybeUninit::<$t>::uninit();
        let base = u.as_ptr();
        // SAFETY: addr_of! computes the field's address without reading or referencing it.
        let field = unsafe { std::ptr::addr_of!((*base).$f) };
        (field as usize) - (base as usize)
    }};
}

macro_rules! field_size {
    ($t:ty, $f:ident) => {{
        fn pointee_size<T>(_: *const T) -> usize {
            std::mem::size_of::<T>()
        }
        let u = MaybeUninit::<$t>::uninit();
        // SAFETY: as in offset_of!.
        pointee_size(unsafe { std::ptr::addr_of!((*u.as_ptr()).$f) })
    }};
}

include!(concat!(env!("OUT_DIR"), "/layout_expected.rs"));

fn probe_ok() {
    if let Some(why) = PROBE_ERROR {
        panic!("the layout probe could not run, so nothing was compared: {}", why);
    }
}

#[test]
fn every_struct_size_alignment_and_field_offset_match_the_header() {
    probe_ok();
    let checks: Vec<(String, i64, i64)> = layout_checks!();
    assert!(checks.len() > 100, "only {} layout checks were generated", checks.len());
    let bad: Vec<String> = checks
        .iter()
        .filter(|(_, c, r)| c != r)
        .map(|(what, c, r)| format!("{}: C {} vs Rust {}", what, c, r))
        .collect();
    assert!(bad.is_empty(), "layout differs from {}:\n  {}", HEADER_PATH, bad.join("\n  "));
    println!("{} layout checks against {}", checks.len(), HEADER_PATH);
}

#[test]
fn every_integer_constant_of_the_header_has_its_value() {
    probe_ok();
    let checks: Vec<(&str, i64, i64)> = constant_checks!();
    assert!(checks.len() > 50, "only {} constants were found in the header", checks.len());
    let bad: Vec<String> = checks
        .iter()
        .filter(|(_, c, r)| c != r)
        .map(|(what, c, r)| format!("{}: C {} vs Rust {}", what, c, r))
        .collect();
    assert!(bad.is_empty(), "constants differ:\n  {}", bad.join("\n  "));
    assert_eq!(C_VERSION_STRING, ROCJIT_VERSION_STRING);
    println!("{} constants checked", checks.len());
}

/// The names of `ROCJIT_API` functions declared in a header text.
fn header_functions(header: &str) -> Vec<String> {
    let mut names = Vec::new();
    for decl in header.split("ROCJIT_API").skip(1) {
        let paren = match decl.find('(') {
            Some(p) => p,
            None => continue,
        };
        let before = decl[..paren].trim_end();
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map(|i| i + 1)
            .unwrap_or(0);
        let name = &before[start..];
        if name.starts_with("rocjit_") && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

fn rust_functions(lib_rs: &str) -> Vec<String> {
    lib_rs
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .filter_map(|l| l.split('(').next())
        .map(|n| n.trim().to_string())
        .filter(|n| n.starts_with("rocjit_"))
        .collect()
}

#[test]
fn every_header_function_is_declared_and_nothing_more() {
    let header = std::fs::read_to_string(HEADER_PATH).expect("the header build.rs used");
    let lib_rs = include_str!("../src/lib.rs");
    let in_header = header_functions(&header);
    let in_rust = rust_functions(lib_rs);
    assert!(in_header.len() > 50, "only {} functions found in {}", in_header.len(), HEADER_PATH);
    let missing: Vec<&String> = in_header.iter().filter(|n| !in_rust.contains(n)).collect();
    let extra: Vec<&String> = in_rust.iter().filter(|n| !in_header.contains(n)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "in {} but not declared in rocjit-sys: {:?}\ndeclared in rocjit-sys but not in the header: {:?}",
        HEADER_PATH,
        missing,
        extra
    );
    println!("{} functions declared", in_header.len());
}

#[test]
fn the_library_is_the_version_of_the_header() {
    let v = unsafe { rocjit_version() };
    assert_eq!(v, ROCJIT_VERSION_NUMBER, "librocjit {} vs header {}", v, ROCJIT_VERSION_NUMBER);
}

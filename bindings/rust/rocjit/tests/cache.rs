//! The cache across processes, and the administration calls on a temporary cache.
mod common;
use common::*;
use rocjit::{Context, ErrorKind, Program};
use std::process::Command;

const CHILD_ENV: &str = "ROCJIT_RS_TEST_CHILD_CACHE";
const CROSS: &str = "a_second_process_is_served_from_the_disk_cache";

/// In a child (this test binary run again with CHILD_ENV set): one compile against the
/// given cache, and a line saying how it was served.
fn child(cache: &str) {
    let ctx = Context::builder().cache_dir(cache).open().unwrap();
    let code = ctx.compile(Some("gfx90a"), &Program::new(SCALE).name("scale.hip")).unwrap();
    let s = ctx.stats().unwrap();
    println!(
        "CHILD from_cache={} disk_hits={} compiles={} misses={} key={}",
        code.from_cache() as u8,
        s.disk_hits,
        s.compiles,
        s.misses,
        code.key()
    );
}

fn run_child(cache: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([CROSS, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, cache)
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{}\n{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.find("CHILD ").map(|i| l[i..].to_string()))
        .unwrap_or_else(|| panic!("no CHILD line in:\n{}", stdout))
}

#[test]
fn a_second_process_is_served_from_the_disk_cache() {
    if let Ok(cache) = std::env::var(CHILD_ENV) {
        child(&cache);
        return;
    }
    let dir = fresh_dir("xproc");
    let cache = dir.join("cache");
    let first = run_child(&cache);
    let second = run_child(&cache);
    println!("first:  {}\nsecond: {}", first, second);
    assert!(first.contains("from_cache=0 disk_hits=0 compiles=1 misses=1"), "{}", first);
    assert!(second.contains("from_cache=1 disk_hits=1 compiles=0 misses=0"), "{}", second);
    let key = |l: &str| l.split("key=").nth(1).unwrap().to_string();
    assert_eq!(key(&first), key(&second));
}

#[test]
fn admin_calls_on_a_temporary_cache() {
    let dir = fresh_dir("admin");
    let cache = dir.join("cache");
    let (k1, k2, bytes1);
    {
        let ctx = Context::builder().cache_dir(&cache).open().unwrap();
        let c1 = ctx.compile(Some("gfx90a"), &Program::new(SCALE).name("scale.hip")).unwrap();
        let c2 = ctx
            .compile(
                Some("gfx90a"),
                &Program::new(TEMPLATED).name("fill.hip").name_expression("fill<int, 8>"),
            )
            .unwrap();
        k1 = c1.key();
        k2 = c2.key();
        bytes1 = c1.data().to_vec();
    } // closing adds this context's misses and compiles to the cache's counters

    let ctx = Context::builder().cache_dir(&cache).open().unwrap();
    let entries = ctx.cache_entries().unwrap();
    assert_eq!(entries.len(), 2);
    let mut keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    keys.sort_unstable();
    let mut want = vec![k1.as_str(), k2.as_str()];
    want.sort_unstable();
    assert_eq!(keys, want, "a walk is in key order and sees both");
    let e1 = entries.iter().find(|e| e.key == k1).unwrap();
    assert_eq!(e1.platform, "amd");
    assert!(e1.target.starts_with("gfx90a"));
    assert_eq!(e1.source_name, "scale.hip");
    assert_eq!(e1.kernels, vec!["scale_f32".to_string()]);
    assert_eq!(e1.size, bytes1.len() as u64);
    let e2 = entries.iter().find(|e| e.key == k2).unwrap();
    assert_eq!(e2.name_expressions.len(), 1);
    assert_eq!(e2.name_expressions[0].0, "fill<int, 8>");
    assert!(e2.name_expressions[0].1.starts_with("_Z"));

    // A walk stops when the closure says so; a panic in it reaches the caller.
    let mut seen = 0;
    ctx.cache_foreach(|_| {
        seen += 1;
        false
    })
    .unwrap();
    assert_eq!(seen, 1);
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = ctx.cache_foreach(|_| panic!("inside the walk"));
    }));
    assert!(p.is_err());

    let (found, code) = ctx.cache_find(&k1[..8]).unwrap();
    assert_eq!(found.key, k1);
    assert_eq!(code.as_deref(), Some(&bytes1[..]));
    assert_eq!(ctx.cache_find("zz").unwrap_err().kind(), ErrorKind::InvalidArgument);

    let report = ctx.cache_verify(false).unwrap();
    assert_eq!(report.checked, 2);
    assert!(report.bad.is_empty(), "{:?}", report.bad);

    let c = ctx.counters().unwrap();
    assert_eq!((c.compiles, c.misses), (2, 2), "{:?}", c);
    ctx.cache_zero().unwrap();
    let c = ctx.counters().unwrap();
    assert_eq!((c.compiles, c.misses, c.disk_hits), (0, 0, 0));

    let bundle = dir.join("app.rocjit");
    assert_eq!(ctx.bundle_export(&bundle, &[&k1, &k2]).unwrap(), 2);
    assert_eq!(
        ctx.bundle_export(&bundle, &[&k1]).unwrap_err().kind(),
        ErrorKind::InvalidArgument,
        "the path exists"
    );
    let other = Context::builder().cache_dir(dir.join("other")).open().unwrap();
    let imported = other.bundle_import(&bundle).unwrap();
    assert_eq!(imported.copied, 2);
    assert!(imported.rejected.is_empty());
    assert_eq!(other.cache_entries().unwrap().len(), 2);
    std::fs::write(dir.join("junk.rocjit"), b"not a bundle").unwrap();
    assert!(other.bundle_import(dir.join("junk.rocjit")).is_err());

    assert_eq!(ctx.cache_remove(&[&k1]).unwrap(), 1);
    assert_eq!(ctx.cache_remove(&[&k1]).unwrap(), 0);
    assert_eq!(ctx.cache_remove(&["nothex"]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(ctx.cache_entries().unwrap().len(), 1);
    assert_eq!(ctx.cache_find(&k1[..8]).unwrap_err().kind(), ErrorKind::NotFound);
    ctx.cache_compact().unwrap();
    let r = ctx.remote_counters().unwrap();
    assert_eq!(r.hits, 0);
}

#[test]
fn a_context_without_a_cache_refuses_the_admin_calls() {
    let ctx = Context::builder().no_cache(true).open().unwrap();
    let e = ctx.cache_entries().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{}", e);
    let code = ctx.compile(Some("gfx90a"), &Program::new(SCALE).name("scale.hip")).unwrap();
    assert!(!code.from_cache());
    assert!(!ctx.stats().unwrap().cache_open);
}

#[test]
fn a_no_compile_context_misses_with_not_cached() {
    let dir = fresh_dir("nocompile");
    let ctx = Context::builder().cache_dir(dir.join("cache")).no_compile(true).open().unwrap();
    let e = ctx.compile(Some("gfx90a"), &Program::new(SCALE).name("scale.hip")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotCached, "{}", e);
}

#[test]
fn a_prefetch_fills_the_cache_ahead_of_need() {
    use rocjit::PrefetchItem;
    let (ctx, _dir) = context("prefetch");
    let a = Program::new(SCALE).name("scale.hip");
    let b = Program::new(TEMPLATED).name("fill.hip").name_expression("fill<float, 4>");
    let bad = Program::new("this is not C++").name("bad.hip");
    let items = [
        PrefetchItem::Program { program: &a, target: Some("gfx90a") },
        PrefetchItem::Program { program: &b, target: Some("gfx90a") },
        PrefetchItem::Program { program: &bad, target: Some("gfx90a") },
    ];
    let pf = ctx.prefetch(&items, 2).unwrap();
    assert!(pf.wait(Some(120.0)).unwrap(), "the prefetch did not finish in 2 minutes");
    let s = pf.status().unwrap();
    assert_eq!((s.total, s.done, s.failed, s.compiled, s.finished), (3, 3, 1, 2, true), "{:?}", s);
    drop(pf);
    let code = ctx.compile(Some("gfx90a"), &a).unwrap();
    let st = ctx.stats().unwrap();
    assert_eq!(st.compiles, 2, "the request after the prefetch compiled nothing: {:?}", st);
    assert!(!code.data().is_empty());
}

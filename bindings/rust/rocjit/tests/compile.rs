//! Compiling without a device (rocjit_compile): for gfx90a with hipRTC here, for sm_90
//! where NVRTC is installed; name expressions, options, headers; errors.
mod common;
use common::*;
use rocjit::{codeobj_inspect, ErrorKind, Language, Platform, Program};

#[test]
fn compiles_for_gfx90a_without_a_device_and_the_next_context_hits_the_cache() {
    let (ctx, dir) = context("gfx90a");
    let prog = Program::new(SCALE).name("scale.hip");
    let code = ctx.compile(Some("gfx90a"), &prog).expect("compile for gfx90a");
    assert!(code.target().starts_with("gfx90a"), "target {}", code.target());
    assert_eq!(code.key().len(), 32);
    assert!(!code.from_cache());
    let info = codeobj_inspect(code.data()).unwrap();
    assert_eq!(info.platform, Platform::Amd);
    assert!(info.target.starts_with("gfx90a"));
    assert_eq!(info.kernels, vec!["scale_f32".to_string()]);
    let again = ctx.compile(Some("gfx90a"), &prog).unwrap();
    assert_eq!(again.key(), code.key());
    let s = ctx.stats().unwrap();
    assert_eq!((s.compiles, s.misses, s.stores), (1, 1, 1), "{:?}", s);
    assert!(s.cache_open);

    let key = code.key();
    let bytes = code.data().to_vec();
    drop(ctx);
    let ctx2 = rocjit::Context::builder().cache_dir(dir.join("cache")).open().unwrap();
    let hit = ctx2.compile(Some("gfx90a"), &prog).unwrap();
    assert!(hit.from_cache());
    assert_eq!(hit.key(), key);
    assert_eq!(hit.data(), &bytes[..]);
    let s = ctx2.stats().unwrap();
    assert_eq!((s.disk_hits, s.compiles), (1, 0));
}

#[test]
fn compiles_for_sm_90_where_nvrtc_is() {
    if !nvrtc_or_skip("compiles_for_sm_90_where_nvrtc_is") {
        return;
    }
    let (ctx, _dir) = context("sm90");
    let prog = Program::new(SCALE).name("scale.hip");
    let code = ctx.compile(Some("sm_90"), &prog).expect("compile for sm_90");
    assert_eq!(code.target(), "sm_90");
    let info = codeobj_inspect(code.data()).unwrap();
    assert_eq!(info.platform, Platform::Nvidia);
    assert_eq!(info.kernels, vec!["scale_f32".to_string()]);
    println!(
        "sm_90: {} bytes with {}",
        code.data().len(),
        rocjit::compiler_identity(Platform::Nvidia).unwrap()
    );
}

#[test]
fn name_expressions_are_compiled_and_lowered() {
    let (ctx, _dir) = context("names");
    let prog = Program::new(TEMPLATED).name("fill.hip").name_expression("fill<float, 64>");
    let code = ctx.compile(Some("gfx90a"), &prog).unwrap();
    let lowered = code.lowered_name("fill<float, 64>").unwrap();
    assert!(lowered.starts_with("_Z"), "{}", lowered);
    assert!(codeobj_inspect(code.data()).unwrap().kernels.contains(&lowered));
    let e = code.lowered_name("fill<int, 1>").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[test]
fn options_headers_and_language_are_part_of_the_key() {
    let (ctx, _dir) = context("key");
    let src = "#include \"n.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = N + M; }\n";
    let base = || Program::new(src).name("k.hip").header("n.h", "#define M 1\n");
    let a = ctx.compile(Some("gfx90a"), &base().option("-DN=4")).unwrap().key();
    let b = ctx.compile(Some("gfx90a"), &base().option("-DN=8")).unwrap().key();
    let c = ctx
        .compile(
            Some("gfx90a"),
            &Program::new(src).name("k.hip").header("n.h", "#define M 2\n").option("-DN=4"),
        )
        .unwrap()
        .key();
    let d = ctx.compile(Some("gfx90a"), &base().option("-D N=4")).unwrap().key();
    assert_ne!(a, b);
    assert_ne!(a, c);
    assert_eq!(a, d, "options are normalized before they enter the key");
    assert_eq!(rocjit::program_language(Language::Auto, Some("k.cu")).unwrap(), Language::Cuda);
    assert_eq!(rocjit::program_language(Language::Auto, None).unwrap(), Language::Hip);
}

#[test]
fn a_bad_source_is_a_compile_error_with_the_compilers_message() {
    let (ctx, _dir) = context("badsrc");
    let prog =
        Program::new("extern \"C\" __global__ void k(float *x) { x[0] = undeclared_thing; }\n")
            .name("bad.hip");
    let e = ctx.compile(Some("gfx90a"), &prog).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile, "{}", e);
    assert_eq!(e.code(), rocjit::sys::ROCJIT_ECOMPILE);
    let all = format!("{}\n{}", e.message(), e.log());
    assert!(all.contains("undeclared_thing"), "the compiler's message is missing: {}", all);
    assert!(all.contains("bad.hip"), "diagnostics name the program: {}", all);
    assert!(
        e.log().contains("error: use of undeclared identifier"),
        "rocjit_last_log: {}",
        e.log()
    );
    println!("{}", e);
    let s = ctx.stats().unwrap();
    assert_eq!(s.compile_errors, 1);
}

#[test]
fn a_bad_target_or_argument_is_einval() {
    let (ctx, dir) = context("badtarget");
    let prog = Program::new(SCALE).name("scale.hip");
    // A malformed target id is misuse (EINVAL) ...
    for t in ["gfx90a:bogus", "", "GFX 90a", "gfx90a:xnack+:xnack-"] {
        let e = ctx.compile(Some(t), &prog).unwrap_err();
        assert_eq!(e.code(), rocjit::sys::ROCJIT_EINVAL, "target {:?}: {}", t, e);
        assert!(!e.message().is_empty());
    }
    // ... a well-formed one no installed compiler can target is EUNSUPPORTED.
    for t in ["gfx9999", "nonsense"] {
        let e = ctx.compile(Some(t), &prog).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "target {:?}: {}", t, e);
    }
    let e = ctx.compile(Some("gfx90a"), &prog.clone().option("--offload-arch=gfx90a")).unwrap_err();
    assert_eq!(e.code(), rocjit::sys::ROCJIT_EINVAL, "{}", e);
    let e = ctx.compile(Some("gfx90a"), &Program::new("a\0b")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("NUL"));
    let e = rocjit::Context::builder()
        .cache_dir(dir.join("cache2"))
        .remote("nota://url")
        .open()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}", e);
}

#[test]
fn a_kernel_needs_a_device() {
    let gpus = rocjit::device_count(Platform::Nvidia).unwrap_or(0)
        + rocjit::device_count(Platform::Amd).unwrap_or(0);
    if gpus > 0 {
        println!("SKIP a_kernel_needs_a_device: this machine has {} GPU(s)", gpus);
        return;
    }
    let (ctx, _dir) = context("nodev");
    let e = ctx.kernel(&Program::new(SCALE).name("scale.hip"), "scale_f32").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoDevice, "{}", e);
    let e = rocjit::device_target(Platform::Amd, 0).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NoDevice | ErrorKind::Device), "{}", e);
}

#[test]
fn targets_sizes_versions() {
    assert_eq!(rocjit::version(), rocjit::sys::ROCJIT_VERSION_NUMBER);
    assert_eq!(
        rocjit::target_normalize("GFX90A:xnack-:sramecc+").unwrap(),
        "gfx90a:sramecc+:xnack-"
    );
    assert_eq!(rocjit::target_normalize("!").unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(rocjit::target_platform("gfx90a"), Some(Platform::Amd));
    assert_eq!(rocjit::target_platform("sm_90"), Some(Platform::Nvidia));
    assert_eq!(rocjit::target_platform("x"), None);
    assert_eq!(rocjit::parse_size("1.5K").unwrap(), 1536);
    assert!(rocjit::parse_size("-1").is_err());
    assert_eq!(Platform::Amd.name(), "amd");
    assert_eq!(rocjit::strerror(rocjit::sys::ROCJIT_ECOMPILE), "compile error");
    let targets = rocjit::compiler_targets(Platform::Amd).unwrap();
    assert!(targets.iter().any(|t| t == "gfx90a"), "{:?}", targets);
    assert!(rocjit::compiler_identity(Platform::Amd).unwrap().contains("hiprtc"));
    let d = rocjit::cache_dir(Some(std::path::Path::new("/x/y"))).unwrap();
    assert_eq!(d, std::path::PathBuf::from("/x/y"));
}

#[test]
fn diagnostics_go_to_the_log_callback() {
    use std::sync::{Arc, Mutex};
    let got: Arc<Mutex<Vec<(rocjit::LogLevel, String)>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = got.clone();
    rocjit::set_log_callback(Some(move |level, msg: &str| {
        sink.lock().unwrap().push((level, msg.to_string()));
    }));
    std::env::set_var("ROCJIT_RS_TEST_FLAG", "maybe");
    assert!(!rocjit::env_flag("ROCJIT_RS_TEST_FLAG"));
    rocjit::clear_log_callback();
    let got = got.lock().unwrap();
    let mine: Vec<_> = got.iter().filter(|(_, m)| m.contains("ROCJIT_RS_TEST_FLAG")).collect();
    assert_eq!(mine.len(), 1, "{:?}", got);
    assert_eq!(mine[0].0, rocjit::LogLevel::Warn);
    assert!(!mine[0].1.ends_with('\n') && !mine[0].1.starts_with("rocjit: "), "{:?}", mine[0].1);
}

//! Embedding a folder of kernels at build time (rocjit::build) and registering it.
mod common;
use common::*;
use rocjit::build::Embed;
use rocjit::{ErrorKind, RegisteredOptions};

// What this crate's build.rs generated from examples/kernels with rocjit::build.
mod example_kernels {
    include!(concat!(env!("OUT_DIR"), "/rocjit_kernels.rs"));
}

#[test]
fn the_generated_file_registers_the_folder_and_its_kernels_compile() {
    let names: Vec<&str> =
        example_kernels::KERNELS.iter().map(|f| f.name.trim_end_matches('\0')).collect();
    assert_eq!(names, ["affine.hip", "common.h", "unary.hip"]);
    example_kernels::register_kernels().unwrap();
    example_kernels::register_kernels().unwrap(); // again: nothing happens
    assert!(rocjit::registered_source("affine.hip").unwrap().starts_with(b"/*"));
    assert!(rocjit::registered_is_header("common.h"));
    assert!(rocjit::is_header_name("x.cuh"));
    assert!(!rocjit::is_header_name("x.hip"));

    let (ctx, _dir) = context("registered");
    let code =
        ctx.compile_registered(Some("gfx90a"), "unary.hip", &RegisteredOptions::new()).unwrap();
    let kernels = rocjit::codeobj_inspect(code.data()).unwrap().kernels;
    assert_eq!(kernels, ["usqr_f32", "urelu_f32"]);
    let e = ctx
        .compile_registered(Some("gfx90a"), "missing.hip", &RegisteredOptions::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{}", e);
}

#[test]
fn registered_templates_compile_only_the_name_expressions_asked_for() {
    static FILES: &[rocjit::EmbeddedFile] = &[
        rocjit::EmbeddedFile {
            name: "rs_tmpl/fill.hip\0",
            text: concat!(include_str!("common/fill.hip"), "\0"),
            header: false,
        },
        rocjit::EmbeddedFile { name: "rs_tmpl/value\0", text: "#define VALUE 7\n\0", header: true },
    ];
    rocjit::register_embedded(FILES).unwrap();
    assert!(rocjit::registered_is_header("rs_tmpl/value"));
    let (ctx, _dir) = context("templates");
    let opts = RegisteredOptions::new().name_expression("fill<float, 16>");
    let code = ctx.compile_registered(Some("gfx90a"), "rs_tmpl/fill.hip", &opts).unwrap();
    let lowered = code.lowered_name("fill<float, 16>").unwrap();
    assert_eq!(rocjit::codeobj_inspect(code.data()).unwrap().kernels, [lowered]);
}

#[test]
fn embed_lists_sorted_files_marks_headers_and_writes_a_manifest() {
    let dir = fresh_dir("embed");
    let k = dir.join("kernels");
    std::fs::create_dir_all(k.join("ops")).unwrap();
    for (name, text) in [
        ("b.hip", "// b\n"),
        ("a.cu", "// a\n"),
        ("ops/z.h", "// z\n"),
        ("cmath", "// an extensionless header\n"),
        ("notes.txt", "not a kernel\n"),
    ] {
        std::fs::write(k.join(name), text).unwrap();
    }
    let e = Embed::new(&k).header("cmath").out_file(dir.join("gen.rs"));
    let files: Vec<(String, bool)> =
        e.files().unwrap().into_iter().map(|(n, _, h)| (n, h)).collect();
    assert_eq!(
        files,
        [
            ("a.cu".into(), false),
            ("b.hip".into(), false),
            ("cmath".into(), true),
            ("ops/z.h".into(), false)
        ]
    );
    let out = e.write().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("name: \"ops/z.h\\0\""), "{}", text);
    assert!(text.contains("pub fn register_kernels() -> rocjit::Result<()>"));
    assert!(!text.contains("notes.txt"));
    let manifest = std::fs::read_to_string(dir.join("gen.rocjit-manifest")).unwrap();
    assert!(manifest.starts_with("# rocjit-manifest 2\ndir="), "{}", manifest);
    assert!(
        manifest.contains("\nheader=cmath\n") && manifest.contains("\nfile=ops/z.h\n"),
        "{}",
        manifest
    );

    assert!(Embed::new(&k).header("nope").files().is_err());
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(Embed::new(&empty).files().is_err());
}

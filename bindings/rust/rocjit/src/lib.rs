//! Safe Rust API of rocjit: compile HIP/CUDA kernel source at first use, cache the code
//! object in SQLite, serve every later request from the cache.
//!
//! ```no_run
//! use rocjit::{Context, Program};
//! let ctx = Context::builder().cache_dir("/tmp/rocjit-cache").open()?;
//! // No GPU needed: compile for an explicit target (the prewarm path).
//! let prog = Program::new(r#"extern "C" __global__ void k(float *x) { x[threadIdx.x] *= 2; }"#)
//!     .name("k.hip");
//! let code = ctx.compile(Some("gfx90a"), &prog)?;
//! println!("{} bytes for {}, from cache: {}", code.data().len(), code.target(), code.from_cache());
//! # Ok::<(), rocjit::Error>(())
//! ```
//!
//! With a GPU: `let k = ctx.kernel(&prog, "k")?;` then
//! `unsafe { k.launch(grid, block, 0, stream, &rocjit::args![&n, &x])? }`.
//!
//! `include/rocjit.h` is the specification; every item here names the C call it wraps.
//! Errors are [`Error`]: rocjit's code, its message (rocjit_last_error) and, for a
//! compile, the compiler's log (rocjit_last_log).
mod admin;
/// Embedding kernel files at build time: the `rocjit-build` crate, re-exported.  A build
/// script should depend on `rocjit-build` itself, which links nothing (a build-dependency
/// on this crate links librocjit.so into the build script).
pub use rocjit_build as build;
mod context;
mod error;
mod kernel;
mod launch;
mod prefetch;
mod program;
mod resources;

pub use admin::{
    keygen, Counters, Entry, ImportReport, RemoteCounters, Signature, VerifyReason, VerifyReport,
};
pub use context::{Code, Context, ContextBuilder, Platform, RemoteState, RequireSigned, Stats};
pub use error::{strerror, Error, ErrorKind, Result};
pub use kernel::{dim3, Args, DevicePtr, Dim3, IntoDim3, Kernel, KernelArg};
pub use launch::{Attribute, BlockSize, NativeHandles, Pod};
pub use prefetch::{Prefetch, PrefetchItem, PrefetchStatus};
pub use program::{Language, Program, RegisteredOptions};
pub use resources::{codeobj_resources, Resources};
/// The raw C API, for what this crate does not wrap.
pub use rocjit_sys as sys;

use context::{chars, path_cstring};
use error::{check, string_from};
use program::c_string;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Mutex;

/// The header's version, "0.1.0", these bindings were written for.
pub const VERSION_STRING: &str = sys::ROCJIT_VERSION_STRING;

/// The run-time library's version number (MAJOR*10000 + MINOR*100 + PATCH).
pub fn version() -> i32 {
    // SAFETY: no arguments.
    unsafe { sys::rocjit_version() }
}

/// Reads an environment variable as rocjit reads its switches (1, true, yes, on).
pub fn env_flag(name: &str) -> bool {
    match CString::new(name) {
        // SAFETY: a NUL-terminated string.
        Ok(n) => unsafe { sys::rocjit_env_flag(n.as_ptr()) != 0 },
        Err(_) => false,
    }
}

/// Parses a size as ROCJIT_CACHE_MAXSIZE takes one ("500M", "1.5GiB").
pub fn parse_size(text: &str) -> Result<u64> {
    let t = c_string(text, "the size")?;
    let mut bytes = 0u64;
    // SAFETY: valid pointers.
    check(unsafe { sys::rocjit_parse_size(&mut bytes, t.as_ptr()) })?;
    Ok(bytes)
}

/// Normalizes a target id ("gfx90a:xnack-:sramecc+" -> "gfx90a:sramecc+:xnack-").
pub fn target_normalize(target: &str) -> Result<String> {
    let t = c_string(target, "the target")?;
    let mut buf = [0 as c_char; 128];
    // SAFETY: buf has buf.len() bytes.
    check(unsafe { sys::rocjit_target_normalize(buf.as_mut_ptr(), buf.len(), t.as_ptr()) })?;
    Ok(chars(&buf))
}

/// The platform a target id names ("gfx..." AMD, "sm_..." NVIDIA), None for others.
pub fn target_platform(target: &str) -> Option<Platform> {
    let t = CString::new(target).ok()?;
    // SAFETY: a NUL-terminated string.
    match unsafe { sys::rocjit_target_platform(t.as_ptr()) } {
        0 => None,
        p => Platform::from_raw(p),
    }
}

/// The language a program of this name is compiled as (rocjit_program_language).
pub fn program_language(language: Language, name: Option<&str>) -> Result<Language> {
    let n = name.map(|n| c_string(n, "the name")).transpose()?;
    // SAFETY: valid or NULL pointer.
    let rc = unsafe {
        sys::rocjit_program_language(
            language.to_raw(),
            n.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
        )
    };
    if rc < 0 {
        return Err(Error::last(rc));
    }
    Language::from_raw(rc).ok_or_else(|| Error::new(sys::ROCJIT_EINVAL, "unknown language"))
}

/// The cache folder a context opened with this `cache_dir` would use (rocjit_cache_dir).
pub fn cache_dir(dir: Option<&Path>) -> Result<PathBuf> {
    let d = dir.map(|d| path_cstring(d, "the folder")).transpose()?;
    let mut buf = vec![0 as c_char; 4096];
    // SAFETY: buf has buf.len() bytes.
    check(unsafe {
        sys::rocjit_cache_dir(
            buf.as_mut_ptr(),
            buf.len(),
            d.as_ref().map_or(ptr::null(), |d| d.as_ptr()),
        )
    })?;
    Ok(PathBuf::from(chars(&buf)))
}

/// The identity of a platform's compiler as it enters cache keys ("hiprtc 9.0; ...").
pub fn compiler_identity(platform: Platform) -> Result<&'static str> {
    let mut out = ptr::null();
    // SAFETY: out receives a static string.
    check(unsafe { sys::rocjit_compiler_identity(&mut out, platform.to_raw()) })?;
    // SAFETY: static, NUL-terminated.
    Ok(unsafe { CStr::from_ptr(out) }.to_str().unwrap_or(""))
}

/// The targets a platform's installed compiler supports.
pub fn compiler_targets(platform: Platform) -> Result<Vec<String>> {
    let mut buf = vec![0 as c_char; 8192];
    // SAFETY: buf has buf.len() bytes.
    check(unsafe {
        sys::rocjit_compiler_targets_get(buf.as_mut_ptr(), buf.len(), platform.to_raw())
    })?;
    Ok(chars(&buf).split_whitespace().filter(|t| *t != "...").map(String::from).collect())
}

/// How many GPUs of the platform this machine has (0 with no driver).
pub fn device_count(platform: Platform) -> Result<usize> {
    let mut n: c_int = 0;
    // SAFETY: valid pointer.
    check(unsafe { sys::rocjit_device_count_get(&mut n, platform.to_raw()) })?;
    Ok(n.max(0) as usize)
}

/// The full target id of a device ("gfx90a:sramecc+:xnack-", "sm_90").
pub fn device_target(platform: Platform, device: i32) -> Result<String> {
    let mut buf = [0 as c_char; 128];
    // SAFETY: buf has buf.len() bytes.
    check(unsafe {
        sys::rocjit_device_target_get(buf.as_mut_ptr(), buf.len(), platform.to_raw(), device)
    })?;
    Ok(chars(&buf))
}

/// What a code object says about itself (rocjit_codeobj_inspect).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObjInfo {
    pub platform: Platform,
    pub target: String,
    pub flags_target: String,
    pub kernels: Vec<String>,
}

/// Reads an AMDGPU code object or an NVIDIA CUBIN.
pub fn codeobj_inspect(data: &[u8]) -> Result<CodeObjInfo> {
    let mut info = ptr::null_mut();
    // SAFETY: data is data.len() readable bytes.
    check(unsafe {
        sys::rocjit_codeobj_inspect(&mut info, data.as_ptr() as *const c_void, data.len())
    })?;
    // SAFETY: on success, info is valid until rocjit_codeobj_info_free.
    let i = unsafe { &*info };
    let kernels = (0..i.num_kernels)
        // SAFETY: num_kernels strings.
        .map(|k| string_from(unsafe { *i.kernels.add(k) }))
        .collect();
    let out = CodeObjInfo {
        platform: Platform::from_raw(i.platform).unwrap_or(Platform::Auto),
        target: chars(&i.target),
        flags_target: chars(&i.flags_target),
        kernels,
    };
    // SAFETY: what rocjit_codeobj_inspect returned, freed once.
    unsafe { sys::rocjit_codeobj_info_free(info) };
    Ok(out)
}

// ---- Registered (embedded) sources ------------------------------------------------------

/// One embedded kernel file, as [`build::embed_kernels`] generates them.  `name` and
/// `text` should end with a NUL byte (the generated code appends it); others are copied
/// (once, for the life of the process) into NUL-terminated strings.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedFile {
    /// The path relative to the embedded folder, '/' separated ("ops/unary.hip").
    pub name: &'static str,
    pub text: &'static str,
    /// Registered as a header whatever its name (`rocjit_register_headers`), e.g. an
    /// extensionless "cmath".  Files named *.h, *.hpp, *.cuh, *.inc are headers anyway.
    pub header: bool,
}

fn static_c(s: &'static str, what: &str) -> Result<(*const c_char, usize)> {
    if let Some(body) = s.strip_suffix('\0') {
        if !body.as_bytes().contains(&0) {
            return Ok((s.as_ptr() as *const c_char, body.len()));
        }
    }
    let c = c_string(s, what)?;
    let len = c.as_bytes().len();
    // Registered strings must live as long as the process.
    Ok((Box::leak(c.into_boxed_c_str()).as_ptr(), len))
}

static REGISTERED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Registers embedded files process-wide (rocjit_register_headers_v2 for those marked
/// `header`, then rocjit_register_sources_v2 for all), so that
/// [`Context::kernel_registered`] finds them by name.  A name registered twice keeps its
/// first text.  Registering the same slice again does nothing.
pub fn register_embedded(files: &'static [EmbeddedFile]) -> Result<()> {
    let mut done = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    let id = files.as_ptr() as usize;
    if files.is_empty() || done.contains(&id) {
        return Ok(());
    }
    let mut all = Vec::with_capacity(files.len());
    let mut headers = Vec::new();
    for f in files {
        let (name, _) = static_c(f.name, "an embedded file's name")?;
        let (text, length) = static_c(f.text, "an embedded file's text")?;
        let raw = sys::rocjit_source_file { name, text, length };
        if f.header {
            headers.push(raw);
        }
        all.push(raw);
    }
    // The arrays must stay valid for the life of the process too.
    let all: &'static [sys::rocjit_source_file] = Box::leak(all.into_boxed_slice());
    let headers: &'static [sys::rocjit_source_file] = Box::leak(headers.into_boxed_slice());
    let size = std::mem::size_of::<sys::rocjit_source_file>();
    if !headers.is_empty() {
        // SAFETY: static arrays of valid entries.
        check(unsafe { sys::rocjit_register_headers_v2(headers.as_ptr(), headers.len(), size) })?;
    }
    // SAFETY: as above.
    check(unsafe { sys::rocjit_register_sources_v2(all.as_ptr(), all.len(), size) })?;
    done.push(id);
    Ok(())
}

/// The text registered under `name` (rocjit_registered_source), if any.
pub fn registered_source(name: &str) -> Option<&'static [u8]> {
    let n = CString::new(name).ok()?;
    let mut out = ptr::null();
    // SAFETY: valid pointers; out points into static registered data.
    if unsafe { sys::rocjit_registered_source(&mut out, n.as_ptr()) } != 0 || out.is_null() {
        return None;
    }
    // SAFETY: registered data lives for the process.
    let f: &'static sys::rocjit_source_file = unsafe { &*out };
    // SAFETY: length bytes of text.
    Some(unsafe { std::slice::from_raw_parts(f.text as *const u8, f.length) })
}

/// Whether a file is a header by its name (".h", ".hpp", ".cuh", ".inc").
pub fn is_header_name(name: &str) -> bool {
    // SAFETY: a NUL-terminated string.
    CString::new(name).map_or(false, |n| unsafe { sys::rocjit_is_header_name(n.as_ptr()) != 0 })
}

/// Whether `name` is a header of the registered set.
pub fn registered_is_header(name: &str) -> bool {
    // SAFETY: a NUL-terminated string.
    CString::new(name)
        .map_or(false, |n| unsafe { sys::rocjit_registered_is_header(n.as_ptr()) != 0 })
}

/// The text the compiler is given for a registered file (rocjit_include_resolve): quoted
/// includes of `headers` relative to `name`'s folder rewritten to their registered
/// names; None when the text needs no change.
pub fn include_resolve(name: &str, text: &str, headers: &[&str]) -> Result<Option<String>> {
    let n = c_string(name, "the name")?;
    let t = c_string(text, "the text")?;
    let h: Vec<CString> = headers.iter().map(|h| c_string(h, "a header")).collect::<Result<_>>()?;
    let hp: Vec<*const c_char> = h.iter().map(|h| h.as_ptr()).collect();
    let mut out: *mut c_char = ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: all pointers live across the call.
    check(unsafe {
        sys::rocjit_include_resolve(
            &mut out,
            &mut len,
            n.as_ptr(),
            t.as_ptr(),
            t.as_bytes().len(),
            hp.as_ptr(),
            hp.len(),
        )
    })?;
    if out.is_null() {
        return Ok(None);
    }
    // SAFETY: len bytes at out, malloc'ed by rocjit, released with free().
    let s = String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(out as *const u8, len) })
        .into_owned();
    extern "C" {
        fn free(p: *mut c_void);
    }
    // SAFETY: the buffer rocjit malloc'ed, freed once.
    unsafe { free(out as *mut c_void) };
    Ok(Some(s))
}

// ---- Diagnostics ------------------------------------------------------------------------

/// A diagnostic's level (`ROCJIT_LOG_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
}

type LogFn = Box<dyn Fn(LogLevel, &str) + Send + Sync + 'static>;

unsafe extern "C" fn log_tramp(user: *mut c_void, level: c_int, message: *const c_char) {
    let f = &*(user as *const LogFn);
    let level = match level {
        sys::ROCJIT_LOG_ERROR => LogLevel::Error,
        sys::ROCJIT_LOG_WARN => LogLevel::Warn,
        sys::ROCJIT_LOG_INFO => LogLevel::Info,
        _ => LogLevel::Debug,
    };
    let m = string_from(message);
    // A panic must not unwind into C; a diagnostic that panics is dropped.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(level, &m)));
}

static LOG_FN: Mutex<usize> = Mutex::new(0);

/// Sends every diagnostic rocjit would print on stderr to `f` instead
/// (rocjit_set_log_callback); None restores stderr.  Process-wide.  `f` may be called
/// from any thread, several at once, while rocjit holds its locks: it must not call
/// rocjit, and should return quickly.
pub fn set_log_callback<F>(f: Option<F>)
where
    F: Fn(LogLevel, &str) + Send + Sync + 'static,
{
    let mut cur = LOG_FN.lock().unwrap_or_else(|e| e.into_inner());
    let new: usize = match f {
        Some(f) => {
            let b: Box<LogFn> = Box::new(Box::new(f));
            let p = Box::into_raw(b);
            // SAFETY: p stays valid until replaced below, after rocjit stopped using it.
            unsafe { sys::rocjit_set_log_callback(Some(log_tramp), p as *mut c_void) };
            p as usize
        }
        None => {
            // SAFETY: restores stderr.
            unsafe { sys::rocjit_set_log_callback(None, ptr::null_mut()) };
            0
        }
    };
    let old = std::mem::replace(&mut *cur, new);
    if old != 0 {
        // SAFETY: rocjit_set_log_callback returned: no thread is still inside the
        // previous function (rocjit.h), so its closure can go.
        drop(unsafe { Box::from_raw(old as *mut LogFn) });
    }
}

/// Restores rocjit's diagnostics to stderr (`set_log_callback(None)`).
pub fn clear_log_callback() {
    set_log_callback::<fn(LogLevel, &str)>(None);
}

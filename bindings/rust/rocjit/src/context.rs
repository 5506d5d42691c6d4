//! The context: one device of one platform, one cache, the in-process table of kernels.
use crate::error::{check, check_request, string_from, Error, Result};
use crate::kernel::Kernel;
use crate::program::{c_string, ptrs, Program, RegisteredOptions};
use rocjit_sys as sys;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::Arc;

/// A GPU platform (`ROCJIT_PLATFORM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    /// Whichever GPU is present (NVIDIA first), else AMD.
    Auto,
    /// hipRTC and the HIP module API.
    Amd,
    /// NVRTC and the CUDA driver API.
    Nvidia,
}

impl Platform {
    pub fn to_raw(self) -> i32 {
        match self {
            Platform::Auto => sys::ROCJIT_PLATFORM_AUTO,
            Platform::Amd => sys::ROCJIT_PLATFORM_AMD,
            Platform::Nvidia => sys::ROCJIT_PLATFORM_NVIDIA,
        }
    }

    pub fn from_raw(v: i32) -> Option<Platform> {
        match v {
            sys::ROCJIT_PLATFORM_AUTO => Some(Platform::Auto),
            sys::ROCJIT_PLATFORM_AMD => Some(Platform::Amd),
            sys::ROCJIT_PLATFORM_NVIDIA => Some(Platform::Nvidia),
            _ => None,
        }
    }

    /// "amd", "nvidia", "auto" (rocjit_platform_name).
    pub fn name(self) -> &'static str {
        // SAFETY: a static string for any value.
        let p = unsafe { sys::rocjit_platform_name(self.to_raw()) };
        unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("unknown")
    }
}

/// Which entries load only with a signature by a trusted key (`ROCJIT_REQUIRE_SIGNED_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequireSigned {
    /// `$ROCJIT_REQUIRE_SIGNED`, else `Shared` when keys are trusted, else `None`.
    Default,
    None,
    /// Entries from bundles and the remote tier.
    Shared,
    /// Those, and the local cache's too.
    All,
}

pub(crate) fn path_cstring(p: &Path, what: &str) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| Error::nul(what))
}

/// How to open a [`Context`] (`rocjit_options`): `Context::builder().cache_dir(d).open()`.
/// Anything not set keeps rocjit's default (environment variables included).
#[derive(Debug, Default)]
pub struct ContextBuilder {
    cache_dir: Option<CString>,
    target: Option<CString>,
    platform: Option<Platform>,
    device: i32,
    flags: u32,
    bundles: Option<CString>,
    remote: Option<CString>,
    signing_key: Option<CString>,
    trusted_keys: Option<CString>,
    require_signed: Option<RequireSigned>,
    error: Option<Error>,
}

impl ContextBuilder {
    fn keep(&mut self, r: Result<CString>) -> Option<CString> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }

    fn flag(mut self, bit: u32, on: bool) -> Self {
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
        self
    }

    /// The cache folder (default `$ROCJIT_CACHE_DIR`, else `$XDG_CACHE_HOME/rocjit`, else
    /// `~/.cache/rocjit`).
    pub fn cache_dir(mut self, dir: impl AsRef<Path>) -> Self {
        let c = path_cstring(dir.as_ref(), "the cache folder");
        self.cache_dir = self.keep(c);
        self
    }

    /// The target id to compile for ("gfx90a", "sm_90"), instead of the device's own.
    pub fn target(mut self, target: &str) -> Self {
        let c = c_string(target, "the target");
        self.target = self.keep(c);
        self
    }

    pub fn platform(mut self, platform: Platform) -> Self {
        self.platform = Some(platform);
        self
    }

    /// The device ordinal (default 0).
    pub fn device(mut self, device: i32) -> Self {
        self.device = device;
        self
    }

    /// Never open the on-disk cache: memory only (`ROCJIT_OPEN_NO_CACHE`).
    pub fn no_cache(self, on: bool) -> Self {
        self.flag(sys::ROCJIT_OPEN_NO_CACHE, on)
    }

    /// A miss is an error (`ErrorKind::NotCached`) instead of a compile.
    pub fn no_compile(self, on: bool) -> Self {
        self.flag(sys::ROCJIT_OPEN_NO_COMPILE, on)
    }

    /// Read the cache, never write it.
    pub fn readonly(self, on: bool) -> Self {
        self.flag(sys::ROCJIT_OPEN_READONLY, on)
    }

    /// Compile in this process instead of in worker processes (see rocjit.h's Caveats).
    pub fn compile_in_process(self, on: bool) -> Self {
        self.flag(sys::ROCJIT_OPEN_COMPILE_INPROCESS, on)
    }

    /// Prebuilt bundles looked in after the user cache (colon-separated paths).
    pub fn bundles(mut self, paths: &str) -> Self {
        let c = c_string(paths, "the bundle paths");
        self.bundles = self.keep(c);
        self
    }

    /// The remote tier's URL (`redis://...`); "" for none.
    pub fn remote(mut self, url: &str) -> Self {
        let c = c_string(url, "the remote URL");
        self.remote = self.keep(c);
        self
    }

    /// A secret key file (rocjit keygen) to sign what this context stores; "" for none.
    pub fn signing_key(mut self, file: impl AsRef<Path>) -> Self {
        let c = path_cstring(file.as_ref(), "the signing key");
        self.signing_key = self.keep(c);
        self
    }

    /// `NAME:BASE64` public keys and/or key files, comma separated; "" for none.
    pub fn trusted_keys(mut self, keys: &str) -> Self {
        let c = c_string(keys, "the trusted keys");
        self.trusted_keys = self.keep(c);
        self
    }

    pub fn require_signed(mut self, which: RequireSigned) -> Self {
        self.require_signed = Some(which);
        self
    }

    /// Opens the context (rocjit_open).  Touches no device.
    pub fn open(self) -> Result<Context> {
        if let Some(e) = self.error {
            return Err(e);
        }
        fn opt(c: &Option<CString>) -> *const c_char {
            c.as_ref().map_or(ptr::null(), |c| c.as_ptr())
        }
        let mut o = sys::rocjit_options::init();
        o.cache_dir = opt(&self.cache_dir);
        o.target = opt(&self.target);
        o.platform = self.platform.unwrap_or(Platform::Auto).to_raw();
        o.device = self.device;
        o.flags = self.flags;
        o.bundles = opt(&self.bundles);
        o.remote = opt(&self.remote);
        o.signing_key = opt(&self.signing_key);
        o.trusted_keys = opt(&self.trusted_keys);
        o.require_signed = match self.require_signed.unwrap_or(RequireSigned::Default) {
            RequireSigned::Default => sys::ROCJIT_REQUIRE_SIGNED_DEFAULT,
            RequireSigned::None => sys::ROCJIT_REQUIRE_SIGNED_NONE,
            RequireSigned::Shared => sys::ROCJIT_REQUIRE_SIGNED_SHARED,
            RequireSigned::All => sys::ROCJIT_REQUIRE_SIGNED_ALL,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: o and the strings it points to live across the call.
        check(unsafe { sys::rocjit_open(&mut raw, &o) })?;
        let raw = NonNull::new(raw).expect("rocjit_open gave no context");
        Ok(Context { raw: Arc::new(Open(raw)) })
    }
}

/// A rocjit context: one device of one platform, one cache, the in-process table of
/// compiled and loaded kernels.  Internally locked (Send + Sync) and a cheap handle:
/// `clone()` gives another handle of the same context (an `Arc` inside), as does every
/// [`Kernel`] it gives.  The context is closed (rocjit_close) when the last handle and
/// the last kernel of it are dropped; a [`Code`] borrows the handle it came from.
#[derive(Clone)]
pub struct Context {
    raw: Arc<Open>,
}

/// The open rocjit_ctx, shared by the context's handles and kernels.
struct Open(NonNull<sys::rocjit_ctx>);

// SAFETY: rocjit contexts are internally locked; every call may come from any thread.
unsafe impl Send for Open {}
unsafe impl Sync for Open {}

impl Drop for Open {
    fn drop(&mut self) {
        // SAFETY: the last handle and kernel are gone: no call of this context is left.
        unsafe { sys::rocjit_close(self.0.as_ptr()) }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("raw", &self.raw.0).finish()
    }
}

/// A compiled code object (an AMDGPU ELF or a CUBIN), owned by its context.
#[derive(Clone, Copy)]
pub struct Code<'ctx> {
    raw: &'ctx sys::rocjit_code,
    _ctx: PhantomData<&'ctx Context>,
}

// SAFETY: immutable, owned by the (Sync) context.
unsafe impl<'ctx> Send for Code<'ctx> {}
unsafe impl<'ctx> Sync for Code<'ctx> {}

impl<'ctx> std::fmt::Debug for Code<'ctx> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code")
            .field("target", &self.target())
            .field("key", &self.key())
            .field("size", &self.data().len())
            .field("from_cache", &self.from_cache())
            .finish()
    }
}

pub(crate) fn chars(a: &[c_char]) -> String {
    let bytes: Vec<u8> = a.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl<'ctx> Code<'ctx> {
    /// The code object's bytes.
    pub fn data(&self) -> &'ctx [u8] {
        if self.raw.data.is_null() {
            return &[];
        }
        // SAFETY: size bytes at data, owned by the context for 'ctx.
        unsafe { std::slice::from_raw_parts(self.raw.data as *const u8, self.raw.size) }
    }

    /// The normalized target id it was compiled for.
    pub fn target(&self) -> String {
        string_from(self.raw.target)
    }

    /// The cache key, 32 lower-case hex digits.
    pub fn key(&self) -> String {
        chars(&self.raw.key)
    }

    /// True when read from the on-disk cache, false when this context compiled it.
    pub fn from_cache(&self) -> bool {
        self.raw.from_cache != 0
    }

    /// Compile time when it was compiled (now or when cached), in milliseconds.
    pub fn compile_ms(&self) -> f64 {
        self.raw.compile_ms
    }

    /// The lowered (mangled) name of one of the program's name expressions.
    pub fn lowered_name(&self, expression: &str) -> Result<String> {
        let e = c_string(expression, "the name expression")?;
        let mut out = ptr::null();
        // SAFETY: valid code object; e lives across the call.
        check(unsafe { sys::rocjit_code_lowered_name(&mut out, self.raw, e.as_ptr()) })?;
        Ok(string_from(out))
    }

    pub fn as_raw(&self) -> *const sys::rocjit_code {
        self.raw
    }
}

fn opt_target(target: Option<&str>) -> Result<Option<CString>> {
    target.map(|t| c_string(t, "the target")).transpose()
}

fn opt_ptr(c: &Option<CString>) -> *const c_char {
    c.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

impl Context {
    /// A context with the defaults (the user cache, device 0, environment variables).
    pub fn open() -> Result<Context> {
        ContextBuilder::default().open()
    }

    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    pub fn as_raw(&self) -> *mut sys::rocjit_ctx {
        self.raw.0.as_ptr()
    }

    /// Whether two handles are of the same open context.
    pub fn same(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.raw, &other.raw)
    }

    /// A launchable kernel: `kernel_name` of `program`, compiled for the context's
    /// device (rocjit_kernel_get).  The kernel holds the context open: it may outlive
    /// this handle, go into a map of a `'static` device type, move between threads.  `kernel_name` is an `extern "C"` symbol, a mangled
    /// name, or one of the program's name expressions as given.
    pub fn kernel(&self, program: &Program, kernel_name: &str) -> Result<Kernel> {
        let name = c_string(kernel_name, "the kernel name")?;
        let mut out = ptr::null_mut();
        let rc = program.with_raw(|p| {
            // SAFETY: p and name live across the call.
            unsafe { sys::rocjit_kernel_get(&mut out, self.as_raw(), p, name.as_ptr()) }
        })?;
        check_request(rc)?;
        Ok(Kernel::from_raw(out, self.clone()))
    }

    /// A kernel of a registered (embedded) source (rocjit_kernel_get_registered_v2).
    pub fn kernel_registered(
        &self,
        source_name: &str,
        kernel_name: &str,
        options: &RegisteredOptions,
    ) -> Result<Kernel> {
        let source = c_string(source_name, "the source name")?;
        let name = c_string(kernel_name, "the kernel name")?;
        let mut out = ptr::null_mut();
        let rc = options.with_raw(|o| {
            // SAFETY: all pointers live across the call.
            unsafe {
                sys::rocjit_kernel_get_registered_v2(
                    &mut out,
                    self.as_raw(),
                    source.as_ptr(),
                    name.as_ptr(),
                    o,
                )
            }
        })?;
        check_request(rc)?;
        Ok(Kernel::from_raw(out, self.clone()))
    }

    /// The code object of `program` for `target` (None: the context's target), from the
    /// cache or compiled and stored (rocjit_compile).  Needs no device when a target is
    /// given: the prewarm path.
    pub fn compile(&self, target: Option<&str>, program: &Program) -> Result<Code<'_>> {
        let t = opt_target(target)?;
        let mut out: *const sys::rocjit_code = ptr::null();
        let rc = program.with_raw(|p| {
            // SAFETY: all pointers live across the call.
            unsafe { sys::rocjit_compile(&mut out, self.as_raw(), opt_ptr(&t), p) }
        })?;
        check_request(rc)?;
        self.code(out)
    }

    /// As [`Context::compile`], for a registered source (rocjit_compile_registered_v2).
    pub fn compile_registered(
        &self,
        target: Option<&str>,
        source_name: &str,
        options: &RegisteredOptions,
    ) -> Result<Code<'_>> {
        let t = opt_target(target)?;
        let source = c_string(source_name, "the source name")?;
        let mut out: *const sys::rocjit_code = ptr::null();
        let rc = options.with_raw(|o| {
            // SAFETY: all pointers live across the call.
            unsafe {
                sys::rocjit_compile_registered_v2(
                    &mut out,
                    self.as_raw(),
                    opt_ptr(&t),
                    source.as_ptr(),
                    o,
                )
            }
        })?;
        check_request(rc)?;
        self.code(out)
    }

    fn code(&self, out: *const sys::rocjit_code) -> Result<Code<'_>> {
        // SAFETY: on success rocjit gives a code object owned by the context.
        match unsafe { out.as_ref() } {
            Some(raw) => Ok(Code { raw, _ctx: PhantomData }),
            None => Err(Error::new(sys::ROCJIT_EINVAL, "rocjit gave no code object")),
        }
    }

    /// This context's statistics (rocjit_stats_get).
    pub fn stats(&self) -> Result<Stats> {
        let mut s = Box::new(sys::rocjit_stats::init());
        // SAFETY: s is a rocjit_stats of the version set.
        check(unsafe { sys::rocjit_stats_get(&mut *s, self.as_raw()) })?;
        Ok(Stats::from_raw(&s))
    }
}

pub(crate) fn keys_cstrings(keys: &[&str]) -> Result<Vec<CString>> {
    keys.iter().map(|k| c_string(k, "a key")).collect()
}

pub(crate) fn keys_ptrs(keys: &[CString]) -> Vec<*const c_char> {
    ptrs(keys)
}

/// State of the remote tier (`rocjit_stats.remote_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteState {
    None,
    Up,
    /// Not asked now, after a failure (see `remote_off_reason`).
    Off,
    Other(i32),
}

/// A context's statistics (`rocjit_stats`, version 8): see rocjit.h for each field.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub memory_hits: u64,
    pub disk_hits: u64,
    pub misses: u64,
    pub compiles: u64,
    pub compile_errors: u64,
    pub cache_errors: u64,
    pub compile_ms: f64,
    pub entries: u64,
    pub bytes: u64,
    pub cache_open: bool,
    pub cache_path: String,
    pub max_bytes: u64,
    pub stores: u64,
    pub store_failures: u64,
    pub cache_readonly: bool,
    pub store_error: String,
    pub empty_objects: u64,
    pub worker_compiles: u64,
    pub worker_overhead_ms: f64,
    pub workers_started: u64,
    pub workers_lost: u64,
    pub workers_running: i32,
    pub workers_max: i32,
    pub index_hits: u64,
    pub remote_state: RemoteState,
    pub remote_url: String,
    pub remote_off_reason: String,
    pub remote_hits: u64,
    pub remote_misses: u64,
    pub remote_errors: u64,
    pub remote_rejected: u64,
    pub remote_puts: u64,
    pub remote_put_errors: u64,
    pub remote_waits: u64,
    pub remote_bytes_read: u64,
    pub remote_bytes_written: u64,
    pub remote_saved_ms: f64,
    pub remote_ms: f64,
    pub require_signed: i32,
    pub trusted_keys: i32,
    pub signing_key: String,
    pub signatures_checked: u64,
    pub signature_rejects: u64,
    pub signed_stores: u64,
}

impl Stats {
    fn from_raw(s: &sys::rocjit_stats) -> Stats {
        Stats {
            memory_hits: s.memory_hits,
            disk_hits: s.disk_hits,
            misses: s.misses,
            compiles: s.compiles,
            compile_errors: s.compile_errors,
            cache_errors: s.cache_errors,
            compile_ms: s.compile_ms,
            entries: s.entries,
            bytes: s.bytes,
            cache_open: s.cache_open != 0,
            cache_path: chars(&s.cache_path),
            max_bytes: s.max_bytes,
            stores: s.stores,
            store_failures: s.store_failures,
            cache_readonly: s.cache_readonly != 0,
            store_error: chars(&s.store_error),
            empty_objects: s.empty_objects,
            worker_compiles: s.worker_compiles,
            worker_overhead_ms: s.worker_overhead_ms,
            workers_started: s.workers_started,
            workers_lost: s.workers_lost,
            workers_running: s.workers_running,
            workers_max: s.workers_max,
            index_hits: s.index_hits,
            remote_state: match s.remote_state {
                sys::ROCJIT_REMOTE_NONE => RemoteState::None,
                sys::ROCJIT_REMOTE_UP => RemoteState::Up,
                sys::ROCJIT_REMOTE_OFF => RemoteState::Off,
                other => RemoteState::Other(other),
            },
            remote_url: chars(&s.remote_url),
            remote_off_reason: chars(&s.remote_off_reason),
            remote_hits: s.remote_hits,
            remote_misses: s.remote_misses,
            remote_errors: s.remote_errors,
            remote_rejected: s.remote_rejected,
            remote_puts: s.remote_puts,
            remote_put_errors: s.remote_put_errors,
            remote_waits: s.remote_waits,
            remote_bytes_read: s.remote_bytes_read,
            remote_bytes_written: s.remote_bytes_written,
            remote_saved_ms: s.remote_saved_ms,
            remote_ms: s.remote_ms,
            require_signed: s.require_signed,
            trusted_keys: s.trusted_keys,
            signing_key: chars(&s.signing_key),
            signatures_checked: s.signatures_checked,
            signature_rejects: s.signature_rejects,
            signed_stores: s.signed_stores,
        }
    }
}

//! Raw declarations of rocjit's C API, written by hand from `include/rocjit.h`.
//!
//! `include/rocjit.h` is the specification: every function's parameters, return codes,
//! ownership rules and threading contract are documented there, and these declarations
//! follow it name for name.  The structs are `#[repr(C)]` copies of the header's; the
//! test `tests/layout.rs` compares every struct's size and every field's offset with what
//! the C compiler says of the header this crate was built against (build.rs), every
//! `#define` constant's value with the one here, and checks that every `ROCJIT_API`
//! function of the header is declared here.
//!
//! Linking: build.rs finds `librocjit` from `ROCJIT_LIB_DIR` / `ROCJIT_INCLUDE_DIR`, else
//! `pkg-config rocjit`, else the repository's `build/` folder (in-tree development).
//!
//! Deprecated C spellings that the header keeps for source compatibility are declared
//! too (marked so in their comments); new code uses the names they point to.
#![allow(non_camel_case_types)]
#![allow(clippy::upper_case_acronyms)]

use std::os::raw::{c_char, c_double, c_int, c_uint, c_void};

/// The header this crate was built against (a path on the build machine), for the
/// layout test.
pub const HEADER_PATH: &str = env!("ROCJIT_SYS_HEADER");

// ---- Version ---------------------------------------------------------------------------

pub const ROCJIT_VERSION_MAJOR: c_int = 0;
pub const ROCJIT_VERSION_MINOR: c_int = 1;
pub const ROCJIT_VERSION_PATCH: c_int = 0;
pub const ROCJIT_VERSION_STRING: &str = "0.1.0";
pub const ROCJIT_VERSION_NUMBER: c_int =
    ROCJIT_VERSION_MAJOR * 10000 + ROCJIT_VERSION_MINOR * 100 + ROCJIT_VERSION_PATCH;

// ---- Errors (values pinned) ------------------------------------------------------------

pub const ROCJIT_OK: c_int = 0;
pub const ROCJIT_EINVAL: c_int = -1;
pub const ROCJIT_ENOMEM: c_int = -2;
pub const ROCJIT_ENOTFOUND: c_int = -3;
pub const ROCJIT_ECOMPILE: c_int = -4;
pub const ROCJIT_EUNSUPPORTED: c_int = -5;
pub const ROCJIT_ENODEV: c_int = -6;
pub const ROCJIT_ENOCOMPILER: c_int = -7;
pub const ROCJIT_EDEVICE: c_int = -8;
pub const ROCJIT_EIO: c_int = -9;
pub const ROCJIT_EFORMAT: c_int = -10;
pub const ROCJIT_ENOTCACHED: c_int = -11;

// ---- Log hook --------------------------------------------------------------------------

pub const ROCJIT_LOG_ERROR: c_int = 1;
pub const ROCJIT_LOG_WARN: c_int = 2;
pub const ROCJIT_LOG_INFO: c_int = 3;
pub const ROCJIT_LOG_DEBUG: c_int = 4;

/// `void (*)(void *user, int level, const char *message)`; may be called from any
/// thread, concurrently; must not call rocjit.
pub type rocjit_log_fn =
    Option<unsafe extern "C" fn(user: *mut c_void, level: c_int, message: *const c_char)>;

// ---- Settings --------------------------------------------------------------------------

pub const ROCJIT_CONFIG_USER: c_int = 0;
pub const ROCJIT_CONFIG_SYSTEM: c_int = 1;

/// One setting of the library's table (rocjit_setting_at): immutable, valid for the
/// process's lifetime.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_setting {
    pub name: *const c_char,
    pub env: *const c_char,
    pub kind: *const c_char,
    pub default_value: *const c_char,
    pub description: *const c_char,
}

// ---- Platforms -------------------------------------------------------------------------

pub const ROCJIT_PLATFORM_AUTO: c_int = 0;
pub const ROCJIT_PLATFORM_AMD: c_int = 1;
pub const ROCJIT_PLATFORM_NVIDIA: c_int = 2;

// ---- Context ---------------------------------------------------------------------------

/// Opaque; internally locked.
#[repr(C)]
pub struct rocjit_ctx {
    _private: [u8; 0],
}

pub const ROCJIT_OPEN_NO_CACHE: c_uint = 0x1;
pub const ROCJIT_OPEN_NO_COMPILE: c_uint = 0x2;
pub const ROCJIT_OPEN_READONLY: c_uint = 0x4;
pub const ROCJIT_OPEN_COMPILE_INPROCESS: c_uint = 0x8;

pub const ROCJIT_OPTIONS_VERSION: c_uint = 4;

pub const ROCJIT_REQUIRE_SIGNED_DEFAULT: c_int = 0;
pub const ROCJIT_REQUIRE_SIGNED_NONE: c_int = 1;
pub const ROCJIT_REQUIRE_SIGNED_SHARED: c_int = 2;
pub const ROCJIT_REQUIRE_SIGNED_ALL: c_int = 3;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_options {
    pub version: c_uint,
    pub cache_dir: *const c_char,
    pub target: *const c_char,
    pub platform: c_int,
    pub device: c_int,
    pub flags: c_uint,
    /* version 2 */
    pub bundles: *const c_char,
    /* version 3 */
    pub remote: *const c_char,
    /* version 4 */
    pub signing_key: *const c_char,
    pub trusted_keys: *const c_char,
    pub require_signed: c_int,
}

// ---- Programs --------------------------------------------------------------------------

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_header {
    pub name: *const c_char,
    pub source: *const c_char,
    pub length: usize,
}

pub const ROCJIT_LANG_AUTO: c_int = 0;
pub const ROCJIT_LANG_HIP: c_int = 1;
pub const ROCJIT_LANG_CUDA: c_int = 2;

pub const ROCJIT_PROGRAM_VERSION: c_uint = 3;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_program {
    pub version: c_uint,
    pub source: *const c_char,
    pub length: usize,
    pub name: *const c_char,
    pub options: *const *const c_char,
    pub num_options: usize,
    pub headers: *const rocjit_header,
    pub num_headers: usize,
    /// Deprecated: never written by any call (the compiler log is `rocjit_last_log`).
    pub log: *mut c_char,
    /// Deprecated: ignored.
    pub log_size: usize,
    /* version 2 */
    pub language: c_int,
    pub name_expressions: *const *const c_char,
    pub num_name_expressions: usize,
    /* version 3 */
    /// `sizeof(rocjit_header)` as the caller knows it (0: the version 2 size).
    pub header_size: usize,
}

// ---- Kernels ---------------------------------------------------------------------------

/// Opaque; immutable and shareable, owned by its context.
#[repr(C)]
pub struct rocjit_kernel {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rocjit_dim3 {
    pub x: c_uint,
    pub y: c_uint,
    pub z: c_uint,
}

// ---- What a launch needs beyond grid and block -----------------------------------------

pub const ROCJIT_KERNEL_NATIVE_VERSION: c_uint = 1;

/// The driver's own handles of a kernel, owned by the context (valid until rocjit_close;
/// never unloaded by the caller).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_kernel_native {
    pub version: c_uint,
    /// `ROCJIT_PLATFORM_AMD` or `ROCJIT_PLATFORM_NVIDIA`: what the two handles are.
    pub platform: c_int,
    pub device: c_int,
    /// AMD: `hipFunction_t`.  NVIDIA: `CUfunction`.
    pub function: *mut c_void,
    /// AMD: `hipModule_t`.  NVIDIA: `CUmodule`, in the device's primary context.
    pub module: *mut c_void,
}

pub const ROCJIT_ATTR_MAX_THREADS_PER_BLOCK: c_int = 0;
pub const ROCJIT_ATTR_SHARED_BYTES: c_int = 1;
pub const ROCJIT_ATTR_CONST_BYTES: c_int = 2;
pub const ROCJIT_ATTR_LOCAL_BYTES: c_int = 3;
pub const ROCJIT_ATTR_NUM_REGS: c_int = 4;
pub const ROCJIT_ATTR_PTX_VERSION: c_int = 5;
pub const ROCJIT_ATTR_BINARY_VERSION: c_int = 6;
pub const ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES: c_int = 8;
pub const ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT: c_int = 9;

// ---- What a kernel uses, from its code object ------------------------------------------

pub const ROCJIT_KERNEL_RESOURCES_VERSION: c_uint = 1;

/// A kernel's resource use as its code object records it (see the header for each field).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rocjit_kernel_resources {
    pub version: c_uint,
    pub platform: c_int,
    pub registers: c_uint,
    pub agprs: c_uint,
    pub sgprs: c_uint,
    pub vgpr_spills: c_uint,
    pub sgpr_spills: c_uint,
    pub scratch_bytes: u64,
    pub dynamic_stack: c_int,
    pub shared_bytes: u64,
    pub param_bytes: u64,
    pub max_threads: c_uint,
    pub wavefront: c_uint,
}

// ---- Code objects ----------------------------------------------------------------------

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_code {
    pub data: *const c_void,
    pub size: usize,
    pub target: *const c_char,
    pub key: [c_char; 33],
    pub from_cache: c_int,
    pub compile_ms: c_double,
}

pub const ROCJIT_REGISTERED_OPTIONS_VERSION: c_uint = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_registered_options {
    pub version: c_uint,
    pub options: *const *const c_char,
    pub num_options: usize,
    pub name_expressions: *const *const c_char,
    pub num_name_expressions: usize,
}

// ---- Statistics ------------------------------------------------------------------------

pub const ROCJIT_STATS_VERSION: c_uint = 8;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rocjit_stats {
    pub version: c_uint,
    pub memory_hits: u64,
    pub disk_hits: u64,
    pub misses: u64,
    pub compiles: u64,
    pub compile_errors: u64,
    pub cache_errors: u64,
    pub compile_ms: c_double,
    pub entries: u64,
    pub bytes: u64,
    pub cache_open: c_int,
    pub cache_path: [c_char; 4096],
    /* version 2 */
    pub max_bytes: u64,
    /* version 3 */
    pub stores: u64,
    pub store_failures: u64,
    pub cache_readonly: c_int,
    pub store_error: [c_char; 1024],
    /* version 4 */
    pub empty_objects: u64,
    /* version 5 */
    pub worker_compiles: u64,
    pub worker_overhead_ms: c_double,
    pub workers_started: u64,
    pub workers_lost: u64,
    pub workers_running: c_int,
    pub workers_max: c_int,
    /* version 6 */
    pub index_hits: u64,
    /* version 7 */
    pub remote_state: c_int,
    pub remote_url: [c_char; 512],
    pub remote_off_reason: [c_char; 512],
    pub remote_hits: u64,
    pub remote_misses: u64,
    pub remote_errors: u64,
    pub remote_rejected: u64,
    pub remote_puts: u64,
    pub remote_put_errors: u64,
    pub remote_waits: u64,
    pub remote_bytes_read: u64,
    pub remote_bytes_written: u64,
    pub remote_saved_ms: c_double,
    pub remote_ms: c_double,
    /* version 8 */
    pub require_signed: c_int,
    pub trusted_keys: c_int,
    pub signing_key: [c_char; 65],
    pub signatures_checked: u64,
    pub signature_rejects: u64,
    pub signed_stores: u64,
}

pub const ROCJIT_REMOTE_NONE: c_int = 0;
pub const ROCJIT_REMOTE_UP: c_int = 1;
pub const ROCJIT_REMOTE_OFF: c_int = 2;

// ---- Prefetch --------------------------------------------------------------------------

/// Opaque.
#[repr(C)]
pub struct rocjit_prefetch {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_prefetch_item {
    pub program: *const rocjit_program,
    pub registered: *const c_char,
    pub registered_options: *const rocjit_registered_options,
    pub target: *const c_char,
}

pub const ROCJIT_PREFETCH_STATUS_VERSION: c_uint = 1;

/// `version` must be set before `rocjit_prefetch_status_get` (`init()`, or
/// `rocjit_prefetch_status_init`): a `Default` (version 0) status is refused.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct rocjit_prefetch_status {
    pub version: c_uint,
    pub total: usize,
    pub done: usize,
    pub failed: usize,
    pub compiled: usize,
    pub finished: c_int,
}

pub const ROCJIT_PREFETCH_OPTIONS_VERSION: c_uint = 2;

pub type rocjit_prefetch_progress_fn = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        status: *const rocjit_prefetch_status,
        index: usize,
        rc: c_int,
        message: *const c_char,
    ),
>;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_prefetch_options {
    pub version: c_uint,
    pub threads: c_uint,
    pub progress: rocjit_prefetch_progress_fn,
    pub user: *mut c_void,
    // version 2
    /// `size_of::<rocjit_prefetch_item>()`: the stride the items are read with.
    pub item_size: usize,
}

// ---- Cache administration --------------------------------------------------------------

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_entry {
    pub key: [c_char; 33],
    pub platform: *const c_char,
    pub target: *const c_char,
    pub compiler: *const c_char,
    pub options: *const c_char,
    pub source_name: *const c_char,
    pub headers: *const c_char,
    pub kernels: *const c_char,
    pub size: u64,
    pub created: i64,
    pub last_used: i64,
    pub hits: u64,
    pub compile_ms: c_double,
    pub name_expressions: *const c_char,
    pub pkey: [c_char; 33],
    pub signer: [c_char; 65],
    pub signature: c_int,
}

pub const ROCJIT_SIGNATURE_NONE: c_int = 0;
pub const ROCJIT_SIGNATURE_UNCHECKED: c_int = 1;
pub const ROCJIT_SIGNATURE_TRUSTED: c_int = 2;
pub const ROCJIT_SIGNATURE_UNTRUSTED: c_int = 3;
pub const ROCJIT_SIGNATURE_BAD: c_int = 4;

/// Returns 0 to go on; anything else stops the walk and is returned.
pub type rocjit_entry_fn =
    Option<unsafe extern "C" fn(entry: *const rocjit_entry, user: *mut c_void) -> c_int>;

/// rocjit_cache_find's callback: the entry and its code (NULL, 0 when the checksum fails).
pub type rocjit_find_fn = Option<
    unsafe extern "C" fn(
        entry: *const rocjit_entry,
        code: *const c_void,
        size: usize,
        user: *mut c_void,
    ) -> c_int,
>;

/// rocjit_cache_verify's and rocjit_cache_verify_each's callback.
pub type rocjit_verify_fn = Option<
    unsafe extern "C" fn(
        entry: *const rocjit_entry,
        reason: c_int,
        message: *const c_char,
        user: *mut c_void,
    ),
>;

pub const ROCJIT_VERIFY_CHECKSUM: c_int = 1;
pub const ROCJIT_VERIFY_OBJECT: c_int = 2;
pub const ROCJIT_VERIFY_SIGNATURE: c_int = 3;
/// Deprecated: ROCJIT_VERIFY_CHECKSUM.
pub const ROCJIT_BAD_CHECKSUM: c_int = ROCJIT_VERIFY_CHECKSUM;
/// Deprecated: ROCJIT_VERIFY_OBJECT.
pub const ROCJIT_BAD_OBJECT: c_int = ROCJIT_VERIFY_OBJECT;
/// Deprecated: ROCJIT_VERIFY_SIGNATURE.
pub const ROCJIT_BAD_SIGNATURE: c_int = ROCJIT_VERIFY_SIGNATURE;

pub const ROCJIT_COUNTERS_VERSION: c_uint = 2;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct rocjit_counters {
    pub version: c_uint,
    pub disk_hits: u64,
    pub misses: u64,
    pub compiles: u64,
    pub compile_ms: c_double,
    pub saved_ms: c_double,
    pub since: i64,
    // version 2: failures, counted by every process where they happen
    pub compile_errors: u64,
    pub evictions: u64,
    pub signature_rejects: u64,
    pub remote_errors: u64,
}

/// Called for each entry an import (or push) refused: its key and why.
pub type rocjit_reject_fn =
    Option<unsafe extern "C" fn(key: *const c_char, reason: *const c_char, user: *mut c_void)>;

// ---- Remote tier -----------------------------------------------------------------------

pub const ROCJIT_REMOTE_COUNTERS_VERSION: c_uint = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct rocjit_remote_counters {
    pub version: c_uint,
    pub hits: u64,
    pub misses: u64,
    pub errors: u64,
    pub rejected: u64,
    pub puts: u64,
    pub put_errors: u64,
    pub waits: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub saved_ms: c_double,
    pub remote_ms: c_double,
}

pub const ROCJIT_REMOTE_INFO_VERSION: c_uint = 1;
pub const ROCJIT_REMOTE_INFO_KEYS: c_uint = 0x1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct rocjit_remote_info {
    pub version: c_uint,
    pub url: [c_char; 512],
    pub cluster: c_int,
    pub readonly: c_int,
    pub servers: c_int,
    pub latency_ms: c_double,
    pub server_version: [c_char; 32],
    pub maxmemory_policy: [c_char; 32],
    pub used_memory: u64,
    pub maxmemory: u64,
    pub keys_counted: c_int,
    pub entries: u64,
    pub bytes: u64,
    pub locks: u64,
}

// ---- Code-object inspection ------------------------------------------------------------

pub const ROCJIT_MAX_TARGET: usize = 64;

#[repr(C)]
#[derive(Debug)]
pub struct rocjit_codeobj_info {
    pub platform: c_int,
    pub target: [c_char; ROCJIT_MAX_TARGET],
    pub flags_target: [c_char; ROCJIT_MAX_TARGET],
    pub num_kernels: usize,
    pub kernels: *mut *mut c_char,
}

// ---- Registered sources ----------------------------------------------------------------

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rocjit_source_file {
    pub name: *const c_char,
    pub text: *const c_char,
    pub length: usize,
}

// librocjit is linked by build.rs (cargo:rustc-link-lib=dylib=rocjit).
extern "C" {
    // Version and errors
    pub fn rocjit_version() -> c_int;
    pub fn rocjit_strerror(code: c_int) -> *const c_char;
    pub fn rocjit_last_error() -> *const c_char;
    pub fn rocjit_last_log() -> *const c_char;
    pub fn rocjit_set_log_callback(func: rocjit_log_fn, user: *mut c_void);

    // Values rocjit reads from people
    pub fn rocjit_env_flag(name: *const c_char) -> c_int;
    pub fn rocjit_parse_size(bytes: *mut u64, text: *const c_char) -> c_int;
    pub fn rocjit_setting_at(index: usize) -> *const rocjit_setting;
    pub fn rocjit_setting_find(name: *const c_char) -> *const rocjit_setting;
    /// The effective value (environment, user file, system file), or NULL: the default.
    pub fn rocjit_config_get(name: *const c_char, source: *mut *const c_char) -> *const c_char;
    pub fn rocjit_config_check(name: *const c_char, value: *const c_char) -> c_int;
    pub fn rocjit_config_file(out: *mut c_char, size: usize, which: c_int) -> c_int;
    pub fn rocjit_config_write(name: *const c_char, value: *const c_char) -> c_int;

    // Platforms and targets
    pub fn rocjit_platform_name(platform: c_int) -> *const c_char;
    pub fn rocjit_target_normalize(
        out: *mut c_char,
        out_size: usize,
        target: *const c_char,
    ) -> c_int;
    pub fn rocjit_target_platform(target: *const c_char) -> c_int;

    // Initialisers
    pub fn rocjit_options_init(o: *mut rocjit_options, version: c_uint) -> c_int;
    pub fn rocjit_program_init(p: *mut rocjit_program, version: c_uint) -> c_int;
    pub fn rocjit_registered_options_init(
        o: *mut rocjit_registered_options,
        version: c_uint,
    ) -> c_int;
    pub fn rocjit_stats_init(s: *mut rocjit_stats, version: c_uint) -> c_int;
    pub fn rocjit_counters_init(c: *mut rocjit_counters, version: c_uint) -> c_int;
    pub fn rocjit_remote_counters_init(c: *mut rocjit_remote_counters, version: c_uint) -> c_int;
    pub fn rocjit_remote_info_init(i: *mut rocjit_remote_info, version: c_uint) -> c_int;
    pub fn rocjit_prefetch_options_init(
        opts: *mut rocjit_prefetch_options,
        version: c_uint,
    ) -> c_int;
    pub fn rocjit_prefetch_status_init(s: *mut rocjit_prefetch_status, version: c_uint) -> c_int;

    // Context
    pub fn rocjit_open(out: *mut *mut rocjit_ctx, opts: *const rocjit_options) -> c_int;
    pub fn rocjit_cache_dir(out: *mut c_char, out_size: usize, dir: *const c_char) -> c_int;
    pub fn rocjit_close(ctx: *mut rocjit_ctx);

    // Programs and kernels
    pub fn rocjit_program_language(language: c_int, name: *const c_char) -> c_int;
    pub fn rocjit_kernel_get(
        out: *mut *mut rocjit_kernel,
        ctx: *mut rocjit_ctx,
        prog: *const rocjit_program,
        kernel_name: *const c_char,
    ) -> c_int;
    pub fn rocjit_kernel_get_registered(
        out: *mut *mut rocjit_kernel,
        ctx: *mut rocjit_ctx,
        source_name: *const c_char,
        kernel_name: *const c_char,
        options: *const *const c_char,
        num_options: usize,
    ) -> c_int;
    pub fn rocjit_kernel_name(kernel: *const rocjit_kernel) -> *const c_char;
    pub fn rocjit_kernel_launch(
        kernel: *const rocjit_kernel,
        grid: rocjit_dim3,
        block: rocjit_dim3,
        shared_bytes: c_uint,
        stream: *mut c_void,
        args: *mut *mut c_void,
    ) -> c_int;

    // What a launch needs beyond grid and block
    pub fn rocjit_kernel_native_init(n: *mut rocjit_kernel_native, version: c_uint) -> c_int;
    pub fn rocjit_kernel_native_get(
        out: *mut rocjit_kernel_native,
        kernel: *const rocjit_kernel,
    ) -> c_int;
    pub fn rocjit_kernel_attribute_get(
        value: *mut c_int,
        kernel: *const rocjit_kernel,
        attribute: c_int,
    ) -> c_int;
    pub fn rocjit_kernel_attribute_set(
        kernel: *const rocjit_kernel,
        attribute: c_int,
        value: c_int,
    ) -> c_int;
    pub fn rocjit_kernel_occupancy_get(
        blocks_per_multiprocessor: *mut c_int,
        kernel: *const rocjit_kernel,
        block_threads: c_uint,
        dynamic_shared_bytes: usize,
    ) -> c_int;
    pub fn rocjit_kernel_block_size_get(
        block_threads: *mut c_int,
        min_grid_blocks: *mut c_int,
        kernel: *const rocjit_kernel,
        dynamic_shared_bytes: usize,
        block_threads_limit: c_uint,
    ) -> c_int;
    pub fn rocjit_kernel_launch_cooperative(
        kernel: *const rocjit_kernel,
        grid: rocjit_dim3,
        block: rocjit_dim3,
        shared_bytes: c_uint,
        stream: *mut c_void,
        args: *mut *mut c_void,
    ) -> c_int;
    pub fn rocjit_global_get(
        address: *mut *mut c_void,
        size: *mut usize,
        kernel: *const rocjit_kernel,
        name: *const c_char,
    ) -> c_int;
    pub fn rocjit_global_write(
        kernel: *const rocjit_kernel,
        name: *const c_char,
        offset: usize,
        src: *const c_void,
        bytes: usize,
        stream: *mut c_void,
    ) -> c_int;
    pub fn rocjit_global_read(
        dst: *mut c_void,
        kernel: *const rocjit_kernel,
        name: *const c_char,
        offset: usize,
        bytes: usize,
        stream: *mut c_void,
    ) -> c_int;

    // What a kernel uses, from its code object
    pub fn rocjit_kernel_resources_init(r: *mut rocjit_kernel_resources, version: c_uint) -> c_int;
    pub fn rocjit_codeobj_resources_get(
        out: *mut rocjit_kernel_resources,
        data: *const c_void,
        size: usize,
        kernel: *const c_char,
    ) -> c_int;
    pub fn rocjit_kernel_resources_get(
        out: *mut rocjit_kernel_resources,
        kernel: *const rocjit_kernel,
    ) -> c_int;

    // Code objects without a device
    pub fn rocjit_compile(
        out: *mut *const rocjit_code,
        ctx: *mut rocjit_ctx,
        target: *const c_char,
        prog: *const rocjit_program,
    ) -> c_int;
    pub fn rocjit_code_lowered_name(
        out: *mut *const c_char,
        code: *const rocjit_code,
        expression: *const c_char,
    ) -> c_int;
    pub fn rocjit_compile_registered(
        out: *mut *const rocjit_code,
        ctx: *mut rocjit_ctx,
        target: *const c_char,
        source_name: *const c_char,
        options: *const *const c_char,
        num_options: usize,
    ) -> c_int;
    pub fn rocjit_kernel_get_registered_v2(
        out: *mut *mut rocjit_kernel,
        ctx: *mut rocjit_ctx,
        source_name: *const c_char,
        kernel_name: *const c_char,
        opts: *const rocjit_registered_options,
    ) -> c_int;
    pub fn rocjit_compile_registered_v2(
        out: *mut *const rocjit_code,
        ctx: *mut rocjit_ctx,
        target: *const c_char,
        source_name: *const c_char,
        opts: *const rocjit_registered_options,
    ) -> c_int;

    // Statistics
    pub fn rocjit_stats_get(out: *mut rocjit_stats, ctx: *mut rocjit_ctx) -> c_int;

    // Prefetch
    pub fn rocjit_prefetch_start(
        out: *mut *mut rocjit_prefetch,
        ctx: *mut rocjit_ctx,
        items: *const rocjit_prefetch_item,
        n: usize,
        opts: *const rocjit_prefetch_options,
    ) -> c_int;
    pub fn rocjit_prefetch_status_get(
        out: *mut rocjit_prefetch_status,
        pf: *const rocjit_prefetch,
    ) -> c_int;
    pub fn rocjit_prefetch_wait(pf: *mut rocjit_prefetch, timeout_s: c_double) -> c_int;
    pub fn rocjit_prefetch_free(pf: *mut rocjit_prefetch);

    // Cache administration
    pub fn rocjit_cache_foreach(
        ctx: *mut rocjit_ctx,
        func: rocjit_entry_fn,
        user: *mut c_void,
    ) -> c_int;
    pub fn rocjit_cache_find(
        ctx: *mut rocjit_ctx,
        key_prefix: *const c_char,
        func: rocjit_find_fn,
        user: *mut c_void,
    ) -> c_int;
    pub fn rocjit_cache_remove(
        ctx: *mut rocjit_ctx,
        keys: *const *const c_char,
        n: usize,
        removed: *mut usize,
    ) -> c_int;
    pub fn rocjit_cache_compact(ctx: *mut rocjit_ctx) -> c_int;
    pub fn rocjit_cache_verify(
        ctx: *mut rocjit_ctx,
        fix: c_int,
        bad: rocjit_verify_fn,
        user: *mut c_void,
        checked: *mut u64,
        bad_count: *mut u64,
    ) -> c_int;
    pub fn rocjit_cache_verify_each(
        ctx: *mut rocjit_ctx,
        fix: c_int,
        each: rocjit_verify_fn,
        user: *mut c_void,
        checked: *mut u64,
        bad_count: *mut u64,
    ) -> c_int;
    pub fn rocjit_counters_get(out: *mut rocjit_counters, ctx: *mut rocjit_ctx) -> c_int;
    /// Deprecated: rocjit_counters_get.
    pub fn rocjit_cache_counters(ctx: *mut rocjit_ctx, out: *mut rocjit_counters) -> c_int;
    pub fn rocjit_cache_zero(ctx: *mut rocjit_ctx) -> c_int;
    /// Stores the size limit every process using the cache enforces ("5G"; "0": none).
    pub fn rocjit_cache_maxsize_set(ctx: *mut rocjit_ctx, size: *const c_char) -> c_int;
    pub fn rocjit_cache_maxsize_get(
        bytes: *mut u64,
        source: *mut *const c_char,
        stored: *mut *const c_char,
        ctx: *mut rocjit_ctx,
    ) -> c_int;

    // Bundles
    pub fn rocjit_bundle_export(
        ctx: *mut rocjit_ctx,
        path: *const c_char,
        keys: *const *const c_char,
        n: usize,
        count: *mut usize,
    ) -> c_int;
    pub fn rocjit_bundle_import_v2(
        ctx: *mut rocjit_ctx,
        path: *const c_char,
        copied: *mut usize,
        rejected: *mut usize,
        on_reject: rocjit_reject_fn,
        user: *mut c_void,
    ) -> c_int;
    pub fn rocjit_bundle_import(
        ctx: *mut rocjit_ctx,
        path: *const c_char,
        count: *mut usize,
    ) -> c_int;

    // Signed code
    pub fn rocjit_keygen(
        name: *const c_char,
        dir: *const c_char,
        public_line: *mut c_char,
        size: usize,
    ) -> c_int;
    pub fn rocjit_cache_sign(
        ctx: *mut rocjit_ctx,
        keys: *const *const c_char,
        n: usize,
        count: *mut usize,
    ) -> c_int;
    pub fn rocjit_bundle_sign(
        ctx: *mut rocjit_ctx,
        path: *const c_char,
        keys: *const *const c_char,
        n: usize,
        count: *mut usize,
    ) -> c_int;

    // Remote tier
    pub fn rocjit_remote_counters_get(
        out: *mut rocjit_remote_counters,
        ctx: *mut rocjit_ctx,
    ) -> c_int;
    pub fn rocjit_remote_info_get(
        out: *mut rocjit_remote_info,
        ctx: *mut rocjit_ctx,
        what: c_uint,
    ) -> c_int;
    pub fn rocjit_remote_push(
        ctx: *mut rocjit_ctx,
        keys: *const *const c_char,
        n: usize,
        pushed: *mut usize,
        present: *mut usize,
        failed: *mut usize,
        on_fail: rocjit_reject_fn,
        user: *mut c_void,
    ) -> c_int;

    // Compilers and devices
    pub fn rocjit_compiler_identity(out: *mut *const c_char, platform: c_int) -> c_int;
    pub fn rocjit_compiler_targets_get(buf: *mut c_char, size: usize, platform: c_int) -> c_int;
    /// Where the compiler libraries were loaded from: "NAME\tFILE\tRULE\n" lines, then
    /// "note\t\tTEXT\n" lines for places passed over.
    pub fn rocjit_compiler_libraries_get(buf: *mut c_char, size: usize, platform: c_int) -> c_int;
    pub fn rocjit_device_count_get(count: *mut c_int, platform: c_int) -> c_int;
    pub fn rocjit_device_target_get(
        buf: *mut c_char,
        size: usize,
        platform: c_int,
        device: c_int,
    ) -> c_int;
    /// Deprecated: rocjit_compiler_targets_get.
    pub fn rocjit_compiler_targets(platform: c_int, buf: *mut c_char, size: usize) -> c_int;
    /// Deprecated: rocjit_device_count_get.
    pub fn rocjit_device_count(platform: c_int, count: *mut c_int) -> c_int;
    /// Deprecated: rocjit_device_target_get.
    pub fn rocjit_device_target(
        platform: c_int,
        device: c_int,
        buf: *mut c_char,
        size: usize,
    ) -> c_int;

    // Code-object inspection
    pub fn rocjit_codeobj_inspect(
        out: *mut *mut rocjit_codeobj_info,
        data: *const c_void,
        size: usize,
    ) -> c_int;
    pub fn rocjit_codeobj_info_free(info: *mut rocjit_codeobj_info);
    /// Deprecated: rocjit_codeobj_info_free.
    pub fn rocjit_codeobj_free(info: *mut rocjit_codeobj_info);

    // Registered (embedded) sources
    pub fn rocjit_register_sources(files: *const rocjit_source_file, count: usize) -> c_int;
    pub fn rocjit_register_headers(files: *const rocjit_source_file, count: usize) -> c_int;
    pub fn rocjit_register_sources_v2(
        files: *const rocjit_source_file,
        count: usize,
        elem_size: usize,
    ) -> c_int;
    pub fn rocjit_register_headers_v2(
        files: *const rocjit_source_file,
        count: usize,
        elem_size: usize,
    ) -> c_int;
    pub fn rocjit_registered_is_header(name: *const c_char) -> c_int;
    pub fn rocjit_registered_source(
        out: *mut *const rocjit_source_file,
        name: *const c_char,
    ) -> c_int;
    pub fn rocjit_is_header_name(name: *const c_char) -> c_int;
    pub fn rocjit_include_resolve(
        out: *mut *mut c_char,
        out_length: *mut usize,
        name: *const c_char,
        text: *const c_char,
        length: usize,
        headers: *const *const c_char,
        num_headers: usize,
    ) -> c_int;
}

// The `*_INIT` macros of the header, as functions (what rocjit_*_init sets, without a
// call into the library: usable where the library may be older than these bindings only
// through the version field).

impl rocjit_options {
    /// `ROCJIT_OPTIONS_INIT`.
    pub const fn init() -> Self {
        rocjit_options {
            version: ROCJIT_OPTIONS_VERSION,
            cache_dir: std::ptr::null(),
            target: std::ptr::null(),
            platform: ROCJIT_PLATFORM_AUTO,
            device: 0,
            flags: 0,
            bundles: std::ptr::null(),
            remote: std::ptr::null(),
            signing_key: std::ptr::null(),
            trusted_keys: std::ptr::null(),
            require_signed: ROCJIT_REQUIRE_SIGNED_DEFAULT,
        }
    }
}

impl rocjit_program {
    /// `ROCJIT_PROGRAM_INIT`, with `header_size = sizeof(rocjit_header)`.
    pub const fn init() -> Self {
        rocjit_program {
            version: ROCJIT_PROGRAM_VERSION,
            source: std::ptr::null(),
            length: 0,
            name: std::ptr::null(),
            options: std::ptr::null(),
            num_options: 0,
            headers: std::ptr::null(),
            num_headers: 0,
            log: std::ptr::null_mut(),
            log_size: 0,
            language: ROCJIT_LANG_AUTO,
            name_expressions: std::ptr::null(),
            num_name_expressions: 0,
            header_size: std::mem::size_of::<rocjit_header>(),
        }
    }
}

impl rocjit_registered_options {
    /// `ROCJIT_REGISTERED_OPTIONS_INIT`.
    pub const fn init() -> Self {
        rocjit_registered_options {
            version: ROCJIT_REGISTERED_OPTIONS_VERSION,
            options: std::ptr::null(),
            num_options: 0,
            name_expressions: std::ptr::null(),
            num_name_expressions: 0,
        }
    }
}

impl rocjit_counters {
    /// `ROCJIT_COUNTERS_INIT`.
    pub const fn init() -> Self {
        rocjit_counters {
            version: ROCJIT_COUNTERS_VERSION,
            disk_hits: 0,
            misses: 0,
            compiles: 0,
            compile_ms: 0.0,
            saved_ms: 0.0,
            since: 0,
            compile_errors: 0,
            evictions: 0,
            signature_rejects: 0,
            remote_errors: 0,
        }
    }
}

impl rocjit_prefetch_options {
    /// `ROCJIT_PREFETCH_OPTIONS_INIT`, with `item_size = sizeof(rocjit_prefetch_item)`.
    pub const fn init() -> Self {
        rocjit_prefetch_options {
            version: ROCJIT_PREFETCH_OPTIONS_VERSION,
            threads: 0,
            progress: None,
            user: std::ptr::null_mut(),
            item_size: std::mem::size_of::<rocjit_prefetch_item>(),
        }
    }
}

impl rocjit_prefetch_status {
    /// `ROCJIT_PREFETCH_STATUS_INIT`: all zero with `version =
    /// ROCJIT_PREFETCH_STATUS_VERSION`, ready for `rocjit_prefetch_status_get`.
    pub const fn init() -> Self {
        rocjit_prefetch_status {
            version: ROCJIT_PREFETCH_STATUS_VERSION,
            total: 0,
            done: 0,
            failed: 0,
            compiled: 0,
            finished: 0,
        }
    }
}

impl rocjit_kernel_native {
    /// All zero with `version = ROCJIT_KERNEL_NATIVE_VERSION`, as
    /// `rocjit_kernel_native_init` sets it.
    pub const fn init() -> Self {
        rocjit_kernel_native {
            version: ROCJIT_KERNEL_NATIVE_VERSION,
            platform: 0,
            device: 0,
            function: std::ptr::null_mut(),
            module: std::ptr::null_mut(),
        }
    }
}

impl rocjit_kernel_resources {
    /// All zero with `version = ROCJIT_KERNEL_RESOURCES_VERSION`, as
    /// `rocjit_kernel_resources_init` sets it.
    pub fn init() -> Self {
        rocjit_kernel_resources { version: ROCJIT_KERNEL_RESOURCES_VERSION, ..Default::default() }
    }
}

impl rocjit_stats {
    /// All zero with `version = ROCJIT_STATS_VERSION`, as `rocjit_stats_init` sets it.
    pub fn init() -> Self {
        // SAFETY: every field is an integer, a float or a char array: all-zero is valid.
        let mut s: rocjit_stats = unsafe { std::mem::zeroed() };
        s.version = ROCJIT_STATS_VERSION;
        s
    }
}

impl rocjit_remote_counters {
    /// All zero with `version = ROCJIT_REMOTE_COUNTERS_VERSION`.
    pub fn init() -> Self {
        rocjit_remote_counters { version: ROCJIT_REMOTE_COUNTERS_VERSION, ..Default::default() }
    }
}

impl rocjit_remote_info {
    /// All zero with `version = ROCJIT_REMOTE_INFO_VERSION`.
    pub fn init() -> Self {
        // SAFETY: integers, floats and char arrays: all-zero is valid.
        let mut i: rocjit_remote_info = unsafe { std::mem::zeroed() };
        i.version = ROCJIT_REMOTE_INFO_VERSION;
        i
    }
}

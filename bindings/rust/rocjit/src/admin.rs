//! Cache administration (what the `rocjit` CLI is built on): walking, finding, removing,
//! verifying and compacting entries; counters across processes; bundles; signing.
//!
//! The walks call Rust closures from C callbacks.  A panic in a closure never crosses
//! the C frames: the trampoline catches it, stops the walk, and it is resumed once the C
//! call has returned.
use crate::context::{chars, keys_cstrings, keys_ptrs, path_cstring, Context};
use crate::error::{check, string_from, Error, Result};
use crate::program::c_string;
use rocjit_sys as sys;
use std::any::Any;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::ptr;

/// A signature's state against the context's trusted keys (`ROCJIT_SIGNATURE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// Unsigned.
    None,
    /// Signed in a trusted key's name; not checked (the walk reads no code).
    Unchecked,
    /// Signed by a trusted key, and the signature holds.
    Trusted,
    /// Signed by a key this context does not trust.
    Untrusted,
    /// In a trusted key's name, but it does not hold.
    Bad,
    Other(i32),
}

impl Signature {
    fn from_raw(v: c_int) -> Signature {
        match v {
            sys::ROCJIT_SIGNATURE_NONE => Signature::None,
            sys::ROCJIT_SIGNATURE_UNCHECKED => Signature::Unchecked,
            sys::ROCJIT_SIGNATURE_TRUSTED => Signature::Trusted,
            sys::ROCJIT_SIGNATURE_UNTRUSTED => Signature::Untrusted,
            sys::ROCJIT_SIGNATURE_BAD => Signature::Bad,
            other => Signature::Other(other),
        }
    }
}

/// One cache entry as stored (`rocjit_entry`), copied out of the callback.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// 32 lower-case hex digits.
    pub key: String,
    /// "amd", "nvidia".
    pub platform: String,
    pub target: String,
    /// The compiler identity.
    pub compiler: String,
    /// Normalized options, space separated.
    pub options: String,
    pub source_name: String,
    /// In-memory header names, space separated.
    pub headers: String,
    /// Kernel symbols.
    pub kernels: Vec<String>,
    /// Bytes of code.
    pub size: u64,
    /// Unix seconds.
    pub created: i64,
    pub last_used: i64,
    pub hits: u64,
    pub compile_ms: f64,
    /// (expression, lowered name) pairs.
    pub name_expressions: Vec<(String, String)>,
    /// The portable key, or "" for an entry written by a rocjit that kept none.
    pub pkey: String,
    /// The name of the key that signed it, or "".
    pub signer: String,
    pub signature: Signature,
}

impl Entry {
    /// SAFETY: e points to a valid rocjit_entry for the duration of the call.
    unsafe fn from_raw(e: *const sys::rocjit_entry) -> Entry {
        let e = &*e;
        let kernels = string_from(e.kernels);
        let exprs = string_from(e.name_expressions);
        Entry {
            key: chars(&e.key),
            platform: string_from(e.platform),
            target: string_from(e.target),
            compiler: string_from(e.compiler),
            options: string_from(e.options),
            source_name: string_from(e.source_name),
            headers: string_from(e.headers),
            kernels: kernels.split(',').filter(|k| !k.is_empty()).map(String::from).collect(),
            size: e.size,
            created: e.created,
            last_used: e.last_used,
            hits: e.hits,
            compile_ms: e.compile_ms,
            name_expressions: exprs
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let mut it = l.splitn(2, '\t');
                    let a = it.next().unwrap_or("").to_string();
                    (a, it.next().unwrap_or("").to_string())
                })
                .collect(),
            pkey: chars(&e.pkey),
            signer: chars(&e.signer),
            signature: Signature::from_raw(e.signature),
        }
    }
}

/// Why verify found an entry bad (`ROCJIT_VERIFY_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyReason {
    /// The code does not match its checksum or size.
    Checksum,
    /// The code is not a code object for its target.
    Object,
    /// Its signature does not hold (or, under RequireSigned::All, is not trusted).
    Signature,
    Other(i32),
}

/// What [`Context::cache_verify`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyReport {
    pub checked: u64,
    /// Each bad entry, why, and rocjit's message.
    pub bad: Vec<(Entry, VerifyReason, String)>,
}

/// What [`Context::bundle_import`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportReport {
    pub copied: usize,
    /// Each refused entry's key ("" when the row's key is malformed) and why.
    pub rejected: Vec<(String, String)>,
}

/// Counters kept in the cache across processes, since the last zeroing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counters {
    pub disk_hits: u64,
    pub misses: u64,
    pub compiles: u64,
    pub compile_ms: f64,
    pub saved_ms: f64,
    /// Unix seconds of the last zeroing (or the cache's creation).
    pub since: i64,
    /// Failures, each counted by the process where it happened (issue 31).
    pub compile_errors: u64,
    pub evictions: u64,
    pub signature_rejects: u64,
    pub remote_errors: u64,
}

/// The remote tier's counters kept in the cache across processes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemoteCounters {
    pub hits: u64,
    pub misses: u64,
    pub errors: u64,
    pub rejected: u64,
    pub puts: u64,
    pub put_errors: u64,
    pub waits: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub saved_ms: f64,
    pub remote_ms: f64,
}

/// A closure and the panic it may have raised, behind a C callback's user pointer.
struct Walk<F> {
    f: F,
    panic: Option<Box<dyn Any + Send>>,
}

impl<F> Walk<F> {
    fn new(f: F) -> Walk<F> {
        Walk { f, panic: None }
    }

    fn user(&mut self) -> *mut c_void {
        self as *mut Walk<F> as *mut c_void
    }

    /// Runs a closure call, keeping a panic for later; None when it panicked.
    fn call<R>(&mut self, g: impl FnOnce(&mut F) -> R) -> Option<R> {
        if self.panic.is_some() {
            return None;
        }
        let f = &mut self.f;
        match panic::catch_unwind(AssertUnwindSafe(|| g(f))) {
            Ok(r) => Some(r),
            Err(p) => {
                self.panic = Some(p);
                None
            }
        }
    }

    fn finish(self) {
        if let Some(p) = self.panic {
            panic::resume_unwind(p);
        }
    }
}

/// The stop value a trampoline returns when its closure stopped the walk or panicked.
const STOP: c_int = 1;

unsafe extern "C" fn foreach_tramp<F: FnMut(&Entry) -> bool>(
    entry: *const sys::rocjit_entry,
    user: *mut c_void,
) -> c_int {
    let w = &mut *(user as *mut Walk<F>);
    let e = Entry::from_raw(entry);
    match w.call(|f| f(&e)) {
        Some(true) => 0,
        _ => STOP,
    }
}

unsafe extern "C" fn find_tramp(
    entry: *const sys::rocjit_entry,
    code: *const c_void,
    size: usize,
    user: *mut c_void,
) -> c_int {
    let out = &mut *(user as *mut Option<(Entry, Option<Vec<u8>>)>);
    let e = Entry::from_raw(entry);
    let bytes = if code.is_null() {
        None
    } else {
        Some(std::slice::from_raw_parts(code as *const u8, size).to_vec())
    };
    *out = Some((e, bytes));
    0
}

unsafe extern "C" fn verify_tramp<F: FnMut(Entry, c_int, String)>(
    entry: *const sys::rocjit_entry,
    reason: c_int,
    message: *const c_char,
    user: *mut c_void,
) {
    let w = &mut *(user as *mut Walk<F>);
    let e = Entry::from_raw(entry);
    let m = string_from(message);
    w.call(|f| f(e, reason, m));
}

unsafe extern "C" fn reject_tramp(key: *const c_char, reason: *const c_char, user: *mut c_void) {
    let v = &mut *(user as *mut Vec<(String, String)>);
    v.push((string_from(key), string_from(reason)));
}

impl Context {
    /// Calls `f` for every cache entry, in key order, until it returns false
    /// (rocjit_cache_foreach).  `f` runs with no rocjit lock held: it may use this
    /// context.
    pub fn cache_foreach<F: FnMut(&Entry) -> bool>(&self, f: F) -> Result<()> {
        let mut w = Walk::new(f);
        // SAFETY: w outlives the call; the trampoline matches F.
        let rc =
            unsafe { sys::rocjit_cache_foreach(self.as_raw(), Some(foreach_tramp::<F>), w.user()) };
        let stopped = rc == STOP;
        let r = if stopped { Ok(()) } else { check(rc) };
        w.finish();
        r
    }

    /// Every cache entry, in key order.
    pub fn cache_entries(&self) -> Result<Vec<Entry>> {
        let mut v = Vec::new();
        self.cache_foreach(|e| {
            v.push(e.clone());
            true
        })?;
        Ok(v)
    }

    /// The single entry whose key starts with `key_prefix` (at least 4 hex digits) and
    /// its code object (None when the code fails its checksum) (rocjit_cache_find).
    pub fn cache_find(&self, key_prefix: &str) -> Result<(Entry, Option<Vec<u8>>)> {
        let prefix = c_string(key_prefix, "the key prefix")?;
        let mut out: Option<(Entry, Option<Vec<u8>>)> = None;
        // SAFETY: out outlives the call; the trampoline matches its type.
        check(unsafe {
            sys::rocjit_cache_find(
                self.as_raw(),
                prefix.as_ptr(),
                Some(find_tramp),
                &mut out as *mut _ as *mut c_void,
            )
        })?;
        out.ok_or_else(|| Error::new(sys::ROCJIT_ENOTFOUND, "no entry was given"))
    }

    /// Removes the entries with these keys (32 hex digits each) in one transaction;
    /// returns how many existed.
    pub fn cache_remove(&self, keys: &[&str]) -> Result<usize> {
        let c = keys_cstrings(keys)?;
        let p = keys_ptrs(&c);
        let mut removed = 0usize;
        // SAFETY: the key array lives across the call.
        check(unsafe {
            sys::rocjit_cache_remove(self.as_raw(), p.as_ptr(), p.len(), &mut removed)
        })?;
        Ok(removed)
    }

    /// Gives free pages back to the file system (VACUUM).
    pub fn cache_compact(&self) -> Result<()> {
        // SAFETY: a valid context.
        check(unsafe { sys::rocjit_cache_compact(self.as_raw()) })
    }

    /// Checks every entry's checksum, code object and signature; with `fix`, removes the
    /// bad ones (rocjit_cache_verify).
    pub fn cache_verify(&self, fix: bool) -> Result<VerifyReport> {
        let mut bad = Vec::new();
        let mut checked = 0u64;
        let mut bad_count = 0u64;
        let rc = {
            let f = |e: Entry, reason: c_int, message: String| {
                let r = match reason {
                    sys::ROCJIT_VERIFY_CHECKSUM => VerifyReason::Checksum,
                    sys::ROCJIT_VERIFY_OBJECT => VerifyReason::Object,
                    sys::ROCJIT_VERIFY_SIGNATURE => VerifyReason::Signature,
                    other => VerifyReason::Other(other),
                };
                bad.push((e, r, message));
            };
            let mut w = Walk::new(f);
            // SAFETY: w outlives the call; the trampoline matches its closure type.
            let rc = unsafe {
                sys::rocjit_cache_verify(
                    self.as_raw(),
                    fix as c_int,
                    Some(verify_tramp_for(&w)),
                    w.user(),
                    &mut checked,
                    &mut bad_count,
                )
            };
            w.finish();
            rc
        };
        check(rc)?;
        Ok(VerifyReport { checked, bad })
    }

    /// The counters kept in the cache across processes (rocjit_counters_get).
    pub fn counters(&self) -> Result<Counters> {
        let mut c = sys::rocjit_counters::init();
        // SAFETY: c is a rocjit_counters of the version set.
        check(unsafe { sys::rocjit_counters_get(&mut c, self.as_raw()) })?;
        Ok(Counters {
            disk_hits: c.disk_hits,
            misses: c.misses,
            compiles: c.compiles,
            compile_ms: c.compile_ms,
            saved_ms: c.saved_ms,
            since: c.since,
            compile_errors: c.compile_errors,
            evictions: c.evictions,
            signature_rejects: c.signature_rejects,
            remote_errors: c.remote_errors,
        })
    }

    /// Sets the counters to zero, now (rocjit_cache_zero).
    pub fn cache_zero(&self) -> Result<()> {
        // SAFETY: a valid context.
        check(unsafe { sys::rocjit_cache_zero(self.as_raw()) })
    }

    /// The remote tier's counters kept in the cache (rocjit_remote_counters_get).
    pub fn remote_counters(&self) -> Result<RemoteCounters> {
        let mut c = sys::rocjit_remote_counters::init();
        // SAFETY: c is a rocjit_remote_counters of the version set.
        check(unsafe { sys::rocjit_remote_counters_get(&mut c, self.as_raw()) })?;
        Ok(RemoteCounters {
            hits: c.hits,
            misses: c.misses,
            errors: c.errors,
            rejected: c.rejected,
            puts: c.puts,
            put_errors: c.put_errors,
            waits: c.waits,
            bytes_read: c.bytes_read,
            bytes_written: c.bytes_written,
            saved_ms: c.saved_ms,
            remote_ms: c.remote_ms,
        })
    }

    /// Writes a new bundle at `path` (which must not exist) with the entries of these
    /// keys; returns how many were written (rocjit_bundle_export).
    pub fn bundle_export(&self, path: impl AsRef<Path>, keys: &[&str]) -> Result<usize> {
        let p = path_cstring(path.as_ref(), "the bundle path")?;
        let c = keys_cstrings(keys)?;
        let k = keys_ptrs(&c);
        let mut count = 0usize;
        // SAFETY: all pointers live across the call.
        check(unsafe {
            sys::rocjit_bundle_export(self.as_raw(), p.as_ptr(), k.as_ptr(), k.len(), &mut count)
        })?;
        Ok(count)
    }

    /// Copies a bundle's entries into the cache, each checked first
    /// (rocjit_bundle_import_v2).  Entries refused while the others were copied are
    /// not an error: they are listed in [`ImportReport::rejected`] (rocjit's
    /// `ROCJIT_EFORMAT`); any other failure is.
    pub fn bundle_import(&self, path: impl AsRef<Path>) -> Result<ImportReport> {
        let p = path_cstring(path.as_ref(), "the bundle path")?;
        let mut copied = 0usize;
        let mut rejected = 0usize;
        let mut list: Vec<(String, String)> = Vec::new();
        // SAFETY: list outlives the call; the trampoline matches its type.
        let rc = unsafe {
            sys::rocjit_bundle_import_v2(
                self.as_raw(),
                p.as_ptr(),
                &mut copied,
                &mut rejected,
                Some(reject_tramp),
                &mut list as *mut _ as *mut c_void,
            )
        };
        if rc != sys::ROCJIT_EFORMAT || rejected == 0 {
            check(rc)?;
        }
        Ok(ImportReport { copied, rejected: list })
    }

    /// Signs the entries with these keys (all when `keys` is None) with the context's
    /// signing key; returns how many were signed (rocjit_cache_sign).
    pub fn cache_sign(&self, keys: Option<&[&str]>) -> Result<usize> {
        let c = keys_cstrings(keys.unwrap_or(&[]))?;
        let k = keys_ptrs(&c);
        let mut count = 0usize;
        let kp = if keys.is_some() { k.as_ptr() } else { ptr::null() };
        // SAFETY: all pointers live across the call.
        check(unsafe { sys::rocjit_cache_sign(self.as_raw(), kp, k.len(), &mut count) })?;
        Ok(count)
    }
}

/// The verify trampoline for the closure type inside `w` (its type cannot be named).
fn verify_tramp_for<F: FnMut(Entry, c_int, String)>(
    _w: &Walk<F>,
) -> unsafe extern "C" fn(*const sys::rocjit_entry, c_int, *const c_char, *mut c_void) {
    verify_tramp::<F>
}

/// Makes an ed25519 key pair `dir/NAME.secret` and `dir/NAME.pub` (rocjit_keygen);
/// returns the public key line ("NAME:BASE64") to give consumers.
pub fn keygen(name: &str, dir: impl AsRef<Path>) -> Result<String> {
    let n = c_string(name, "the key name")?;
    let d = path_cstring(dir.as_ref(), "the key folder")?;
    let mut buf = vec![0 as c_char; 256];
    // SAFETY: buf has buf.len() bytes.
    check(unsafe { sys::rocjit_keygen(n.as_ptr(), d.as_ptr(), buf.as_mut_ptr(), buf.len()) })?;
    Ok(chars(&buf))
}

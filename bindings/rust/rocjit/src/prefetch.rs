//! Compiling a list ahead of need in background threads (rocjit_prefetch_*).
use crate::context::Context;
use crate::error::{check, Error, Result};
use crate::program::{c_string, Program, RawProgram, RawRegistered, RegisteredOptions};
use rocjit_sys as sys;
use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr;

/// One thing to compile ahead of need.
#[derive(Debug, Clone, Copy)]
pub enum PrefetchItem<'a> {
    /// A program, compiled as [`Context::compile`] does, for `target` (None: the
    /// context's).
    Program { program: &'a Program, target: Option<&'a str> },
    /// A registered source, as [`Context::compile_registered`] does: one item per
    /// instantiation the application will ask for gives exactly the entries
    /// [`Context::kernel_registered`] looks up.
    Registered { source: &'a str, options: &'a RegisteredOptions, target: Option<&'a str> },
}

/// Where a prefetch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrefetchStatus {
    pub total: usize,
    /// Items finished, failed ones included.
    pub done: usize,
    pub failed: usize,
    /// Items compiled now (the rest of done came from a cache).
    pub compiled: usize,
    /// Every item is done (or the prefetch was cancelled).
    pub finished: bool,
}

/// A prefetch in flight.  Dropping it cancels the items not started, waits for those
/// being compiled, and frees it (rocjit_prefetch_free).  It borrows the context and the
/// items' programs, which must stay unchanged until then.
pub struct Prefetch<'a> {
    raw: ptr::NonNull<sys::rocjit_prefetch>,
    // What the items point to, kept until rocjit_prefetch_free has returned.
    _items: Vec<sys::rocjit_prefetch_item>,
    _programs: Vec<Box<RawProgram<'a>>>,
    _registered: Vec<Box<RawRegistered<'a>>>,
    _strings: Vec<CString>,
    _ctx: PhantomData<&'a Context>,
}

// SAFETY: rocjit_prefetch_status_get and _wait may be called from any thread; the data
// the items point to is never written.  Drop (free) runs once, from one thread.
unsafe impl<'a> Send for Prefetch<'a> {}
unsafe impl<'a> Sync for Prefetch<'a> {}

impl<'a> Drop for Prefetch<'a> {
    fn drop(&mut self) {
        // SAFETY: the prefetch rocjit_prefetch_start returned, freed once.
        unsafe { sys::rocjit_prefetch_free(self.raw.as_ptr()) }
    }
}

impl<'a> Prefetch<'a> {
    pub fn status(&self) -> Result<PrefetchStatus> {
        let mut s = sys::rocjit_prefetch_status::init();
        // SAFETY: a live prefetch.
        check(unsafe { sys::rocjit_prefetch_status_get(&mut s, self.raw.as_ptr()) })?;
        Ok(PrefetchStatus {
            total: s.total,
            done: s.done,
            failed: s.failed,
            compiled: s.compiled,
            finished: s.finished != 0,
        })
    }

    /// Waits until every item is done, for at most `timeout_s` seconds (None: no
    /// limit).  True when finished, false when the time ran out first.
    pub fn wait(&self, timeout_s: Option<f64>) -> Result<bool> {
        // SAFETY: a live prefetch; rocjit_prefetch_wait may be called from any thread.
        let rc = unsafe { sys::rocjit_prefetch_wait(self.raw.as_ptr(), timeout_s.unwrap_or(-1.0)) };
        match rc {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(Error::last(rc)),
        }
    }
}

impl Context {
    /// Starts compiling `items` in the background, `threads` at a time (0: the
    /// compile workers' number), and returns at once (rocjit_prefetch_start).  What it
    /// compiles is in the context's table and cache: the later request is a hit.  An
    /// item's own failure is counted in [`PrefetchStatus::failed`], not returned here.
    pub fn prefetch<'a>(
        &'a self,
        items: &[PrefetchItem<'a>],
        threads: u32,
    ) -> Result<Prefetch<'a>> {
        let mut programs: Vec<Box<RawProgram<'a>>> = Vec::new();
        let mut registered: Vec<Box<RawRegistered<'a>>> = Vec::new();
        let mut strings: Vec<CString> = Vec::new();
        let mut raw_items = Vec::with_capacity(items.len());
        fn target_ptr(t: Option<&str>, strings: &mut Vec<CString>) -> Result<*const c_char> {
            Ok(match t {
                Some(t) => {
                    let c = c_string(t, "the target")?;
                    let p = c.as_ptr();
                    strings.push(c); // the CString's buffer does not move with it
                    p
                }
                None => ptr::null(),
            })
        }
        for item in items {
            let raw = match *item {
                PrefetchItem::Program { program, target } => {
                    let p = Box::new(program.raw()?);
                    let r = sys::rocjit_prefetch_item {
                        program: &p.prog,
                        registered: ptr::null(),
                        registered_options: ptr::null(),
                        target: target_ptr(target, &mut strings)?,
                    };
                    programs.push(p);
                    r
                }
                PrefetchItem::Registered { source, options, target } => {
                    let o = Box::new(options.raw()?);
                    let s = c_string(source, "the source name")?;
                    let r = sys::rocjit_prefetch_item {
                        program: ptr::null(),
                        registered: s.as_ptr(),
                        registered_options: &o.opts,
                        target: target_ptr(target, &mut strings)?,
                    };
                    strings.push(s);
                    registered.push(o);
                    r
                }
            };
            raw_items.push(raw);
        }
        // Its item_size is this crate's size_of::<rocjit_prefetch_item>(), the stride of
        // raw_items (the layout test checks it against the header's sizeof).
        let mut opts = sys::rocjit_prefetch_options::init();
        opts.threads = threads;
        let mut out = ptr::null_mut();
        // SAFETY: everything the items point to is kept in the Prefetch until it is freed.
        check(unsafe {
            sys::rocjit_prefetch_start(
                &mut out,
                self.as_raw(),
                raw_items.as_ptr(),
                raw_items.len(),
                &opts,
            )
        })?;
        Ok(Prefetch {
            raw: ptr::NonNull::new(out).expect("rocjit_prefetch_start gave no prefetch"),
            _items: raw_items,
            _programs: programs,
            _registered: registered,
            _strings: strings,
            _ctx: PhantomData,
        })
    }
}

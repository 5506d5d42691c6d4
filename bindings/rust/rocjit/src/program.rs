//! What to compile: [`Program`] (source text and everything that enters the key) and
//! [`RegisteredOptions`] (options and name expressions for a registered source).
use crate::error::{Error, Result};
use rocjit_sys as sys;
use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr;

/// The language a source is written in (`ROCJIT_LANG_*`); part of the cache key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// By the program's name: `*.cu` and `*.cuh` are CUDA, anything else HIP.
    Auto,
    Hip,
    /// CUDA source (compiled on AMD with CUDA's names mapped onto HIP).
    Cuda,
}

impl Language {
    pub fn to_raw(self) -> i32 {
        match self {
            Language::Auto => sys::ROCJIT_LANG_AUTO,
            Language::Hip => sys::ROCJIT_LANG_HIP,
            Language::Cuda => sys::ROCJIT_LANG_CUDA,
        }
    }

    pub fn from_raw(v: i32) -> Option<Language> {
        match v {
            sys::ROCJIT_LANG_AUTO => Some(Language::Auto),
            sys::ROCJIT_LANG_HIP => Some(Language::Hip),
            sys::ROCJIT_LANG_CUDA => Some(Language::Cuda),
            _ => None,
        }
    }
}

pub(crate) fn c_string(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::nul(what))
}

pub(crate) fn ptrs(v: &[CString]) -> Vec<*const c_char> {
    v.iter().map(|s| s.as_ptr()).collect()
}

fn ptr_or_null(v: &[*const c_char]) -> *const *const c_char {
    if v.is_empty() {
        ptr::null()
    } else {
        v.as_ptr()
    }
}

/// A program: source text, its name, compiler options, in-memory headers, name
/// expressions and language.  Everything but the name is part of the cache key.
/// A builder: `Program::new(src).name("k.hip").option("-DN=4")`.  Reusable: rocjit
/// keeps nothing of it after a call returns, and never writes to it.
#[derive(Debug, Clone)]
pub struct Program {
    source: CString,
    name: Option<CString>,
    options: Vec<CString>,
    headers: Vec<(CString, CString)>,
    name_expressions: Vec<CString>,
    language: Language,
    error: Option<Error>,
}

impl Program {
    /// A program of this source text (HIP, or CUDA by [`Program::language`] or a `.cu`
    /// name).
    pub fn new(source: &str) -> Program {
        let (source, error) = match CString::new(source) {
            Ok(s) => (s, None),
            Err(_) => (CString::default(), Some(Error::nul("the program's source"))),
        };
        Program {
            source,
            name: None,
            options: Vec::new(),
            headers: Vec::new(),
            name_expressions: Vec::new(),
            language: Language::Auto,
            error,
        }
    }

    fn keep<T>(&mut self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }

    /// The file name diagnostics give ("axpy.hip"); with [`Language::Auto`] it decides the
    /// language.
    pub fn name(mut self, name: &str) -> Program {
        let n = c_string(name, "the program's name");
        self.name = self.keep(n);
        self
    }

    /// One compiler option ("-DN=4", "-O2").  Target options are refused by rocjit: the
    /// target is a context or call parameter.
    pub fn option(mut self, option: &str) -> Program {
        if let Some(o) = self.keep(c_string(option, "a compiler option")) {
            self.options.push(o);
        }
        self
    }

    pub fn options<I, S>(mut self, options: I) -> Program
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for o in options {
            self = self.option(o.as_ref());
        }
        self
    }

    /// An in-memory header, reachable from the source as `#include "name"` or `<name>`.
    pub fn header(mut self, name: &str, text: &str) -> Program {
        let n = c_string(name, "a header's name");
        let t = c_string(text, "a header's text");
        if let (Some(n), Some(t)) = (self.keep(n), self.keep(t)) {
            self.headers.push((n, t));
        }
        self
    }

    /// A kernel template instantiation to compile and look up by ("scale<float, 4>"),
    /// as CuPy's name_expressions.
    pub fn name_expression(mut self, expression: &str) -> Program {
        if let Some(e) = self.keep(c_string(expression, "a name expression")) {
            self.name_expressions.push(e);
        }
        self
    }

    pub fn language(mut self, language: Language) -> Program {
        self.language = language;
        self
    }

    /// Calls f with the C program; the pointers in it live as long as self.
    pub(crate) fn with_raw<R>(&self, f: impl FnOnce(&sys::rocjit_program) -> R) -> Result<R> {
        let raw = self.raw()?;
        Ok(f(&raw.prog))
    }

    /// The C program, with the arrays it points to; valid while self lives.
    pub(crate) fn raw(&self) -> Result<RawProgram<'_>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let options = ptrs(&self.options);
        let exprs = ptrs(&self.name_expressions);
        let headers: Vec<sys::rocjit_header> = self
            .headers
            .iter()
            .map(|(n, t)| sys::rocjit_header {
                name: n.as_ptr(),
                source: t.as_ptr(),
                length: t.as_bytes().len(),
            })
            .collect();
        let mut p = sys::rocjit_program::init();
        p.source = self.source.as_ptr();
        p.length = self.source.as_bytes().len();
        p.name = self.name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        p.options = ptr_or_null(&options);
        p.num_options = options.len();
        p.headers = if headers.is_empty() { ptr::null() } else { headers.as_ptr() };
        p.num_headers = headers.len();
        p.language = self.language.to_raw();
        p.name_expressions = ptr_or_null(&exprs);
        p.num_name_expressions = exprs.len();
        // The vectors' buffers do not move with the struct: p stays valid.
        Ok(RawProgram { prog: p, _arrays: (options, exprs, headers), _program: PhantomData })
    }
}

/// A `rocjit_program` and the arrays it points to, borrowing the [`Program`] whose
/// strings they point to.
pub(crate) struct RawProgram<'a> {
    pub(crate) prog: sys::rocjit_program,
    _arrays: (Vec<*const c_char>, Vec<*const c_char>, Vec<sys::rocjit_header>),
    _program: PhantomData<&'a Program>,
}

/// A `rocjit_registered_options` and the arrays it points to.
pub(crate) struct RawRegistered<'a> {
    pub(crate) opts: sys::rocjit_registered_options,
    _arrays: (Vec<*const c_char>, Vec<*const c_char>),
    _options: PhantomData<&'a RegisteredOptions>,
}

/// Options and name expressions for a registered source (`rocjit_registered_options`):
/// `RegisteredOptions::new().option("-DN=4").name_expression("k<float>")`.
#[derive(Debug, Clone, Default)]
pub struct RegisteredOptions {
    options: Vec<CString>,
    name_expressions: Vec<CString>,
    error: Option<Error>,
}

impl RegisteredOptions {
    pub fn new() -> RegisteredOptions {
        RegisteredOptions::default()
    }

    pub fn option(mut self, option: &str) -> RegisteredOptions {
        match c_string(option, "a compiler option") {
            Ok(o) => self.options.push(o),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    pub fn options<I, S>(mut self, options: I) -> RegisteredOptions
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for o in options {
            self = self.option(o.as_ref());
        }
        self
    }

    pub fn name_expression(mut self, expression: &str) -> RegisteredOptions {
        match c_string(expression, "a name expression") {
            Ok(e) => self.name_expressions.push(e),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    pub(crate) fn with_raw<R>(
        &self,
        f: impl FnOnce(&sys::rocjit_registered_options) -> R,
    ) -> Result<R> {
        let raw = self.raw()?;
        Ok(f(&raw.opts))
    }

    pub(crate) fn raw(&self) -> Result<RawRegistered<'_>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let options = ptrs(&self.options);
        let exprs = ptrs(&self.name_expressions);
        let mut o = sys::rocjit_registered_options::init();
        o.options = ptr_or_null(&options);
        o.num_options = options.len();
        o.name_expressions = ptr_or_null(&exprs);
        o.num_name_expressions = exprs.len();
        Ok(RawRegistered { opts: o, _arrays: (options, exprs), _options: PhantomData })
    }
}

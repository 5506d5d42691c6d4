//! Errors: rocjit's code, the detail rocjit_last_error() gave, and for a request that ran
//! the compiler, its log (rocjit_last_log()).
use rocjit_sys as sys;
use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

/// What kind of failure a rocjit code names (`ROCJIT_E*`, values pinned by the C API).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `ROCJIT_EINVAL`: misuse, a NULL or malformed argument, a bad option.
    InvalidArgument,
    /// `ROCJIT_ENOMEM`.
    OutOfMemory,
    /// `ROCJIT_ENOTFOUND`: no such kernel in the code object, or registered name.
    NotFound,
    /// `ROCJIT_ECOMPILE`: the source did not compile; see [`Error::log`].
    Compile,
    /// `ROCJIT_EUNSUPPORTED`: the installed compiler cannot target this target id.
    Unsupported,
    /// `ROCJIT_ENODEV`: no GPU (and, where one is needed, no target given).
    NoDevice,
    /// `ROCJIT_ENOCOMPILER`: the vendor compiler library could not be loaded.
    NoCompiler,
    /// `ROCJIT_EDEVICE`: the GPU runtime refused to load or launch.
    Device,
    /// `ROCJIT_EIO`: a file could not be read, no cache, the database failed.
    Io,
    /// `ROCJIT_EFORMAT`: malformed or foreign code object (or bundle entries refused).
    Format,
    /// `ROCJIT_ENOTCACHED`: compiling is forbidden and the request missed.
    NotCached,
    /// A code this version of the bindings does not know.
    Other(i32),
}

impl ErrorKind {
    pub fn from_code(code: i32) -> ErrorKind {
        match code {
            sys::ROCJIT_EINVAL => ErrorKind::InvalidArgument,
            sys::ROCJIT_ENOMEM => ErrorKind::OutOfMemory,
            sys::ROCJIT_ENOTFOUND => ErrorKind::NotFound,
            sys::ROCJIT_ECOMPILE => ErrorKind::Compile,
            sys::ROCJIT_EUNSUPPORTED => ErrorKind::Unsupported,
            sys::ROCJIT_ENODEV => ErrorKind::NoDevice,
            sys::ROCJIT_ENOCOMPILER => ErrorKind::NoCompiler,
            sys::ROCJIT_EDEVICE => ErrorKind::Device,
            sys::ROCJIT_EIO => ErrorKind::Io,
            sys::ROCJIT_EFORMAT => ErrorKind::Format,
            sys::ROCJIT_ENOTCACHED => ErrorKind::NotCached,
            other => ErrorKind::Other(other),
        }
    }
}

/// A failed rocjit call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: i32,
    message: String,
    log: String,
}

/// `Result<T, rocjit::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn string_from(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: rocjit returns NUL-terminated strings, valid until the thread's next call.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

impl Error {
    /// An error with this code and message, made by the bindings themselves (an argument
    /// rocjit could not be given, such as a string holding a NUL byte).
    pub fn new(code: i32, message: impl Into<String>) -> Error {
        Error { code, message: message.into(), log: String::new() }
    }

    /// The error of a failed call, read from this thread's rocjit_last_error() (call it
    /// right after the failure, before any other rocjit call on the thread).
    pub(crate) fn last(code: c_int) -> Error {
        // SAFETY: no arguments; a per-thread static string.
        let message = string_from(unsafe { sys::rocjit_last_error() });
        Error { code, message, log: String::new() }
    }

    /// As `last`, for a request (kernel get, compile): with the compiler's log.
    pub(crate) fn last_request(code: c_int) -> Error {
        let mut e = Error::last(code);
        // SAFETY: as above; the log of this thread's last request.
        e.log = string_from(unsafe { sys::rocjit_last_log() });
        e
    }

    pub(crate) fn nul(what: &str) -> Error {
        Error::new(sys::ROCJIT_EINVAL, format!("{} holds a NUL byte", what))
    }

    /// rocjit's code: a negative `ROCJIT_E*` value.
    pub fn code(&self) -> i32 {
        self.code
    }

    pub fn kind(&self) -> ErrorKind {
        ErrorKind::from_code(self.code)
    }

    /// The detail: rocjit_last_error() of the failure ("" when rocjit gave none).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The compiler's log of the failed request ("" for other failures): for a compile
    /// error, the diagnostics ("k.hip:3:5: error: ...").
    pub fn log(&self) -> &str {
        &self.log
    }
}

/// rocjit_strerror: a static English name of a code ("compile error").
pub fn strerror(code: i32) -> &'static str {
    // SAFETY: never NULL, a static string.
    let p = unsafe { sys::rocjit_strerror(code) };
    // SAFETY: static, NUL-terminated.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("unknown error")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", strerror(self.code))?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if !self.log.is_empty() && !self.message.contains(self.log.trim()) {
            write!(f, "\n{}", self.log.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// 0 is Ok; anything else is the thread's last error.
pub(crate) fn check(rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::last(rc))
    }
}

/// As check, for requests: a failure carries the compiler's log.
pub(crate) fn check_request(rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::last_request(rc))
    }
}

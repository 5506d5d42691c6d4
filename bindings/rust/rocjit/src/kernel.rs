//! Launchable kernels, launch dimensions and typed kernel arguments.
use crate::context::Context;
use crate::error::{check, string_from, Result};
use rocjit_sys as sys;
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::ptr::NonNull;

/// Grid or block dimensions.  `Dim3::from(256)`, `(16, 16).into()`, `(4, 4, 4).into()`.
pub type Dim3 = sys::rocjit_dim3;

/// Builds a [`Dim3`]: `dim3(n, 1, 1)`.
pub const fn dim3(x: u32, y: u32, z: u32) -> Dim3 {
    sys::rocjit_dim3 { x, y, z }
}

/// Converts into [`Dim3`]: a `u32` (x), `(x, y)` or `(x, y, z)`.
pub trait IntoDim3 {
    fn into_dim3(self) -> Dim3;
}

impl IntoDim3 for Dim3 {
    fn into_dim3(self) -> Dim3 {
        self
    }
}
impl IntoDim3 for u32 {
    fn into_dim3(self) -> Dim3 {
        dim3(self, 1, 1)
    }
}
impl IntoDim3 for (u32, u32) {
    fn into_dim3(self) -> Dim3 {
        dim3(self.0, self.1, 1)
    }
}
impl IntoDim3 for (u32, u32, u32) {
    fn into_dim3(self) -> Dim3 {
        dim3(self.0, self.1, self.2)
    }
}

/// A value that can be passed to a kernel parameter by value: its bytes are what the
/// kernel receives.
///
/// # Safety
/// Implement it only for `Copy` types whose layout is the kernel parameter's C layout
/// (scalars, `#[repr(C)]` structs of them, device pointers).  Nothing checks a kernel's
/// parameters against the arguments given: that is the launch's contract.
pub unsafe trait KernelArg: Copy {}

macro_rules! kernel_args {
    ($($t:ty),*) => { $( unsafe impl KernelArg for $t {} )* };
}
kernel_args!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, f32, f64, bool);
unsafe impl<T> KernelArg for *const T {}
unsafe impl<T> KernelArg for *mut T {}
unsafe impl<T> KernelArg for DevicePtr<T> {}

/// A device address of `T`s (a `hipDeviceptr_t`, `CUdeviceptr`), as a kernel's `T *`
/// parameter receives it.  Only a number to the host: nothing here reads or frees it.
#[repr(transparent)]
pub struct DevicePtr<T> {
    addr: u64,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevicePtr<T> {}

impl<T> std::fmt::Debug for DevicePtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DevicePtr({:#x})", self.addr)
    }
}

impl<T> DevicePtr<T> {
    /// The device address `addr` (what cuMemAlloc / hipMalloc gave).
    pub const fn from_addr(addr: u64) -> Self {
        DevicePtr { addr, _t: PhantomData }
    }
    pub fn from_raw(p: *mut c_void) -> Self {
        DevicePtr::from_addr(p as usize as u64)
    }
    pub const fn addr(self) -> u64 {
        self.addr
    }
    pub fn as_raw(self) -> *mut c_void {
        self.addr as usize as *mut c_void
    }
}

/// The argument list of a launch: a pointer to each argument, as
/// hipModuleLaunchKernel/cuLaunchKernel take them.  Borrows the values for as long as it
/// lives, so they cannot change or go away before the launch.
/// `let a = rocjit::args![&n, &alpha, &x];` or `Args::new().arg(&n).arg(&alpha)`.
pub struct Args<'a> {
    ptrs: Vec<*mut c_void>,
    _values: PhantomData<&'a ()>,
}

impl<'a> Default for Args<'a> {
    fn default() -> Self {
        Args::new()
    }
}

impl<'a> Args<'a> {
    pub fn new() -> Args<'a> {
        Args { ptrs: Vec::new(), _values: PhantomData }
    }

    /// Appends the next parameter's value.
    pub fn push<T: KernelArg>(&mut self, value: &'a T) -> &mut Args<'a> {
        self.ptrs.push(value as *const T as *mut c_void);
        self
    }

    /// As push, by value of the builder.
    pub fn arg<T: KernelArg>(mut self, value: &'a T) -> Args<'a> {
        self.push(value);
        self
    }

    pub fn len(&self) -> usize {
        self.ptrs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ptrs.is_empty()
    }

    /// The `void **` array (valid while self lives).
    pub fn as_ptr(&self) -> *const *mut c_void {
        self.ptrs.as_ptr()
    }
}

/// Builds an [`Args`] from references: `rocjit::args![&n, &alpha, &x, &y]`.
#[macro_export]
macro_rules! args {
    ($($a:expr),* $(,)?) => {{
        let mut args = $crate::Args::new();
        $( args.push($a); )*
        args
    }};
}

/// A launchable kernel on its context's device: `Clone + Send + Sync + 'static`.
/// Immutable; it holds its [`Context`] open (a clone of the context's handle), so it can
/// be kept anywhere, e.g. in the function map of a framework's device type, and the
/// context closes only when its last kernel and handle are gone.  Launching again costs
/// no lookup; a clone costs an atomic increment.
///
/// (The crate once had a `Kernel<'ctx>` borrowing its context.  It is gone: a borrowed
/// kernel cannot live in a `'static` device type, and the only thing it saved, that
/// increment per kernel looked up, is nothing beside the lookup itself.)
#[derive(Clone)]
pub struct Kernel {
    raw: NonNull<sys::rocjit_kernel>,
    ctx: Context,
}

// SAFETY: rocjit kernels are immutable and shareable between threads (rocjit.h), and
// valid while their context is open, which `ctx` ensures.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel").field("name", &self.name()).finish()
    }
}

impl Kernel {
    pub(crate) fn from_raw(raw: *mut sys::rocjit_kernel, ctx: Context) -> Kernel {
        Kernel { raw: NonNull::new(raw).expect("rocjit returned a NULL kernel"), ctx }
    }

    /// The context the kernel belongs to (and keeps open).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The kernel's symbol (for a name expression, its lowered name).
    pub fn name(&self) -> String {
        // SAFETY: the kernel is valid while its context is open (self.ctx).
        string_from(unsafe { sys::rocjit_kernel_name(self.raw.as_ptr()) })
    }

    pub fn as_raw(&self) -> *const sys::rocjit_kernel {
        self.raw.as_ptr()
    }

    /// Launches the kernel on `stream` (a `hipStream_t` on AMD, a `CUstream` /
    /// `cudaStream_t` on NVIDIA; null: the default stream) with `grid` x `block`
    /// threads and `shared_bytes` of dynamic shared memory.  Asynchronous: faults in the
    /// kernel surface at the next synchronizing call on the stream.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number, order and type, device
    /// pointers must point to memory of the kernel's device that is large enough for
    /// what the kernel does with it and stays allocated until the kernel is done, and
    /// `stream` must be null or a live stream of that device.  Nothing can check these.
    pub unsafe fn launch(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        shared_bytes: u32,
        stream: *mut c_void,
        args: &Args<'_>,
    ) -> Result<()> {
        self.launch_with(sys::rocjit_kernel_launch, grid, block, shared_bytes, stream, args)
    }

    /// A launch through `f` (rocjit_kernel_launch or _launch_cooperative, which take the
    /// same arguments).
    pub(crate) unsafe fn launch_with(
        &self,
        f: LaunchFn,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        shared_bytes: u32,
        stream: *mut c_void,
        args: &Args<'_>,
    ) -> Result<()> {
        let args = args.as_ptr() as *mut *mut c_void;
        check(f(self.as_raw(), grid.into_dim3(), block.into_dim3(), shared_bytes, stream, args))
    }
}

pub(crate) type LaunchFn = unsafe extern "C" fn(
    *const sys::rocjit_kernel,
    sys::rocjit_dim3,
    sys::rocjit_dim3,
    u32,
    *mut c_void,
    *mut *mut c_void,
) -> std::os::raw::c_int;

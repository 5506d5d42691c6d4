//! What a launch needs beyond grid and block (issue 29): a kernel's native handles for a
//! framework with its own launcher, function attributes, occupancy and a suggested block
//! size, cooperative launches, and the module's `__device__` / `__constant__` variables.
//! Methods of [`Kernel`]; each names the C call it wraps.  Every one needs the device the
//! kernel was loaded on (none of them can run without a GPU).
use crate::context::Platform;
use crate::error::{check, Error, Result};
use crate::kernel::{Args, DevicePtr, IntoDim3, Kernel};
use crate::program::c_string;
use rocjit_sys as sys;
use std::os::raw::{c_int, c_void};
use std::ptr;

/// The driver's own handles of a kernel (`rocjit_kernel_native`), to launch or query it
/// with the platform's API (cudarc, rocm-rs, `cuLaunchKernel`, `hipModuleLaunchKernel`).
///
/// Both handles are owned by the context: valid while it is open (while the [`Kernel`]
/// they came from, a clone of it, or a handle of its context lives), and never to be
/// unloaded or destroyed by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeHandles {
    /// What the handles are: [`Platform::Amd`] (HIP) or [`Platform::Nvidia`] (CUDA).
    pub platform: Platform,
    /// The device ordinal the module is loaded on.
    pub device: i32,
    /// AMD: `hipFunction_t`.  NVIDIA: `CUfunction`.
    pub function: *mut c_void,
    /// AMD: `hipModule_t`.  NVIDIA: `CUmodule`, in the device's primary context (the
    /// CUDA runtime's).
    pub module: *mut c_void,
}

/// A function attribute (`ROCJIT_ATTR_*`, the values of `CUfunction_attribute` and
/// `hipFunction_attribute`).  All can be read; only the last two can be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// The most threads a block of this kernel may have.
    MaxThreadsPerBlock,
    /// Static shared memory (LDS) per block, in bytes.
    SharedBytes,
    /// Constant memory the kernel uses, in bytes.
    ConstBytes,
    /// Local (scratch) bytes per thread.
    LocalBytes,
    /// Registers per thread.
    NumRegs,
    /// NVIDIA: the PTX version, 10 * major + minor.
    PtxVersion,
    /// The binary's architecture, 10 * major + minor.
    BinaryVersion,
    /// Get and set: the most dynamic shared memory a launch may ask for.  On NVIDIA a
    /// launch above 48 KB needs it raised first.
    MaxDynamicSharedBytes,
    /// Get and set (NVIDIA; accepted and ignored on AMD): percent of the unified
    /// L1/shared memory preferred as shared, -1 the default.
    PreferredSharedCarveout,
}

impl Attribute {
    pub fn to_raw(self) -> i32 {
        match self {
            Attribute::MaxThreadsPerBlock => sys::ROCJIT_ATTR_MAX_THREADS_PER_BLOCK,
            Attribute::SharedBytes => sys::ROCJIT_ATTR_SHARED_BYTES,
            Attribute::ConstBytes => sys::ROCJIT_ATTR_CONST_BYTES,
            Attribute::LocalBytes => sys::ROCJIT_ATTR_LOCAL_BYTES,
            Attribute::NumRegs => sys::ROCJIT_ATTR_NUM_REGS,
            Attribute::PtxVersion => sys::ROCJIT_ATTR_PTX_VERSION,
            Attribute::BinaryVersion => sys::ROCJIT_ATTR_BINARY_VERSION,
            Attribute::MaxDynamicSharedBytes => sys::ROCJIT_ATTR_MAX_DYNAMIC_SHARED_BYTES,
            Attribute::PreferredSharedCarveout => sys::ROCJIT_ATTR_PREFERRED_SHARED_CARVEOUT,
        }
    }

    /// Every attribute, in the order of their values.
    pub const ALL: [Attribute; 9] = [
        Attribute::MaxThreadsPerBlock,
        Attribute::SharedBytes,
        Attribute::ConstBytes,
        Attribute::LocalBytes,
        Attribute::NumRegs,
        Attribute::PtxVersion,
        Attribute::BinaryVersion,
        Attribute::MaxDynamicSharedBytes,
        Attribute::PreferredSharedCarveout,
    ];
}

/// The block size with the highest occupancy, and the fewest blocks that fill the device
/// at it (`rocjit_kernel_block_size_get`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSize {
    pub block_threads: u32,
    pub min_grid_blocks: u32,
}

/// Plain old data: a `Copy` type with no padding bytes, for which every bit pattern is
/// a valid value (integers, floats, arrays of them, [`DevicePtr`], `#[repr(C)]` structs
/// of such fields with no padding).  What a module variable's bytes may be copied from
/// ([`Kernel::global_write`]) and into ([`Kernel::global_read`]).
///
/// # Safety
/// Implement it only for types that hold both promises: reading a padding byte, or
/// making a `bool` or an enum of a byte that is not one of its values, is undefined
/// behaviour.
pub unsafe trait Pod: Copy + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $( unsafe impl Pod for $t {} )* };
}
pod!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, isize, usize, f32, f64);
unsafe impl<T: 'static> Pod for DevicePtr<T> {}
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

fn bytes_of<T: Pod>(s: &[T]) -> (*const c_void, usize) {
    (s.as_ptr() as *const c_void, std::mem::size_of_val(s))
}

fn non_negative(v: c_int, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        Error::new(sys::ROCJIT_EDEVICE, format!("the driver gave a negative {}: {}", what, v))
    })
}

impl Kernel {
    /// The kernel's native function and module (`rocjit_kernel_native_get`).  See
    /// [`NativeHandles`]: owned by the context, valid while it is open.
    pub fn native(&self) -> Result<NativeHandles> {
        let mut n = sys::rocjit_kernel_native::init();
        // SAFETY: n is initialised for its version; the kernel's context is open (it holds it).
        check(unsafe { sys::rocjit_kernel_native_get(&mut n, self.as_raw()) })?;
        Ok(NativeHandles {
            platform: Platform::from_raw(n.platform).ok_or_else(|| {
                Error::new(sys::ROCJIT_EINVAL, format!("unknown platform {}", n.platform))
            })?,
            device: n.device,
            function: n.function,
            module: n.module,
        })
    }

    /// A function attribute's value, from the driver (`rocjit_kernel_attribute_get`).
    /// Unsupported on a platform without it (e.g. [`Attribute::PtxVersion`] on AMD).
    pub fn attribute(&self, attribute: Attribute) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: valid pointers.
        check(unsafe {
            sys::rocjit_kernel_attribute_get(&mut v, self.as_raw(), attribute.to_raw())
        })?;
        Ok(v)
    }

    /// Sets [`Attribute::MaxDynamicSharedBytes`] or [`Attribute::PreferredSharedCarveout`]
    /// (`rocjit_kernel_attribute_set`): for every thread and later launch of this kernel.
    /// A value above the device's limit is refused, the message naming the limit.
    pub fn set_attribute(&self, attribute: Attribute, value: i32) -> Result<()> {
        // SAFETY: a valid kernel.
        check(unsafe { sys::rocjit_kernel_attribute_set(self.as_raw(), attribute.to_raw(), value) })
    }

    /// How many blocks of `block_threads` threads, each with `dynamic_shared_bytes` of
    /// dynamic shared memory, fit on one multiprocessor (compute unit) at once
    /// (`rocjit_kernel_occupancy_get`).
    pub fn occupancy(&self, block_threads: u32, dynamic_shared_bytes: usize) -> Result<u32> {
        let mut blocks: c_int = 0;
        // SAFETY: valid pointers.
        check(unsafe {
            sys::rocjit_kernel_occupancy_get(
                &mut blocks,
                self.as_raw(),
                block_threads,
                dynamic_shared_bytes,
            )
        })?;
        non_negative(blocks, "occupancy")
    }

    /// The block size that gives the highest occupancy, at most `block_threads_limit`
    /// threads (0: no limit but the kernel's), and the fewest blocks that fill the device
    /// at it (`rocjit_kernel_block_size_get`).
    pub fn suggested_block_size(
        &self,
        dynamic_shared_bytes: usize,
        block_threads_limit: u32,
    ) -> Result<BlockSize> {
        let (mut threads, mut grid): (c_int, c_int) = (0, 0);
        // SAFETY: valid pointers.
        check(unsafe {
            sys::rocjit_kernel_block_size_get(
                &mut threads,
                &mut grid,
                self.as_raw(),
                dynamic_shared_bytes,
                block_threads_limit,
            )
        })?;
        Ok(BlockSize {
            block_threads: non_negative(threads, "block size")?,
            min_grid_blocks: non_negative(grid, "grid size")?,
        })
    }

    /// As [`Kernel::launch`], as a cooperative launch (`rocjit_kernel_launch_cooperative`):
    /// every block is resident at once, so the kernel may synchronize the whole grid
    /// (cooperative groups' `this_grid().sync()`).  A grid larger than the device holds at
    /// once is refused ([`crate::ErrorKind::InvalidArgument`]), the message giving the
    /// most blocks it takes.
    ///
    /// # Safety
    /// As [`Kernel::launch`].
    pub unsafe fn launch_cooperative(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        shared_bytes: u32,
        stream: *mut c_void,
        args: &Args<'_>,
    ) -> Result<()> {
        let f = sys::rocjit_kernel_launch_cooperative;
        self.launch_with(f, grid, block, shared_bytes, stream, args)
    }

    /// A `__device__` or `__constant__` variable of the kernel's module, by its symbol
    /// name (mangled unless it is `extern "C"`): its device address, valid while the
    /// context is open, and its size in bytes (`rocjit_global_get`).  An unknown name is
    /// [`crate::ErrorKind::NotFound`], the message listing the module's variables.
    pub fn global(&self, name: &str) -> Result<(DevicePtr<u8>, usize)> {
        let n = c_string(name, "the variable's name")?;
        let (mut address, mut size) = (ptr::null_mut(), 0usize);
        // SAFETY: valid pointers; n lives across the call.
        check(unsafe {
            sys::rocjit_global_get(&mut address, &mut size, self.as_raw(), n.as_ptr())
        })?;
        Ok((DevicePtr::from_raw(address), size))
    }

    /// Copies `src` into the variable `name`, `offset` bytes in, and returns when the copy
    /// is done (`rocjit_global_write`, no stream).  A copy past the variable's end is
    /// refused.
    pub fn global_write<T: Pod>(&self, name: &str, offset: usize, src: &[T]) -> Result<()> {
        // SAFETY: the null stream makes the copy synchronous: src outlives it.
        unsafe { self.global_write_async(name, offset, src, ptr::null_mut()) }
    }

    /// As [`Kernel::global_write`], queued on `stream` (`hipStream_t`, `CUstream`; null:
    /// synchronous) in order with the launches on it.
    ///
    /// # Safety
    /// With a stream, `src` must stay valid and unchanged until the stream ran the copy,
    /// and `stream` must be a live stream of the kernel's device.
    pub unsafe fn global_write_async<T: Pod>(
        &self,
        name: &str,
        offset: usize,
        src: &[T],
        stream: *mut c_void,
    ) -> Result<()> {
        let n = c_string(name, "the variable's name")?;
        let (p, bytes) = bytes_of(src);
        check(sys::rocjit_global_write(self.as_raw(), n.as_ptr(), offset, p, bytes, stream))
    }

    /// Copies the variable `name`, from `offset` bytes in, into `dst` (as many bytes as
    /// `dst` holds) and returns when the copy is done (`rocjit_global_read`, no stream).
    pub fn global_read<T: Pod>(&self, name: &str, offset: usize, dst: &mut [T]) -> Result<()> {
        // SAFETY: the null stream makes the copy synchronous: dst outlives it.
        unsafe { self.global_read_async(name, offset, dst, ptr::null_mut()) }
    }

    /// As [`Kernel::global_read`], queued on `stream` in order with its launches.
    ///
    /// # Safety
    /// With a stream, `dst` must stay valid, and be neither read nor written, until the
    /// stream ran the copy; `stream` must be a live stream of the kernel's device.
    pub unsafe fn global_read_async<T: Pod>(
        &self,
        name: &str,
        offset: usize,
        dst: &mut [T],
        stream: *mut c_void,
    ) -> Result<()> {
        let n = c_string(name, "the variable's name")?;
        let bytes = std::mem::size_of_val(dst);
        let p = dst.as_mut_ptr() as *mut c_void;
        check(sys::rocjit_global_read(p, self.as_raw(), n.as_ptr(), offset, bytes, stream))
    }
}

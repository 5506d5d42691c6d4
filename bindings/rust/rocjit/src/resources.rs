//! What a kernel uses, read from its code object with no GPU and no driver (issue 29):
//! [`Resources`], from a code object's bytes ([`codeobj_resources`]), a [`Code`] the
//! context compiled, or a [`Kernel`] it served.
use crate::context::{Code, Platform};
use crate::error::{check, Error, Result};
use crate::kernel::Kernel;
use crate::program::c_string;
use rocjit_sys as sys;
use std::os::raw::c_void;

/// A kernel's resource use as its code object records it (`rocjit_kernel_resources`):
/// what `ptxas -v` or an AMDGPU code object's metadata tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resources {
    /// [`Platform::Amd`] or [`Platform::Nvidia`].
    pub platform: Platform,
    /// AMD: architected VGPRs per work-item (AGPRs apart).  NVIDIA: registers per thread.
    pub registers: u32,
    /// AMD: accumulation VGPRs (gfx908, gfx90a, gfx942).
    pub agprs: u32,
    /// AMD: scalar registers per wavefront.  NVIDIA: 0.
    pub sgprs: u32,
    /// AMD: VGPRs spilled to scratch.  NVIDIA: 0.
    pub vgpr_spills: u32,
    /// AMD: SGPRs spilled.  NVIDIA: 0.
    pub sgpr_spills: u32,
    /// Per thread: the AMD private segment (spills, stack) or the NVIDIA stack frame.
    pub scratch_bytes: u64,
    /// The stack's size is not known at compile time (recursion, indirect calls,
    /// alloca): `scratch_bytes` is a lower bound.
    pub dynamic_stack: bool,
    /// Static shared memory (LDS) per block.
    pub shared_bytes: u64,
    /// Bytes of kernel arguments.
    pub param_bytes: u64,
    /// Most threads per block the code allows (AMD `.max_flat_workgroup_size`, NVIDIA
    /// `__launch_bounds__`); 0: no bound but the device's.
    pub max_threads: u32,
    /// Threads per wavefront / warp: 32 or 64.
    pub wavefront: u32,
}

impl Resources {
    fn from_raw(r: &sys::rocjit_kernel_resources) -> Result<Resources> {
        Ok(Resources {
            platform: Platform::from_raw(r.platform).ok_or_else(|| {
                Error::new(sys::ROCJIT_EFORMAT, format!("unknown platform {}", r.platform))
            })?,
            registers: r.registers,
            agprs: r.agprs,
            sgprs: r.sgprs,
            vgpr_spills: r.vgpr_spills,
            sgpr_spills: r.sgpr_spills,
            scratch_bytes: r.scratch_bytes,
            dynamic_stack: r.dynamic_stack != 0,
            shared_bytes: r.shared_bytes,
            param_bytes: r.param_bytes,
            max_threads: r.max_threads,
            wavefront: r.wavefront,
        })
    }
}

/// The resources of `kernel` (its symbol, as [`crate::codeobj_inspect`] lists it) in the
/// code object `data`, for any target, with no GPU (`rocjit_codeobj_resources_get`).
/// [`crate::ErrorKind::NotFound`] for no such kernel, [`crate::ErrorKind::Format`] for a
/// malformed or missing record.
pub fn codeobj_resources(data: &[u8], kernel: &str) -> Result<Resources> {
    let k = c_string(kernel, "the kernel's name")?;
    let mut r = sys::rocjit_kernel_resources::init();
    // SAFETY: data is data.len() readable bytes; k lives across the call.
    check(unsafe {
        sys::rocjit_codeobj_resources_get(
            &mut r,
            data.as_ptr() as *const c_void,
            data.len(),
            k.as_ptr(),
        )
    })?;
    Resources::from_raw(&r)
}

impl<'ctx> Code<'ctx> {
    /// The resources of one kernel of this code object ([`codeobj_resources`]).
    pub fn resources(&self, kernel: &str) -> Result<Resources> {
        codeobj_resources(self.data(), kernel)
    }

    /// Every kernel of this code object with its resources, in the object's order.
    pub fn all_resources(&self) -> Result<Vec<(String, Resources)>> {
        crate::codeobj_inspect(self.data())?
            .kernels
            .into_iter()
            .map(|k| self.resources(&k).map(|r| (k, r)))
            .collect()
    }
}

impl Kernel {
    /// The kernel's resources, read from the code object it was loaded from (not from the
    /// driver) when asked (`rocjit_kernel_resources_get`).
    pub fn resources(&self) -> Result<Resources> {
        let mut r = sys::rocjit_kernel_resources::init();
        // SAFETY: valid pointers; the kernel's context is open (it holds it).
        check(unsafe { sys::rocjit_kernel_resources_get(&mut r, self.as_raw()) })?;
        Resources::from_raw(&r)
    }
}

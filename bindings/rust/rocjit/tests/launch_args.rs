//! Kernel arguments and dimensions (no GPU needed: what a launch would be given).
use rocjit::{dim3, Args, DevicePtr, IntoDim3, KernelArg};
use std::os::raw::c_void;

#[repr(C)]
#[derive(Clone, Copy)]
struct Params {
    n: u32,
    scale: f32,
}
// SAFETY: #[repr(C)] of scalars, as the kernel's struct parameter.
unsafe impl KernelArg for Params {}

#[test]
fn args_point_at_each_value_in_order() {
    let n = 5i32;
    let a = 2.5f32;
    let x: DevicePtr<f32> = DevicePtr::from_addr(0x7f00_0000_1000);
    let p = Params { n: 3, scale: 1.0 };
    let args = rocjit::args![&n, &a, &x, &p];
    assert_eq!(args.len(), 4);
    let ptrs = unsafe { std::slice::from_raw_parts(args.as_ptr(), args.len()) };
    assert_eq!(ptrs[0], &n as *const i32 as *mut c_void);
    assert_eq!(ptrs[2], &x as *const DevicePtr<f32> as *mut c_void);
    // The kernel reads a device pointer parameter as the 8 bytes of the address.
    assert_eq!(unsafe { *(ptrs[2] as *const u64) }, 0x7f00_0000_1000);
    assert_eq!(std::mem::size_of::<DevicePtr<f32>>(), 8);
    let built = Args::new().arg(&n).arg(&a);
    assert_eq!(built.len(), 2);
    assert!(Args::new().is_empty());
}

#[test]
fn dimensions_from_numbers_and_tuples() {
    assert_eq!(256u32.into_dim3(), dim3(256, 1, 1));
    assert_eq!((16u32, 8u32).into_dim3(), dim3(16, 8, 1));
    assert_eq!((2u32, 3u32, 4u32).into_dim3(), dim3(2, 3, 4));
}

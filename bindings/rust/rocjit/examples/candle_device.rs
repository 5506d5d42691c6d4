//! candle_device: rocjit as the kernel source of a Candle-style CUDA/HIP device.
//!
//! Candle's device type is `Clone + Send + Sync + 'static` and keeps its loaded
//! functions in a map (cudarc's `CudaFunction` holds an `Arc` of its module).  So does
//! [`Device`] here: a `#[derive(Clone)]` struct holding an `Arc<rocjit::Context>` and a
//! shared map of [`rocjit::Kernel`]s, which keep their context open themselves.  The
//! modules are kernel *sources* embedded at build time (examples/kernels, by this crate's
//! build.rs with `rocjit::build`), registered at start and compiled by rocjit at first
//! use: once per machine, every later run and process is served from rocjit's cache.
//!
//!   candle_device                      launch affine, usqr and urelu on the GPU, from
//!                                      clones of the device on two threads, on a stream
//!                                      of its own, and check the results against the
//!                                      CPU; "SKIP: no GPU" (exit 0) without one
//!   candle_device --compile-only [--target T]...
//!                                      compile every module for T (default gfx90a) with
//!                                      no GPU, and check its kernels and resources
//!
//! tests/candle_device.rs runs both.  rocjit does not allocate device memory: the example
//! loads the vendor's driver itself (libcuda.so.1 on NVIDIA, libamdhip64.so on AMD) with
//! dlopen, through the tiny FFI in `mod gpu` below (alloc, copy, stream, synchronize).  On
//! NVIDIA, rocjit loads kernels into the device's primary context, which the example makes
//! current.  The cache is rocjit's default ($ROCJIT_CACHE_DIR, else ~/.cache/rocjit).
use rocjit::{Context, DevicePtr, Kernel, Platform, RegisteredOptions};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

mod kernels {
    include!(concat!(env!("OUT_DIR"), "/rocjit_kernels.rs"));

    /// The module names: the embedded files' names.
    pub const AFFINE: &str = "affine.hip";
    pub const UNARY: &str = "unary.hip";
    pub const ALL: [(&str, &[&str]); 2] =
        [(AFFINE, &["affine_f32"]), (UNARY, &["usqr_f32", "urelu_f32"])];
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The device (Candle's `CudaDevice` with its `get_or_load_func`): the rocjit context of
/// one GPU and a map of loaded functions shared by every clone, filled from rocjit on a
/// miss.  rocjit has a table of its own (a repeat request is a hash and a lookup); the
/// map only saves even that.
#[derive(Clone)]
pub struct Device {
    ctx: Arc<Context>,
    funcs: Arc<RwLock<HashMap<(&'static str, &'static str), Kernel>>>,
}

/// What Candle asks of its device type; a borrowed kernel would fail it.
fn assert_device_bounds<T: Clone + Send + Sync + 'static>() {}

impl Device {
    /// The device `ordinal` of `platform`; needs no GPU until a function is loaded.
    pub fn new(platform: Platform, ordinal: i32) -> rocjit::Result<Device> {
        assert_device_bounds::<Device>();
        kernels::register_kernels()?;
        let ctx = Context::builder().platform(platform).device(ordinal).open()?;
        Ok(Device { ctx: Arc::new(ctx), funcs: Arc::new(RwLock::new(HashMap::new())) })
    }

    /// The function `func` of the module `module` (an embedded kernel file), loaded on
    /// this device: from the map, else from rocjit (its table, its cache, or a compile).
    /// The kernel is the caller's to keep, send to another thread, or store.
    pub fn get_or_load_func(
        &self,
        module: &'static str,
        func: &'static str,
    ) -> rocjit::Result<Kernel> {
        if let Some(k) = self.funcs.read().unwrap().get(&(module, func)) {
            return Ok(k.clone());
        }
        let k = self.ctx.kernel_registered(module, func, &RegisteredOptions::new())?;
        self.funcs.write().unwrap().entry((module, func)).or_insert_with(|| k.clone());
        Ok(k)
    }

    /// Compiles every module for `target` with no GPU (the prewarm path) and checks that
    /// each has its functions, with the resources a launcher sizes blocks by.
    pub fn compile_all(&self, target: &str) -> Result<()> {
        for (module, funcs) in kernels::ALL {
            let code =
                self.ctx.compile_registered(Some(target), module, &RegisteredOptions::new())?;
            let all = code.all_resources()?;
            for f in funcs {
                let r = match all.iter().find(|(k, _)| k == f) {
                    Some((_, r)) => r,
                    None => return Err(format!("{} for {} lacks {}", module, target, f).into()),
                };
                if r.registers == 0 || r.param_bytes < 24 || r.wavefront == 0 {
                    return Err(
                        format!("{} for {}: implausible resources {:?}", f, target, r).into()
                    );
                }
                println!(
                    "{} {} -> {}: {} registers, {} bytes of arguments, warp {}, {}",
                    target,
                    f,
                    code.target(),
                    r.registers,
                    r.param_bytes,
                    r.wavefront,
                    if code.from_cache() { "from the cache" } else { "compiled" }
                );
            }
        }
        Ok(())
    }
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5 * y.abs().max(1.0))
}

fn run_on_gpu(platform: Platform) -> Result<()> {
    let gpu = gpu::Gpu::open(platform, 0)?;
    let device = Device::new(platform, 0)?;
    println!("device 0: {} ({})", rocjit::device_target(platform, 0)?, platform.name());

    let n: usize = 100_003;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5 - 250.0).collect();
    let bytes = n * std::mem::size_of::<f32>();
    let dx: DevicePtr<f32> = DevicePtr::from_addr(gpu.alloc(bytes)?);
    let dy: DevicePtr<f32> = DevicePtr::from_addr(gpu.alloc(bytes)?);
    let dz: DevicePtr<f32> = DevicePtr::from_addr(gpu.alloc(bytes)?);
    gpu.htod(dx.addr(), &x)?;

    // Clones of the device load the functions on other threads, as Candle's ops do; the
    // kernels come back to this one, which launches them.
    let loaders: Vec<_> = [
        (kernels::AFFINE, "affine_f32"),
        (kernels::UNARY, "usqr_f32"),
        (kernels::UNARY, "urelu_f32"),
    ]
    .iter()
    .map(|&(m, f)| {
        let d = device.clone();
        std::thread::spawn(move || d.get_or_load_func(m, f))
    })
    .collect();
    let mut loaded = Vec::new();
    for t in loaders {
        loaded.push(t.join().expect("a loader thread panicked")?);
    }
    let (affine, usqr, urelu) = (&loaded[0], &loaded[1], &loaded[2]);
    let b = affine.suggested_block_size(0, 256)?;
    let block = b.block_threads.max(32);
    let grid = ((n as u32) + block - 1) / block;
    let (mul, add) = (2.0f32, 1.0f32);
    let stream = gpu.stream();
    // SAFETY: the arguments are the kernels' parameters (size_t n, const float *x,
    // float *y[, float mul, float add]); the buffers hold n floats on this device and
    // outlive the launches (synchronized below); stream is a live stream of the device.
    unsafe {
        affine.launch(grid, block, 0, stream, &rocjit::args![&n, &dx, &dy, &mul, &add])?;
        usqr.launch(grid, block, 0, stream, &rocjit::args![&n, &dy, &dz])?;
        urelu.launch(grid, block, 0, stream, &rocjit::args![&n, &dx, &dy])?;
    }
    gpu.sync()?;
    let mut relu = vec![0f32; n];
    let mut sqr = vec![0f32; n];
    gpu.dtoh(&mut relu, dy.addr())?;
    gpu.dtoh(&mut sqr, dz.addr())?;
    for p in [dx, dy, dz] {
        gpu.free(p.addr());
    }

    let want_sqr: Vec<f32> = x.iter().map(|v| (v * mul + add) * (v * mul + add)).collect();
    let want_relu: Vec<f32> = x.iter().map(|v| v.max(0.0)).collect();
    if !close(&sqr, &want_sqr) || !close(&relu, &want_relu) {
        return Err("FAIL: the GPU's results differ from the CPU's".into());
    }
    // A second ask is served by the map: rocjit is not even asked.
    let again = device.get_or_load_func(kernels::AFFINE, "affine_f32")?;
    assert_eq!(again.as_raw(), affine.as_raw());
    let native = again.native()?;
    assert!(!native.function.is_null() && native.platform == platform);
    // The kernels outlive the device and every handle of the context: they hold it open.
    let s = device.ctx.stats()?;
    drop(device);
    assert_eq!(again.name(), "affine_f32");
    println!(
        "OK: affine -> usqr and relu over {} floats match the CPU (block {}); rocjit: {} compiled, {} from the disk cache, {} from memory",
        n, block, s.compiles, s.disk_hits, s.memory_hits
    );
    Ok(())
}

fn usage() -> ! {
    eprintln!("usage: candle_device [--compile-only [--target T]...]");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("--compile-only") {
        let mut targets = Vec::new();
        let mut it = args[1..].iter();
        while let Some(a) = it.next() {
            match (a.as_str(), it.next()) {
                ("--target", Some(t)) => targets.push(t.clone()),
                _ => usage(),
            }
        }
        if targets.is_empty() {
            targets.push("gfx90a".into());
        }
        Device::new(Platform::Auto, 0)
            .map_err(|e| e.into())
            .and_then(|d| targets.iter().try_for_each(|t| d.compile_all(t)))
    } else if !args.is_empty() {
        usage()
    } else {
        let nvidia = rocjit::device_count(Platform::Nvidia).unwrap_or(0);
        let amd = rocjit::device_count(Platform::Amd).unwrap_or(0);
        if nvidia == 0 && amd == 0 {
            println!("SKIP: no GPU (rocjit sees no NVIDIA or AMD device; --compile-only compiles without one)");
            return;
        }
        run_on_gpu(if nvidia > 0 { Platform::Nvidia } else { Platform::Amd })
    };
    if let Err(e) = result {
        eprintln!("candle_device: {}", e);
        std::process::exit(1);
    }
}

/// Just enough of the CUDA driver API / HIP runtime, loaded with dlopen, to allocate,
/// copy, make a stream and wait for it.  Not part of rocjit (its API has no memory
/// calls): a framework has these already (Candle: cudarc).
mod gpu {
    use rocjit::Platform;
    use std::ffi::{CStr, CString};
    use std::os::raw::{c_char, c_int, c_uint, c_void};

    #[link(name = "dl")]
    extern "C" {
        fn dlopen(file: *const c_char, flags: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
        fn dlerror() -> *const c_char;
    }
    const RTLD_NOW: c_int = 2;

    type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

    struct Lib(*mut c_void, &'static str);

    impl Lib {
        fn open(names: &[&'static str]) -> Res<Lib> {
            for n in names {
                let c = CString::new(*n).unwrap();
                // SAFETY: a NUL-terminated name.
                let h = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
                if !h.is_null() {
                    return Ok(Lib(h, n));
                }
            }
            // SAFETY: dlerror's string is valid until the next dl call.
            let why = unsafe { CStr::from_ptr(dlerror()) }.to_string_lossy().into_owned();
            Err(format!("cannot load {:?}: {}", names, why).into())
        }

        /// The symbol as a function pointer of type F.
        /// SAFETY: F must be the symbol's C signature.
        unsafe fn sym<F: Copy>(&self, name: &str) -> Res<F> {
            let c = CString::new(name).unwrap();
            let p = dlsym(self.0, c.as_ptr());
            if p.is_null() {
                return Err(format!("{} lacks {}", self.1, name).into());
            }
            Ok(std::mem::transmute_copy::<*mut c_void, F>(&p))
        }
    }

    type Rc = c_int; // CUresult, hipError_t: 0 is success
    struct Cuda {
        mem_alloc: unsafe extern "C" fn(*mut u64, usize) -> Rc,
        mem_free: unsafe extern "C" fn(u64) -> Rc,
        htod: unsafe extern "C" fn(u64, *const c_void, usize) -> Rc,
        dtoh: unsafe extern "C" fn(*mut c_void, u64, usize) -> Rc,
        stream_sync: unsafe extern "C" fn(*mut c_void) -> Rc,
    }
    struct Hip {
        malloc: unsafe extern "C" fn(*mut *mut c_void, usize) -> Rc,
        free: unsafe extern "C" fn(*mut c_void) -> Rc,
        memcpy: unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int) -> Rc,
        stream_sync: unsafe extern "C" fn(*mut c_void) -> Rc,
    }
    enum Api {
        Cuda(Cuda),
        Hip(Hip),
    }

    /// One device, made current on this thread, and a stream of its own.
    pub struct Gpu {
        api: Api,
        stream: *mut c_void,
    }

    fn ok(rc: Rc, what: &str) -> Res<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(format!("{} failed with error {}", what, rc).into())
        }
    }

    impl Gpu {
        pub fn open(platform: Platform, device: c_int) -> Res<Gpu> {
            // SAFETY: each symbol is given its documented C signature.
            unsafe {
                if platform == Platform::Nvidia {
                    let l = Lib::open(&["libcuda.so.1", "libcuda.so"])?;
                    let init: unsafe extern "C" fn(c_uint) -> Rc = l.sym("cuInit")?;
                    let dev_get: unsafe extern "C" fn(*mut c_int, c_int) -> Rc =
                        l.sym("cuDeviceGet")?;
                    let retain: unsafe extern "C" fn(*mut *mut c_void, c_int) -> Rc =
                        l.sym("cuDevicePrimaryCtxRetain")?;
                    let set_current: unsafe extern "C" fn(*mut c_void) -> Rc =
                        l.sym("cuCtxSetCurrent")?;
                    let stream_create: unsafe extern "C" fn(*mut *mut c_void, c_uint) -> Rc =
                        l.sym("cuStreamCreate")?;
                    ok(init(0), "cuInit")?;
                    let mut dev = 0;
                    ok(dev_get(&mut dev, device), "cuDeviceGet")?;
                    // rocjit loads kernels into the primary context: use the same one.
                    let mut pctx = std::ptr::null_mut();
                    ok(retain(&mut pctx, dev), "cuDevicePrimaryCtxRetain")?;
                    ok(set_current(pctx), "cuCtxSetCurrent")?;
                    let mut stream = std::ptr::null_mut();
                    ok(stream_create(&mut stream, 0), "cuStreamCreate")?;
                    let api = Api::Cuda(Cuda {
                        mem_alloc: l.sym("cuMemAlloc_v2")?,
                        mem_free: l.sym("cuMemFree_v2")?,
                        htod: l.sym("cuMemcpyHtoD_v2")?,
                        dtoh: l.sym("cuMemcpyDtoH_v2")?,
                        stream_sync: l.sym("cuStreamSynchronize")?,
                    });
                    Ok(Gpu { api, stream })
                } else {
                    let l = Lib::open(&["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"])?;
                    let set_device: unsafe extern "C" fn(c_int) -> Rc = l.sym("hipSetDevice")?;
                    let stream_create: unsafe extern "C" fn(*mut *mut c_void) -> Rc =
                        l.sym("hipStreamCreate")?;
                    ok(set_device(device), "hipSetDevice")?;
                    let mut stream = std::ptr::null_mut();
                    ok(stream_create(&mut stream), "hipStreamCreate")?;
                    let api = Api::Hip(Hip {
                        malloc: l.sym("hipMalloc")?,
                        free: l.sym("hipFree")?,
                        memcpy: l.sym("hipMemcpy")?,
                        stream_sync: l.sym("hipStreamSynchronize")?,
                    });
                    Ok(Gpu { api, stream })
                }
            }
        }

        /// The caller's stream, as rocjit's launch takes it.
        pub fn stream(&self) -> *mut c_void {
            self.stream
        }

        pub fn alloc(&self, bytes: usize) -> Res<u64> {
            // SAFETY: out-pointers to locals.
            unsafe {
                match &self.api {
                    Api::Cuda(c) => {
                        let mut p = 0u64;
                        ok((c.mem_alloc)(&mut p, bytes), "cuMemAlloc")?;
                        Ok(p)
                    }
                    Api::Hip(h) => {
                        let mut p = std::ptr::null_mut();
                        ok((h.malloc)(&mut p, bytes), "hipMalloc")?;
                        Ok(p as u64)
                    }
                }
            }
        }

        pub fn free(&self, p: u64) {
            // SAFETY: p came from alloc; failures at the end are not worth reporting.
            unsafe {
                match &self.api {
                    Api::Cuda(c) => (c.mem_free)(p),
                    Api::Hip(h) => (h.free)(p as *mut c_void),
                };
            }
        }

        /// Copies host to device (synchronous with the host).
        pub fn htod(&self, dst: u64, src: &[f32]) -> Res<()> {
            let bytes = std::mem::size_of_val(src);
            // SAFETY: src has bytes readable bytes; dst was allocated with at least as many.
            unsafe {
                match &self.api {
                    Api::Cuda(c) => {
                        ok((c.htod)(dst, src.as_ptr() as *const c_void, bytes), "cuMemcpyHtoD")
                    }
                    Api::Hip(h) => ok(
                        (h.memcpy)(dst as *mut c_void, src.as_ptr() as *const c_void, bytes, 1),
                        "hipMemcpy",
                    ),
                }
            }
        }

        /// Copies device to host (synchronous with the host).
        pub fn dtoh(&self, dst: &mut [f32], src: u64) -> Res<()> {
            let bytes = std::mem::size_of_val(dst);
            // SAFETY: dst has bytes writable bytes; src holds at least as many.
            unsafe {
                match &self.api {
                    Api::Cuda(c) => {
                        ok((c.dtoh)(dst.as_mut_ptr() as *mut c_void, src, bytes), "cuMemcpyDtoH")
                    }
                    Api::Hip(h) => ok(
                        (h.memcpy)(dst.as_mut_ptr() as *mut c_void, src as *const c_void, bytes, 2),
                        "hipMemcpy",
                    ),
                }
            }
        }

        /// Waits for the stream; a fault in a kernel surfaces here.
        pub fn sync(&self) -> Res<()> {
            // SAFETY: a live stream.
            unsafe {
                match &self.api {
                    Api::Cuda(c) => ok((c.stream_sync)(self.stream), "cuStreamSynchronize"),
                    Api::Hip(h) => ok((h.stream_sync)(self.stream), "hipStreamSynchronize"),
                }
            }
        }
    }
}

//! The library's rocjit_*_init functions against the Rust copies of the _INIT macros.
use rocjit_sys::*;
use std::mem::MaybeUninit;

#[test]
fn the_initialisers_agree_with_the_library() {
    // What rocjit_*_init sets equals the Rust init() copies of the _INIT macros.
    unsafe {
        let mut o = MaybeUninit::<rocjit_options>::zeroed();
        assert_eq!(rocjit_options_init(o.as_mut_ptr(), ROCJIT_OPTIONS_VERSION), 0);
        let o = o.assume_init();
        let r = rocjit_options::init();
        assert_eq!(
            (o.version, o.platform, o.device, o.flags, o.require_signed),
            (r.version, r.platform, r.device, r.flags, r.require_signed)
        );
        assert!(o.cache_dir.is_null() && o.target.is_null() && o.remote.is_null());

        let mut p = MaybeUninit::<rocjit_program>::zeroed();
        assert_eq!(rocjit_program_init(p.as_mut_ptr(), ROCJIT_PROGRAM_VERSION), 0);
        let p = p.assume_init();
        assert_eq!(p.version, ROCJIT_PROGRAM_VERSION);
        assert_eq!(p.language, ROCJIT_LANG_AUTO);
        assert_eq!(p.header_size, std::mem::size_of::<rocjit_header>());

        let mut c = rocjit_counters::default();
        assert_eq!(rocjit_counters_init(&mut c, ROCJIT_COUNTERS_VERSION), 0);
        assert_eq!(c.version, ROCJIT_COUNTERS_VERSION);
        assert_eq!(rocjit_counters_init(&mut c, 0), ROCJIT_EINVAL);
        assert_eq!(rocjit_counters_init(&mut c, ROCJIT_COUNTERS_VERSION + 1), ROCJIT_EINVAL);

        let mut s = rocjit_stats::init();
        s.version = 0;
        assert_eq!(rocjit_stats_init(&mut s, ROCJIT_STATS_VERSION), 0);
        assert_eq!(s.version, ROCJIT_STATS_VERSION);

        let mut f = MaybeUninit::<rocjit_prefetch_options>::zeroed();
        assert_eq!(
            rocjit_prefetch_options_init(f.as_mut_ptr(), ROCJIT_PREFETCH_OPTIONS_VERSION),
            0
        );
        let f = f.assume_init();
        let r = rocjit_prefetch_options::init();
        assert_eq!((f.version, f.threads, f.item_size), (r.version, r.threads, r.item_size));
        assert_eq!(f.item_size, std::mem::size_of::<rocjit_prefetch_item>());

        let mut ps = rocjit_prefetch_status::default();
        assert_eq!(rocjit_prefetch_status_init(&mut ps, ROCJIT_PREFETCH_STATUS_VERSION), 0);
        let r = rocjit_prefetch_status::init();
        assert_eq!((ps.version, ps.total, ps.finished), (r.version, r.total, r.finished));
        assert_eq!(rocjit_prefetch_status_init(&mut ps, 0), ROCJIT_EINVAL);
        assert_eq!(
            rocjit_prefetch_status_init(&mut ps, ROCJIT_PREFETCH_STATUS_VERSION + 1),
            ROCJIT_EINVAL
        );

        // Issue 29: the structs a kernel's native handles and resources are read into.
        let mut n = MaybeUninit::<rocjit_kernel_native>::uninit();
        std::ptr::write_bytes(n.as_mut_ptr(), 0xa5, 1);
        assert_eq!(rocjit_kernel_native_init(n.as_mut_ptr(), ROCJIT_KERNEL_NATIVE_VERSION), 0);
        let n = n.assume_init();
        let r = rocjit_kernel_native::init();
        assert_eq!((n.version, n.platform, n.device), (r.version, r.platform, r.device));
        assert!(n.function.is_null() && n.module.is_null());

        let mut k = rocjit_kernel_resources { max_threads: 7, ..Default::default() };
        assert_eq!(rocjit_kernel_resources_init(&mut k, ROCJIT_KERNEL_RESOURCES_VERSION), 0);
        assert_eq!(k, rocjit_kernel_resources::init());
        assert_eq!(rocjit_kernel_resources_init(&mut k, 0), ROCJIT_EINVAL);
    }
}

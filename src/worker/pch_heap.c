/*
 * pch_heap.c - NVRTC's PCH heap at one fixed address in every compile worker.  Linked
 * into rocjit-worker only (CMakeLists.txt), never into the library or an application.
 *
 * A precompiled header made by NVRTC is an image of its PCH heap with pointers into it,
 * and NVRTC uses one only in a process whose heap has the address the file was made at
 * (warning #20282 otherwise).  NVRTC maps the heap with mmap(NULL, size, ...), which
 * address-space randomization places anywhere, so a file made by one worker would be of
 * no use to the next.  The worker's own mmap (this executable's, which the dynamic linker
 * binds libnvrtc's mmap calls to) asks for RJ_PCH_HEAP_ADDR when the call is that one
 * - an anonymous private mapping of the armed size with no address - and for anything
 * else, or when the address is taken, maps as asked.  Measured on the CPU box: the
 * address was free in every worker; a worker that finds it taken compiles without PCH.
 *
 * Left out of sanitizer builds, whose runtimes intercept mmap themselves and (ThreadSan)
 * reserve this part of the address space: workers there compile without PCH.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compile/pch.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RJ_NO_PCH_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RJ_NO_PCH_HEAP 1
#endif
#endif

#if !defined(RJ_NO_PCH_HEAP) && (defined(__x86_64__) || defined(__aarch64__))

/* 126 TiB: below where Linux puts libraries and stacks (the top of the 47-bit user space,
   less up to 1 TiB of randomization), far above the program's heap. */
#define RJ_PCH_HEAP_ADDR ((void *)0x7e0000000000ull)

static atomic_size_t armed;  /* the heap's size, 0 until a compile arms it */
static atomic_int placed;    /* 1 once the heap is mapped at RJ_PCH_HEAP_ADDR */
static atomic_int misplaced; /* 1 when the heap was mapped elsewhere: PCH is off */

static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	size_t want = atomic_load_explicit(&armed, memory_order_relaxed);

	/* Only the first such mapping: once the heap is placed, a later one of the same size
	   (NVRTC's own remap at the address, or anything else) maps as asked. */
	if (want && !addr && len == want && (flags & MAP_ANONYMOUS) &&
	    (flags & MAP_PRIVATE) && !(flags & MAP_FIXED) && !atomic_load(&placed) &&
	    !atomic_load(&misplaced)) {
		void *p = sys_mmap(RJ_PCH_HEAP_ADDR, len, prot, flags | MAP_FIXED_NOREPLACE, fd,
				   off);
		if (p == RJ_PCH_HEAP_ADDR) {
			atomic_store(&placed, 1);
			return p;
		}
		/* Taken (or a kernel before 4.17, which took the flag as a hint). */
		if (p != MAP_FAILED)
			syscall(SYS_munmap, p, len);
		atomic_store(&misplaced, 1);
	}
	return sys_mmap(addr, len, prot, flags, fd, off);
}

/* glibc's other name for it, should a library call that one. */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int rj_pch_heap_placed(void)
{
	return atomic_load(&placed);
}

int rj_pch_heap_arm(size_t len)
{
	size_t zero = 0;

	if (!len)
		return 0;
	if (!atomic_compare_exchange_strong(&armed, &zero, len) && zero != len)
		return 0; /* armed for another size: the heap is mapped already */
	return !atomic_load(&misplaced);
}

#endif

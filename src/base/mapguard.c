/*
 * mapguard.c - a file another party can shrink never crashes the process that maps it
 * (issue 27).  Owns the process's SIGBUS handler and the table of the mappings it guards;
 * knows nothing of what is mapped (the read index, cache_index.c, is the one user).
 *
 * The hazard: a MAP_SHARED mapping of a file outlives the file's length.  Once the file is
 * truncated (a group member in shared mode, the user's own `cp` over it: O_TRUNC), an
 * access to a page past its new end raises SIGBUS, whose default action ends the process -
 * on a plain cache hit, in a job that did nothing wrong.  No check before the access can
 * prevent it (the truncation can come between the check and the access).
 *
 * Two designs were weighed (bench/RESULTS.md, issue 27, has the figures):
 *  (b) read the file with pread into private memory instead of mapping it.  It works for
 *      the entries and their code, but not for the usage board, which every process updates
 *      with atomic operations through a shared writable mapping (cross-process counters
 *      without a lock, and without the flusher thread or a connection on the hit path).  A
 *      board kept mapped needs the handler below anyway, and the slots and memos would be
 *      read into private memory at open, and each entry with a system call at each hit.
 *  (a) keep the mapping, and make the fault harmless: this file.  A process-wide handler,
 *      installed once, that for a fault inside a guarded mapping marks it broken, then maps
 *      anonymous zero pages over the whole of it (MAP_FIXED, as Wayland's wl_shm does for
 *      client pools) and returns, so the access completes (reading zeros, or writing to
 *      memory no file sees).  It covers the board and the rest with one mechanism, and adds
 *      to the hit path an atomic load per lookup and the copy of the code the caller now
 *      gets (cache_index.c; needed by either design, since the caller keeps the code).
 * Chosen: (a): the first request of a new process measured +1.3% and +4.2% (two runs on
 * a loaded box), a hit about 5 us more, nearly all the copy's fresh pages.  The rule for readers: take from the mapping (copy, check a checksum), then
 * ask rj_mapguard_broken(); a broken mapping is a miss, never partly-zeroed code.  The mark
 * is set before the zero pages appear, so a reader that saw a zero byte sees the mark.
 *
 * The table is fixed (GUARD_SLOTS) and read by the handler with atomic loads only: a slot
 * is LIVE once its place and size are stored, and taken out of LIVE before they change.
 * Faults not in the table, and signals sent by kill(), go to the handler that was there
 * before ours (a sanitizer's, the application's), or to the default action (the process
 * ends with SIGBUS as it would have).  An application that installs its own SIGBUS handler
 * after rocjit's first mapping must chain to the one it replaced, as with any library that
 * handles faults (the JVM's signal chaining, libsigsegv).
 */
#include "base/mapguard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Mappings guarded at once: a cache maps its index, a reader or writer briefly a second
 * (its board), and a process opens few caches. */
#define GUARD_SLOTS 64

enum { FREE, CLAIMED, LIVE };

struct guard {
	int state;              /* FREE, CLAIMED (being filled or emptied), LIVE */
	int broken;             /* a fault past the file's end: now zero pages */
	uintptr_t start;
	size_t len;
};

static struct guard table[GUARD_SLOTS];
static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed;

/*
 * The fault is not ours: what would have happened without us.  A handler that was there
 * runs (a sanitizer's reports it); with none, the default is restored and the fault taken
 * again on return (the faulting access re-executes), or the signal re-raised when it was
 * sent rather than caused.
 */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (previous.sa_flags & SA_SIGINFO) {
		if (previous.sa_sigaction) {
			previous.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		raise(sig); /* sent (kill, raise): pending until we return */
}

/*
 * The handler.  Async-signal-safe: atomic loads and stores, and the mmap system call made
 * directly (no sanitizer's interceptor runs inside a signal).  The mark is stored first.
 * Only a fault the kernel raised (si_code > 0: BUS_ADRERR past a file's end) counts.
 */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uintptr_t a = (uintptr_t)si->si_addr;

	for (int i = 0; si->si_code > 0 && i < GUARD_SLOTS; i++) {
		struct guard *g = &table[i];
		uintptr_t start;
		size_t len;
		long p;

		if (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != LIVE)
			continue;
		start = __atomic_load_n(&g->start, __ATOMIC_RELAXED);
		len = __atomic_load_n(&g->len, __ATOMIC_RELAXED);
		if (a < start || a - start >= len)
			continue;
		__atomic_store_n(&g->broken, 1, __ATOMIC_SEQ_CST);
		p = syscall(SYS_mmap, (void *)start, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		errno = saved;
		if ((uintptr_t)p == start)
			return;
		break; /* no memory for the zero pages: as if unguarded */
	}
	errno = saved;
	chain(sig, si, uc);
}

static void install(void)
{
	struct sigaction sa;

	if (sigaction(SIGBUS, NULL, &previous) != 0)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, NULL) == 0;
}

int rj_mapguard_add(void *addr, size_t len)
{
	pthread_once(&once, install);
	if (!installed || !addr || len == 0)
		return -1;
	for (int i = 0; i < GUARD_SLOTS; i++) {
		struct guard *g = &table[i];
		int free_state = FREE;

		if (!__atomic_compare_exchange_n(&g->state, &free_state, CLAIMED, 0,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&g->start, (uintptr_t)addr, __ATOMIC_RELAXED);
		__atomic_store_n(&g->len, len, __ATOMIC_RELAXED);
		__atomic_store_n(&g->broken, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&g->state, LIVE, __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

void rj_mapguard_remove(int guard)
{
	struct guard *g;

	if (guard < 0 || guard >= GUARD_SLOTS)
		return;
	g = &table[guard];
	__atomic_store_n(&g->state, CLAIMED, __ATOMIC_SEQ_CST);
	__atomic_store_n(&g->len, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g->start, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g->state, FREE, __ATOMIC_RELEASE);
}

int rj_mapguard_broken(int guard)
{
	return guard >= 0 && guard < GUARD_SLOTS &&
	       __atomic_load_n(&table[guard].broken, __ATOMIC_SEQ_CST);
}

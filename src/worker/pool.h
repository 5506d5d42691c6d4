/*
 * pool.h - compiling in worker processes: the tier between the request path and the
 * platforms' compilers (README "Compile workers").
 *
 * The request path (request/lookup.c) hands every compile to rj_worker_compile, which
 * runs it in a `rocjit-worker` process of this process's pool, or in this process when
 * workers are off.  Process-wide: one pool serves every context; a forked child starts
 * its own.  Any thread; compiles run in parallel up to the pool's size.
 */
#ifndef ROCJIT_POOL_H
#define ROCJIT_POOL_H

#include <stdint.h>

#include "compile/platform.h"

/* How a compile ran: in a worker, and what the worker itself spent in the compiler. */
struct rj_worker_run {
	int in_worker;      /* 1: a worker compiled it; 0: this process did      */
	double compiler_ms; /* the compile as timed inside the worker (0 if not)  */
	int lost;           /* the worker died or was stopped: the error says how */
};

/*
 * Compiles req for target on platform p, in a worker unless in_process is set (or
 * $ROCJIT_COMPILE_INPROCESS is on, or no worker can be found: then with a warning once).
 * compiler is the identity the request's key holds; the worker refuses to compile with
 * another.  Fills out as p->compile does (the caller frees its members).
 *
 * A worker that dies (a signal: the compiler aborted or crashed), runs past
 * $ROCJIT_COMPILE_TIMEOUT or past $ROCJIT_COMPILE_MEMORY_MB fails this request with
 * ROCJIT_ECOMPILE and a message naming the signal or the limit, and is replaced at the
 * next compile.  Returns what p->compile returns, or ROCJIT_ECOMPILE as above, or
 * ROCJIT_ENOCOMPILER when $ROCJIT_WORKER names a worker that cannot be started.
 */
int rj_worker_compile(const struct rj_platform *p, const char *target, const char *compiler,
		      const struct rj_compile_req *req, struct rj_compile_out *out,
		      int in_process, struct rj_worker_run *run);

/* The pool's counters since the process started (a forked child counts its own). */
struct rj_worker_counts {
	uint64_t started;  /* worker processes started                                */
	uint64_t lost;     /* workers that died, or were stopped for a limit, mid-compile */
	int running;       /* workers alive now                                         */
	int max;           /* the pool's size ($ROCJIT_WORKERS, else the CPUs usable)    */
};
void rj_worker_counts(struct rj_worker_counts *out);

/* The pool's size: $ROCJIT_WORKERS, else the CPUs this process may run on. */
int rj_worker_max(void);

/* The worker's entry point (rocjit_worker.c's main calls it). */
int rj_worker_serve(int argc, char **argv);

#endif

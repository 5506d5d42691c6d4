/*
 * process.h - one compile worker process as its parent sees it (process.c); pool.c keeps
 * the table of them and decides which thread uses which.
 */
#ifndef ROCJIT_PROCESS_H
#define ROCJIT_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RJ_WORKER_NAME "rocjit-worker"
#define RJ_WTAIL_MAX 4096 /* what is kept of a worker's own output, for a failure's message */

/* A worker, or a free slot of the pool.  busy is read and written under the pool's lock;
 * while busy, the other fields belong to the thread that set it (starting the worker, or
 * compiling), so other threads read them only in slots they found idle. */
struct rj_wproc {
	pid_t pid;   /* 0: no worker                                                      */
	int sock;    /* the channel                                                       */
	int out;     /* read end of the worker's stdout and stderr (non-blocking)         */
	int busy;    /* a thread is using it (or starting it)                             */
	char tmp[48]; /* its private temporary folder, in rj_wproc_tmp_base(); "" none     */
};

/* What a worker printed, its last RJ_WTAIL_MAX bytes. */
struct rj_wtail {
	char text[RJ_WTAIL_MAX + 1];
	size_t len;
};

struct rj_wlimits {
	double deadline_ms;  /* rj_now_ms() past which the worker is stopped; 0: none       */
	uint64_t memory_mib; /* resident memory past which it is stopped; 0: none          */
};

enum rj_wend { RJ_WEND_FRAME, RJ_WEND_DIED, RJ_WEND_TIMEOUT, RJ_WEND_MEMORY };

/*
 * Starts the worker executable path into w (a slot the caller holds) for platform, and
 * reads its greeting (it loads its compiler first) within lim (its deadline and memory
 * limit: the request's).  The worker runs with a private temporary folder (TMPDIR, mode
 * 0700, removed when it ends: rj_wproc_retire) and without the environment variables that
 * would change what its compiler reads (compile/inputs.h).  *started: 1 when a process
 * was started, whether or not it then greeted.  0, or ROCJIT_EIO / ROCJIT_ENOCOMPILER
 * with a message saying what to do (w left without a worker).
 */
int rj_wproc_spawn(struct rj_wproc *w, const char *path, int platform,
		   const struct rj_wlimits *lim, int *started);

/* The folder the workers' private temporary folders are made in: $TMPDIR when it is an
 * absolute path, else /tmp; chosen once per process. */
const char *rj_wproc_tmp_base(void);

/*
 * Removes the temporary folders of workers whose parent process is gone (a crash, a
 * SIGKILL: nothing removed them), owned by this user, in rj_wproc_tmp_base().  Once per
 * process; any thread.
 */
void rj_wproc_sweep_stale(void);

/* In a worker whose parent is gone: removes its own temporary folder ($TMPDIR, when it is
 * the private one the parent pid made for it), so that a crashed parent leaves nothing
 * even when no later process sweeps. */
void rj_wproc_remove_own_tmp(pid_t parent);

/* Receives one frame from w with the limits applied, collecting what it prints into t.
 * RJ_WEND_FRAME with *payload malloc'ed; otherwise nothing to free. */
enum rj_wend rj_wproc_receive(struct rj_wproc *w, const struct rj_wlimits *lim,
			      struct rj_wtail *t, char **payload, size_t *len);

/* Reads what a worker printed so far (fd non-blocking) into t (NULL: discarded). */
void rj_wproc_drain(int fd, struct rj_wtail *t);

/* Whether an idle worker is still there (it sends nothing between requests). */
int rj_wproc_idle_alive(const struct rj_wproc *w);

/* Closes w's ends, kills it if asked (else gives it a moment to end, then kills it: the
 * wait is bounded), reaps it and removes its temporary folder; its wait status, or -1
 * when another waiter of this process took it.  w is left without a worker. */
int rj_wproc_retire(struct rj_wproc *w, int kill_it);

/* The last line of what the worker printed ("LLVM ERROR: ..."), for a message. */
void rj_wproc_last_line(char *out, size_t size, const struct rj_wtail *t);

/* A worker's end status in words: "was killed by signal 6 (SIGABRT)". */
void rj_wproc_describe_status(char *out, size_t size, int status);

#endif

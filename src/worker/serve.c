/*
 * serve.c - the compile worker's side: the loop `rocjit-worker` runs (rocjit_worker.c is
 * only its main).
 *
 * A worker is a process of its own so that whatever the compiler does to a process
 * (abort on an LLVM error, crash, exhaust memory, never return) ends the worker and not
 * the application; and so that hipRTC, which is not thread-safe, compiles in parallel
 * across workers.  It serves one request at a time until its input ends: reads a request
 * (wire.h), checks the target with the platform, compiles, answers.  The compiler is
 * loaded once, at start (--platform) or by the first request, and stays loaded.
 *
 * It checks that it compiles with the compiler the parent's key names: a worker that
 * loaded another hipRTC (another library path in its environment, an upgrade since the
 * parent started) would store code under a key that does not describe it.
 *
 * Channel: fd 0 is the socket to the parent; fds 1 and 2 go to the parent's pipe, so
 * nothing a library prints can corrupt a frame.  Owns nothing but its process; uses the
 * platforms (compile/) and the wire.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "compile/platform.h"
#include "compile/vendor_lib.h"
#include "worker/pool.h"
#include "worker/process.h"
#include "worker/wire.h"

/*
 * Ends the worker when its parent is gone (reparented: getppid changes).  The end of
 * input does that between requests; this covers a compile that would otherwise run to its
 * end for nobody.  A thread polling once a second rather than PR_SET_PDEATHSIG, which
 * fires when the parent *thread* that started the worker exits: a background thread of
 * the application may start a worker and end long before the application does.
 */
static void *watch_parent(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;

	while (getppid() == parent)
		sleep(1);
	rj_wproc_remove_own_tmp(parent); /* nobody is left to remove it */
	_exit(3);
	return NULL;
}

/* Serves one decoded request into b. */
static void serve_one(struct rj_wire_req *w, struct rj_wbuf *b)
{
	const struct rj_platform *p = rj_platform_by_id(w->platform);
	struct rj_compile_out out;
	const char *id;
	double t0 = rj_now_ms();
	int rc;

	memset(&out, 0, sizeof out);
	rj_error_clear();
	if (!p) {
		rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__, "the compile worker was "
				  "asked for platform %d, which it does not know", w->platform);
	} else if (!(id = p->compiler_id())) {
		rc = ROCJIT_ENOCOMPILER; /* the message is recorded */
	} else if (strcmp(id, w->compiler) != 0) {
		rc = rj_error_set(ROCJIT_ENOCOMPILER, __FILE__, __LINE__, "the compile worker "
				  "loaded another compiler (%s) than the process that asked "
				  "(%s): both must see the same environment (the variables that "
				  "choose the compiler's library) and the same installation", id,
				  w->compiler);
	} else if ((rc = p->target_check(w->target)) == 0) {
		rc = p->compile(w->target, &w->req, &out);
	}
	rj_wire_result(b, rc, rc ? rocjit_last_error() : "", &out,
		       w->req.num_name_expressions, rj_now_ms() - t0);
	free(out.code);
	free(out.log);
	rj_vendor_names_free(out.lowered, w->req.num_name_expressions);
}

int rj_worker_serve(int argc, char **argv)
{
	struct rj_wbuf b = { 0 };
	pthread_t watcher;
	pid_t parent;
	char *payload;
	size_t len;
	int rc;

	rj_config_warnings_said();
	rj_worker_libraries_load(); /* before the compiler loads: its parent's files */
	if (argc == 3 && strcmp(argv[1], "--platform") == 0) {
		/* The compiler loads before the greeting: a request's time limit then counts
		   the compile alone, not the loading (seconds on a loaded machine).  A failure
		   to load is answered to the first request. */
		const struct rj_platform *p = rj_platform_by_id(strcmp(argv[2], "nvidia") == 0 ?
								 ROCJIT_PLATFORM_NVIDIA :
								 ROCJIT_PLATFORM_AMD);
		(void)p->compiler_id();
		rj_wire_hello(&b);
		rc = rj_wire_send(STDIN_FILENO, &b);
		rj_wbuf_free(&b);
		if (rc != 0)
			return 1;
	} else {
		fprintf(stderr, "rocjit-worker: compiles for the rocjit library, which starts it "
			"(usage: rocjit-worker --platform amd|nvidia, a socket on stdin)\n");
		return 2;
	}
	parent = getppid();
	if (pthread_create(&watcher, NULL, watch_parent, (void *)(intptr_t)parent) == 0)
		pthread_detach(watcher);
	while ((rc = rj_wire_recv(STDIN_FILENO, &payload, &len)) == 1) {
		struct rj_wread r = { payload, len, 0, 0 };
		struct rj_wire_req w;

		if (rj_wire_request_read(&w, &r) != 0) {
			rj_wire_request_release(&w);
			free(payload);
			fprintf(stderr, "rocjit-worker: a malformed request: stopping\n");
			return 2;
		}
		serve_one(&w, &b);
		rj_wire_request_release(&w);
		free(payload);
		rc = rj_wire_send(STDIN_FILENO, &b);
		rj_wbuf_free(&b);
		if (rc != 0)
			break;
	}
	/* The channel ended: the parent removes the folder when it reaps this worker, but a
	   parent that exited without reaping never will. */
	rj_wproc_remove_own_tmp(parent);
	return rc == 0 ? 0 : 1;
}

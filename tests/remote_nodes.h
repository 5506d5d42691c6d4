/*
 * remote_nodes.h - the nodes of a fleet, for the tests of the remote tier (test_remote.c)
 * and of signed code (test_signed.c).  A node is a rocjit context on a cache folder of its
 * own, rj_test_dir/<name>, opened in the test's process or in a child process of its own;
 * such a child reports what it did (its result and counters) in a file the test reads.
 * Values on a server are read and planted with rocjit's own client (binary-safe).
 *
 * For one test process, from its main thread.  Everything here fails the test (ASSERT)
 * rather than returning an error, unless said otherwise.
 */
#ifndef ROCJIT_TEST_REMOTE_NODES_H
#define ROCJIT_TEST_REMOTE_NODES_H

#include <stddef.h>

#include "harness.h"
#include "redis_server.h"

/* url gets redis://127.0.0.1:<s's port>, followed by ?query when query is not NULL. */
void rj_node_url(char *url, size_t size, const struct rj_redis_server *s, const char *query);

/* Opens node name: cache folder rj_test_dir/<name>, remote tier url (as
 * rocjit_options.remote: NULL the environment's, "" none), the other options defaults. */
rocjit_ctx *rj_node_open(const char *name, const char *url);
/* The same with o's other options (its cache_dir and remote are the node's, not o's). */
rocjit_ctx *rj_node_open_with(const char *name, const char *url, const rocjit_options *o);
/* Starts server (its address into url), or skips the test where rocjit has no remote
 * tier (built without hiredis). */
void rj_node_start_server(struct rj_redis_server *server, char *url, size_t size);

struct rj_record;
/* The value of cache key hex on the server of url, which must be signed by signer:
 * malloc'ed, *size bytes, decoded into *rec (pointing into it). */
void *rj_node_signed_value(const char *url, const char *hex, const char *signer,
			   struct rj_record *rec, size_t *size);
/* Makes key pair name in rj_test_dir: its secret file's path into secret, its public
 * line into pub. */
void rj_node_keygen(const char *name, char secret[4400], char pub[256]);
/* A node with a signing rule: url NULL (no remote tier), a signing key file and a trust
 * list (NULL: none, not the environment's), require (ROCJIT_REQUIRE_SIGNED_*), flags,
 * bundles (NULL: none). */
rocjit_ctx *rj_node_open_signing(const char *name, const char *url, const char *key,
				 const char *trusted, int require, unsigned flags,
				 const char *bundles);

/* The remote tier's key of the value of cache key key (rocjit_code.key), under the
 * default prefix: rocjit:<record version>:<key>. */
void rj_node_value_key(char *out, size_t size, const char *key);

/* Sets key to size bytes (SET) on the server of url. */
void rj_node_plant(const char *url, const char *key, const void *bytes, size_t size);
/* key's value on the server of url: malloc'ed, *size bytes and a NUL after them; NULL
 * (*size untouched) when key holds no string. */
void *rj_node_fetch(const char *url, const char *key, size_t *size);
/* Plants under key value (size bytes, a sound record) with code (code_size bytes) in place
 * of its own code, every checksum recomputed and every other field kept, a signature
 * included: what someone who can write the server, and holds no key, can make. */
void rj_node_plant_swapped(const char *url, const char *key, const void *value, size_t size,
			   const void *code, size_t code_size);

/* ---- Nodes in processes of their own -------------------------------------------------- */

/*
 * Runs fn(arg) in a forked child whose stderr goes to rj_test_dir/<name>.err: the child's
 * exit status (fn's result), or 128 + the signal that ended it; the stderr text
 * (malloc'ed) in *err.  The child shares nothing with the test but what was set before
 * the fork: open no context before it, so that the node starts as a fresh process would.
 */
int rj_node_process(int (*fn)(int), int arg, const char *name, char **err);

/* What a node process did, as it reports it (rj_node_report_write). */
struct rj_node_report {
	int rc;             /* its request's result */
	int from_cache;     /* the code object's from_cache (0 when the request failed) */
	char key[33];       /* the code object's key, or "" */
	char error[1024];   /* rocjit_last_error() after a failed request, else "" */
	rocjit_stats stats; /* its context's counters after the request (all of them) */
};

/* In a node process: writes its report (the request's result rc, code object c, NULL
 * when it failed, and ctx's counters) to rj_test_dir/<name>.report.  0, or non-zero when
 * the report could not be written (the child's exit status, then). */
int rj_node_report_write(const char *name, int rc, const rocjit_code *c, rocjit_ctx *ctx);
/* In the test: the report node process name wrote (asserting that it wrote one). */
struct rj_node_report rj_node_report_read(const char *name);

#endif

/*
 * wire.h - what a compile worker and its parent say to each other, and how it is framed.
 *
 * Every message is a frame: a native uint32 payload length, then the payload, a sequence
 * of fields: uint32 numbers, doubles, and byte strings (uint32 length, the bytes, then a
 * NUL that is not counted, so a received string is a C string in place).  Both ends are
 * the same build on the same machine (the hello checks it), so native byte order is the
 * order.  The messages:
 *
 *   hello   (worker, once, at start)  RJ_WIRE_MAGIC, RJ_WIRE_PROTOCOL, rocjit's version,
 *                                     the digests of the headers it serves (amd, nvidia)
 *   request (parent)                  platform, target, compiler identity the key holds,
 *                                     name, source, language, options (packed), headers
 *                                     (name, text)..., name expressions...
 *   result  (worker)                  rc, message, log, compile ms, code, lowered names...
 *
 * Owns the encoding alone: the pool (pool.c) and the worker's loop (serve.c) use the
 * functions below and never touch the bytes.  Decoding never trusts a length: a short or
 * malformed payload sets the reader's bad flag and yields zeros and "".
 */
#ifndef ROCJIT_WIRE_H
#define ROCJIT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "compile/platform.h"

#define RJ_WIRE_MAGIC 0x726a776bu /* "rjwk" */
#define RJ_WIRE_PROTOCOL 1u
/* The largest frame either end accepts: a code object or a source of 1 GiB is an error. */
#define RJ_WIRE_FRAME_MAX (1u << 30)

struct rj_wbuf {
	char *p;
	size_t len, cap;
	int oom; /* an allocation failed: the frame is incomplete and must not be sent */
};

struct rj_wread {
	const char *p;
	size_t len, off;
	int bad;
};

void rj_wbuf_u32(struct rj_wbuf *b, uint32_t v);
void rj_wbuf_f64(struct rj_wbuf *b, double v);
void rj_wbuf_str(struct rj_wbuf *b, const char *s, size_t n);
void rj_wbuf_cstr(struct rj_wbuf *b, const char *s); /* NULL is "" */
void rj_wbuf_free(struct rj_wbuf *b);

uint32_t rj_wread_u32(struct rj_wread *r);
double rj_wread_f64(struct rj_wread *r);
/* A string in place, or "" (and r->bad set) when the payload does not hold one. */
const char *rj_wread_str(struct rj_wread *r, size_t *len);

/*
 * Sends b as one frame: 0, or -1 when the other end is gone or b is incomplete.  Never
 * raises SIGPIPE (the fd is a socket, written with MSG_NOSIGNAL).
 */
int rj_wire_send(int fd, const struct rj_wbuf *b);

/*
 * Receives one frame into *payload (malloc'ed, NUL-terminated; the caller frees it):
 * 1, 0 at a clean end of input before the first byte, -1 on a broken or oversized frame.
 * Blocks: the worker's side.  The parent reads with a deadline instead (pool.c).
 */
int rj_wire_recv(int fd, char **payload, size_t *len);

/* The hello: encodes this build's; checks a received one, 0 or -1 with *why set. */
void rj_wire_hello(struct rj_wbuf *b);
int rj_wire_hello_check(struct rj_wread *r, const char **why);

/* A compile request of the parent: platform id, target, compiler identity, then req. */
void rj_wire_request(struct rj_wbuf *b, int platform, const char *target,
		     const char *compiler, const struct rj_compile_req *req);

/*
 * A request decoded in place: every pointer points into the payload (or into the arrays
 * this allocates, released by rj_wire_request_release).  0, or -1 when malformed or out
 * of memory.
 */
struct rj_wire_req {
	int platform;
	const char *target, *compiler;
	struct rj_compile_req req;
	struct rj_opts opts;
	rocjit_header *headers;
	const char **exprs;
};
int rj_wire_request_read(struct rj_wire_req *w, struct rj_wread *r);
void rj_wire_request_release(struct rj_wire_req *w);

/* A result: rc and message (rocjit_last_error of a failure), the compile's out and the
 * time the compiler took.  Reading it back allocates out's members as a platform does. */
void rj_wire_result(struct rj_wbuf *b, int rc, const char *message,
		    const struct rj_compile_out *out, size_t num_lowered, double ms);
int rj_wire_result_read(struct rj_wread *r, int *rc, char *message, size_t message_size,
			struct rj_compile_out *out, size_t num_lowered, double *ms);

#endif

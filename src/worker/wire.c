/*
 * wire.c - the compile worker's messages (wire.h says what they hold and why).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compile/devlib.h"
#include "worker/wire.h"

/* ---- Writing ----------------------------------------------------------------------------- */

static void put(struct rj_wbuf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (n > RJ_WIRE_FRAME_MAX - b->len) {
		b->oom = 1;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2 + 256;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void rj_wbuf_u32(struct rj_wbuf *b, uint32_t v)
{
	put(b, &v, sizeof v);
}

void rj_wbuf_f64(struct rj_wbuf *b, double v)
{
	put(b, &v, sizeof v);
}

void rj_wbuf_str(struct rj_wbuf *b, const char *s, size_t n)
{
	if (n > RJ_WIRE_FRAME_MAX) {
		b->oom = 1;
		return;
	}
	rj_wbuf_u32(b, (uint32_t)n);
	put(b, s ? s : "", n);
	put(b, "", 1);
}

void rj_wbuf_cstr(struct rj_wbuf *b, const char *s)
{
	rj_wbuf_str(b, s, s ? strlen(s) : 0);
}

void rj_wbuf_free(struct rj_wbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

/* ---- Reading ----------------------------------------------------------------------------- */

static void get(struct rj_wread *r, void *out, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p + r->off, n);
	r->off += n;
}

uint32_t rj_wread_u32(struct rj_wread *r)
{
	uint32_t v;
	get(r, &v, sizeof v);
	return v;
}

double rj_wread_f64(struct rj_wread *r)
{
	double v;
	get(r, &v, sizeof v);
	return v;
}

const char *rj_wread_str(struct rj_wread *r, size_t *len)
{
	uint32_t n = rj_wread_u32(r);
	const char *s;

	if (r->bad || r->len - r->off < (size_t)n + 1 || r->p[r->off + n] != 0) {
		r->bad = 1;
		if (len)
			*len = 0;
		return "";
	}
	s = r->p + r->off;
	r->off += (size_t)n + 1;
	if (len)
		*len = n;
	return s;
}

/* ---- Frames ------------------------------------------------------------------------------ */

static int send_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int rj_wire_send(int fd, const struct rj_wbuf *b)
{
	uint32_t n = (uint32_t)b->len;

	if (b->oom)
		return -1;
	if (send_all(fd, &n, sizeof n) != 0)
		return -1;
	return send_all(fd, b->p, b->len);
}

/* Exactly n bytes: 1, 0 at a clean end before the first byte, -1 otherwise. */
static int recv_all(int fd, void *data, size_t n)
{
	char *p = data;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got == 0 && r == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

int rj_wire_recv(int fd, char **payload, size_t *len)
{
	uint32_t n;
	char *p;
	int rc = recv_all(fd, &n, sizeof n);

	if (rc <= 0)
		return rc;
	if (n > RJ_WIRE_FRAME_MAX)
		return -1;
	p = malloc((size_t)n + 1);
	if (!p)
		return -1;
	if (recv_all(fd, p, n) != 1) {
		free(p);
		return -1;
	}
	p[n] = 0;
	*payload = p;
	*len = n;
	return 1;
}

/* ---- Messages ---------------------------------------------------------------------------- */

static void put_digest(struct rj_wbuf *b, int platform)
{
	rj_wbuf_str(b, (const char *)rj_devlib_served(platform)->digest.b,
		    sizeof(rj_digest));
}

void rj_wire_hello(struct rj_wbuf *b)
{
	rj_wbuf_u32(b, RJ_WIRE_MAGIC);
	rj_wbuf_u32(b, RJ_WIRE_PROTOCOL);
	rj_wbuf_cstr(b, ROCJIT_VERSION_STRING);
	put_digest(b, ROCJIT_PLATFORM_AMD);
	put_digest(b, ROCJIT_PLATFORM_NVIDIA);
}

static int same_digest(struct rj_wread *r, int platform)
{
	size_t n;
	const char *d = rj_wread_str(r, &n);

	return n == sizeof(rj_digest) &&
	       memcmp(d, rj_devlib_served(platform)->digest.b, n) == 0;
}

int rj_wire_hello_check(struct rj_wread *r, const char **why)
{
	if (rj_wread_u32(r) != RJ_WIRE_MAGIC) {
		*why = "it is not a rocjit compile worker";
		return -1;
	}
	if (rj_wread_u32(r) != RJ_WIRE_PROTOCOL ||
	    strcmp(rj_wread_str(r, NULL), ROCJIT_VERSION_STRING) != 0) {
		*why = "it belongs to another rocjit version";
		return -1;
	}
	if (!same_digest(r, ROCJIT_PLATFORM_AMD) || !same_digest(r, ROCJIT_PLATFORM_NVIDIA) ||
	    r->bad) {
		*why = "it serves other headers to the compilers (another build of rocjit)";
		return -1;
	}
	return 0;
}

void rj_wire_request(struct rj_wbuf *b, int platform, const char *target,
		     const char *compiler, const struct rj_compile_req *req)
{
	rj_wbuf_u32(b, (uint32_t)platform);
	rj_wbuf_cstr(b, target);
	rj_wbuf_cstr(b, compiler);
	rj_wbuf_cstr(b, req->name);
	rj_wbuf_cstr(b, req->source);
	rj_wbuf_u32(b, (uint32_t)req->language);
	rj_wbuf_u32(b, (uint32_t)req->options->count);
	rj_wbuf_str(b, req->options->buf, req->options->len);
	rj_wbuf_u32(b, (uint32_t)req->num_headers);
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];
		rj_wbuf_cstr(b, h->name);
		rj_wbuf_str(b, h->source, h->length ? h->length : strlen(h->source));
	}
	rj_wbuf_u32(b, (uint32_t)req->num_name_expressions);
	for (size_t i = 0; i < req->num_name_expressions; i++)
		rj_wbuf_cstr(b, req->name_expressions[i]);
	rj_wbuf_cstr(b, req->pch_dir ? req->pch_dir : "");
}

/* The packed options as received: count NUL-terminated strings filling len bytes. */
static int opts_valid(const char *buf, size_t len, size_t count)
{
	size_t n = 0;

	if (len && buf[len - 1] != 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == 0;
	return n == count;
}

int rj_wire_request_read(struct rj_wire_req *w, struct rj_wread *r)
{
	size_t n, len;
	uint32_t nh, ne;
	const char *buf;

	memset(w, 0, sizeof *w);
	w->platform = (int)rj_wread_u32(r);
	w->target = rj_wread_str(r, NULL);
	w->compiler = rj_wread_str(r, NULL);
	w->req.name = rj_wread_str(r, NULL);
	w->req.source = rj_wread_str(r, NULL);
	w->req.language = (int)rj_wread_u32(r);
	n = rj_wread_u32(r);
	buf = rj_wread_str(r, &len);
	if (r->bad || !opts_valid(buf, len, n))
		return -1;
	/* Read only: the worker never adds an option, so buf may stay in the payload. */
	w->opts.buf = (char *)(uintptr_t)buf;
	w->opts.len = w->opts.cap = len;
	w->opts.count = n;
	w->req.options = &w->opts;
	nh = rj_wread_u32(r);
	if (r->bad || nh > r->len / 10) /* each header takes at least 10 bytes */
		return -1;
	w->headers = calloc(nh ? nh : 1, sizeof *w->headers);
	if (!w->headers)
		return -1;
	for (uint32_t i = 0; i < nh; i++) {
		w->headers[i].name = rj_wread_str(r, NULL);
		w->headers[i].source = rj_wread_str(r, &w->headers[i].length);
	}
	w->req.headers = w->headers;
	w->req.num_headers = nh;
	ne = rj_wread_u32(r);
	if (r->bad || ne > r->len / 5)
		return -1;
	w->exprs = calloc(ne ? ne : 1, sizeof *w->exprs);
	if (!w->exprs)
		return -1;
	for (uint32_t i = 0; i < ne; i++)
		w->exprs[i] = rj_wread_str(r, NULL);
	w->req.name_expressions = ne ? w->exprs : NULL;
	w->req.num_name_expressions = ne;
	w->req.pch_dir = rj_wread_str(r, NULL);
	return r->bad || r->off != r->len ? -1 : 0;
}

void rj_wire_request_release(struct rj_wire_req *w)
{
	free(w->headers);
	free(w->exprs);
	w->headers = NULL;
	w->exprs = NULL;
}

void rj_wire_result(struct rj_wbuf *b, int rc, const char *message,
		    const struct rj_compile_out *out, size_t num_lowered, double ms)
{
	rj_wbuf_u32(b, (uint32_t)rc);
	rj_wbuf_cstr(b, message);
	rj_wbuf_cstr(b, out->log);
	rj_wbuf_f64(b, ms);
	rj_wbuf_str(b, rc == 0 ? out->code : NULL, rc == 0 ? out->size : 0);
	rj_wbuf_u32(b, rc == 0 && out->lowered ? (uint32_t)num_lowered : 0);
	for (size_t i = 0; rc == 0 && out->lowered && i < num_lowered; i++)
		rj_wbuf_cstr(b, out->lowered[i]);
}

/* A malloc'ed copy of n bytes, NUL-terminated. */
static char *dup_bytes(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

int rj_wire_result_read(struct rj_wread *r, int *rc, char *message, size_t message_size,
			struct rj_compile_out *out, size_t num_lowered, double *ms)
{
	size_t n;
	const char *s;
	uint32_t nl;

	memset(out, 0, sizeof *out);
	*rc = (int32_t)rj_wread_u32(r);
	s = rj_wread_str(r, &n);
	snprintf(message, message_size, "%s", s);
	s = rj_wread_str(r, &n);
	out->log = dup_bytes(s, n);
	*ms = rj_wread_f64(r);
	s = rj_wread_str(r, &n);
	if (*rc == 0 && n) {
		out->code = dup_bytes(s, n);
		out->size = n;
	}
	nl = rj_wread_u32(r);
	if (!r->bad && nl && nl == num_lowered) {
		out->lowered = calloc(nl, sizeof *out->lowered);
		for (uint32_t i = 0; out->lowered && i < nl; i++) {
			s = rj_wread_str(r, &n);
			out->lowered[i] = dup_bytes(s, n);
		}
	}
	if (r->bad || !out->log || (*rc == 0 && (!out->code || (nl != num_lowered && nl))))
		return -1;
	return 0;
}

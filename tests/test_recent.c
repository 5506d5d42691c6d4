/*
 * test_recent.c - the per-thread memo of served programs (src/request/recent.c): it answers only
 * for the same context, pointer, bytes, options and kernel name.
 */
#include "request/context.h"
#include "harness.h"

static rocjit_kernel *fake = (rocjit_kernel *)0x1234;

TEST(recent_answers_only_for_identical_requests)
{
	char src[] = "extern \"C\" __global__ void k() {}";
	const char *o4[] = { "-DN=4" }, *o1024[] = { "-DN=1024" }, *o3[] = { "-DN=" };
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_ctx *ctx = rj_test_open(), *other = rj_test_open();
	size_t len = strlen(src);

	p.source = src;
	p.options = o4;
	p.num_options = 1;
	ASSERT(rj_recent_find(ctx, &p, len, "k") == NULL);
	rj_recent_add(ctx, &p, len, "k", fake);
	ASSERT(rj_recent_find(ctx, &p, len, "k") == fake);
	ASSERT(rj_recent_find(other, &p, len, "k") == NULL);   /* another context */
	ASSERT(rj_recent_find(ctx, &p, len, "k2") == NULL);    /* another kernel */
	p.options = o1024;                                     /* a longer option */
	ASSERT(rj_recent_find(ctx, &p, len, "k") == NULL);
	p.options = o3;                                        /* a shorter one */
	ASSERT(rj_recent_find(ctx, &p, len, "k") == NULL);
	p.options = NULL;
	ASSERT(rj_recent_find(ctx, &p, len, "k") == NULL);     /* options NULL, count 1 */
	p.options = o4;
	src[5] = 'X';                                          /* edited in place */
	ASSERT(rj_recent_find(ctx, &p, len, "k") == NULL);
	rocjit_close(other);
	rocjit_close(ctx);
}

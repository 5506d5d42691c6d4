/*
 * args.c - reading a command's arguments: options in git's forms (--name V, --name=V,
 * -n V, -nV, "--" ending the options), values with units (sizes, ages, counts, seconds)
 * and target lists (--arch, $ROCJIT_ARCH, else the GPUs present).
 *
 * Owns no state beyond the parser a command passes in.  A bad argument is reported through
 * diagnostics.c; nothing here opens a cache or runs a command.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_parser_init(struct cli_parser *p, const char *cmd, int argc, char **argv,
		     const struct cli_opt *opts, int allow_rest)
{
	p->cmd = cmd;
	p->opts = opts;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	p->rest = argc;
	p->allow_rest = allow_rest;
}

/* The option named name (length len), or NULL. */
static const struct cli_opt *find_long(const struct cli_opt *opts, const char *name, size_t len)
{
	for (; opts && opts->name; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const struct cli_opt *find_short(const struct cli_opt *opts, char c)
{
	for (; opts && opts->name; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* A usage error met while parsing: printed; the parser's caller exits CLI_USAGE. */
static int arg_error(const struct cli_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int arg_error(const struct cli_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_usage_verror(p->cmd, fmt, ap);
	va_end(ap);
	return CLI_ARG_ERROR;
}

int cli_next(struct cli_parser *p, const char **value)
{
	const struct cli_opt *o;
	const char *a;

	*value = NULL;
	if (p->i >= p->argc || p->i >= p->rest)
		return CLI_ARG_END;
	a = p->argv[p->i++];
	if (strcmp(a, "--") == 0) {
		if (!p->allow_rest)
			return arg_error(p, "unexpected \"--\": this command "
				"takes no compiler options");
		p->rest = p->i - 1;
		/* The rest is read by the command from argv[rest + 1 ...]. */
		return CLI_ARG_END;
	}
	if (a[0] != '-' || a[1] == 0) {
		*value = a;
		return CLI_ARG_POSITIONAL;
	}
	if (!strcmp(a, "--help") || !strcmp(a, "-h"))
		return CLI_ARG_HELP;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		o = find_long(p->opts, a + 2, len);
		if (!o)
			return arg_error(p, "unknown option --%.*s", (int)len,
					       a + 2);
		if (!o->has_arg) {
			if (eq)
				return arg_error(p, "--%s takes no value",
						       o->name);
			return o->id;
		}
		if (eq)
			*value = eq + 1;
		else if (p->i < p->argc && p->i < p->rest)
			*value = p->argv[p->i++];
	} else {
		o = find_short(p->opts, a[1]);
		if (!o)
			return arg_error(p, "unknown option %s", a);
		if (!o->has_arg) {
			if (a[2])
				return arg_error(p, "unknown option %s", a);
			return o->id;
		}
		if (a[2])
			*value = a + 2;
		else if (p->i < p->argc && p->i < p->rest)
			*value = p->argv[p->i++];
	}
	if (!*value || !**value)
		return arg_error(p, "--%s needs a value", o->name);
	return o->id;
}

int cli_parse_switches(unsigned int *on, const char *cmd, int argc, char **argv,
		       const struct cli_opt *opts)
{
	struct cli_parser p;
	const char *v;
	int id;

	*on = 0;
	cli_parser_init(&p, cmd, argc, argv, opts, 0);
	while ((id = cli_next(&p, &v)) != CLI_ARG_END) {
		if (id == CLI_ARG_HELP)
			return -1;
		if (id == CLI_ARG_ERROR)
			return CLI_USAGE;
		if (id == CLI_ARG_POSITIONAL)
			return cli_usage_error(cmd, "unexpected argument '%s'", v);
		*on |= 1u << id;
	}
	return CLI_OK;
}

/* A decimal number with an optional fraction; *end gets the rest.  0 or -1. */
static int parse_number(double *out, const char *s, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (errno || e == s || !isfinite(*out) || *out < 0)
		return -1;
	*end = e;
	return 0;
}

/* The library's size syntax (rocjit_parse_size), so that --max-size and
 * ROCJIT_CACHE_MAXSIZE take the same values. */
int cli_parse_size(uint64_t *out, const char *s)
{
	return rocjit_parse_size(out, s) == 0 ? 0 : -1;
}

int cli_parse_age(int64_t *out, const char *s)
{
	double v, mult = 86400;
	const char *u;

	if (parse_number(&v, s, &u) != 0)
		return -1;
	if (*u) {
		switch (*u) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		case 'w': mult = 7 * 86400; break;
		default: return -1;
		}
		if (u[1])
			return -1;
	}
	if (v * mult > 1e15)
		return -1;
	*out = (int64_t)(v * mult);
	return 0;
}

int cli_parse_count(long *out, const char *s, long max)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || *e || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_language(int *out, const char *s)
{
	if (!s)
		return -1;
	if (!strcasecmp(s, "hip"))
		*out = ROCJIT_LANG_HIP;
	else if (!strcasecmp(s, "cuda"))
		*out = ROCJIT_LANG_CUDA;
	else if (!strcasecmp(s, "auto"))
		*out = ROCJIT_LANG_AUTO;
	else
		return -1;
	return 0;
}

int cli_parse_seconds(double *out, const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || v < 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

static void targets_push(struct cli_targets *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->ids[i], id) == 0)
			return;
	t->ids = cli_realloc(t->ids, (t->n + 1) * sizeof *t->ids);
	snprintf(t->ids[t->n++], ROCJIT_MAX_TARGET, "%s", id);
}

int cli_targets_add(struct cli_targets *t, const char *cmd, const char *list)
{
	char *copy = cli_strdup(list), *save = NULL, *tok;
	int rc = CLI_OK;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char norm[ROCJIT_MAX_TARGET];
		if (rocjit_target_normalize(norm, sizeof norm, tok) != 0 ||
		    !rocjit_target_platform(norm)) {
			rc = cli_usage_error(cmd, "\"%s\" is not a target id: AMD targets are "
					     "gfxNNN[:feature+|-] (gfx90a, gfx90a:sramecc+:xnack-), "
					     "NVIDIA targets sm_XY (sm_90); `rocjit targets` lists "
					     "them", tok);
			break;
		}
		targets_push(t, norm);
	}
	if (rc == CLI_OK && t->n == 0)
		rc = cli_usage_error(cmd, "--arch needs at least one target id");
	free(copy);
	return rc;
}

void cli_targets_free(struct cli_targets *t)
{
	free(t->ids);
	t->ids = NULL;
	t->n = 0;
}

int cli_targets_default(struct cli_targets *t, const char *cmd)
{
	static const int platforms[] = { ROCJIT_PLATFORM_AMD, ROCJIT_PLATFORM_NVIDIA };
	const char *env = rocjit_config_get("ROCJIT_ARCH", NULL);

	if (env && *env) {
		if (cli_targets_add(t, cmd, env) != CLI_OK)
			return cli_fail("ROCJIT_ARCH=%s is not a list of target ids: fix it, or "
					"pass --arch", env);
		return CLI_OK;
	}
	for (size_t p = 0; p < sizeof platforms / sizeof platforms[0]; p++) {
		int count = 0;
		if (rocjit_device_count_get(&count, platforms[p]) != 0)
			continue;
		for (int d = 0; d < count; d++) {
			char id[ROCJIT_MAX_TARGET];
			if (rocjit_device_target_get(id, sizeof id, platforms[p], d) == 0)
				targets_push(t, id);
			else
				cli_warn("cannot read the target of %s GPU %d: %s",
					 rocjit_platform_name(platforms[p]), d, rocjit_last_error());
		}
	}
	if (t->n == 0)
		return cli_fail("no GPU found on this machine and no target given: pass --arch "
				"(e.g. --arch gfx90a,sm_90) or set ROCJIT_ARCH; `rocjit targets` "
				"lists the targets the compilers support");
	return CLI_OK;
}

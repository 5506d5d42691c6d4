/*
 * url.c - the remote tier's address: parsing ROCJIT_REMOTE, and showing it without
 * its password.
 *
 * The syntax is the one Redis clients share (redis://user:password@host:port/db), plus
 * unix:// for a socket and redis-cluster:// with several seed nodes, as sccache and ccache
 * spell them.  A password never leaves this file in a message: every error shows the URL
 * through rj_remote_url_redact, which masks whatever could be a password even in text that
 * does not parse, and a user slot alone as well (some clients read redis://secret@host as
 * a password).  Pure functions over strings: no network, no environment.
 */
#include "remote/url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define MASK "***"

static void copy_out(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

void rj_remote_url_redact(const char *text, char *out, size_t size)
{
	const char *scheme, *start, *end, *at = NULL, *colon = NULL;
	size_t len = 0;

	if (!size)
		return;
	out[0] = 0;
	if (!text)
		return;
	scheme = strstr(text, "://");
	if (!scheme) {
		/* No authority to find the password in: show nothing that could hold one. */
		if (strchr(text, '@'))
			copy_out(out, size, &len, "(a URL with credentials, not shown)", 35);
		else
			copy_out(out, size, &len, text, strlen(text));
		return;
	}
	start = scheme + 3;
	/* The last '@' anywhere: a password holding '/', '?' or '#' unencoded (a mistake the
	   parser refuses) must be masked as well, whatever follows it. */
	end = start + strlen(start);
	for (const char *p = start; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at) {
		copy_out(out, size, &len, text, strlen(text));
		return;
	}
	colon = memchr(start, ':', (size_t)(at - start));
	if (!colon) {
		/* A user slot alone may be a password put there (redis://secret@host, as some
		   clients read it): masked whole. */
		copy_out(out, size, &len, text, (size_t)(start - text));
		copy_out(out, size, &len, MASK, strlen(MASK));
		copy_out(out, size, &len, at, strlen(at));
		return;
	}
	copy_out(out, size, &len, text, (size_t)(colon + 1 - text));
	copy_out(out, size, &len, MASK, strlen(MASK));
	copy_out(out, size, &len, at, strlen(at));
}

/* Percent-decodes n bytes of s into out (size bytes with the NUL): 0, or -1 when a %XX is
 * malformed, the result holds a NUL, or does not fit. */
static int decode(const char *s, size_t n, char *out, size_t size)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			char hex[3];
			char *endp;
			if (i + 2 >= n)
				return -1;
			if (!isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]))
				return -1;
			hex[0] = s[i + 1];
			hex[1] = s[i + 2];
			hex[2] = 0;
			c = (int)strtol(hex, &endp, 16);
			if (c == 0)
				return -1;
			i += 2;
		}
		if (len + 1 >= size)
			return -1;
		out[len++] = (char)c;
	}
	out[len] = 0;
	return 0;
}

/* A decimal number in [lo, hi] that is all of s (n bytes): 0 and *v, or -1. */
static int number(const char *s, size_t n, long long lo, long long hi, long long *v)
{
	long long x = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	if (x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static int host_char(int c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_';
}

/* One "host[:port]" or "[v6]:port" of n bytes into *h: 0, or -1 (*why says what). */
static int parse_host(const char *s, size_t n, struct rj_remote_host *h, const char **why)
{
	const char *name = s, *port = NULL;
	size_t name_len;
	long long p = RJ_REMOTE_PORT;

	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close) {
			*why = "an IPv6 address in [ ] lacks its ']'";
			return -1;
		}
		name = s + 1;
		name_len = (size_t)(close - name);
		for (size_t i = 0; i < name_len; i++)
			if (!isxdigit((unsigned char)name[i]) && name[i] != ':' && name[i] != '.') {
				*why = "an IPv6 address holds only hex digits, ':' and '.'";
				return -1;
			}
		if (close + 1 < s + n) {
			if (close[1] != ':') {
				*why = "after an IPv6 address in [ ] comes ':port' or nothing";
				return -1;
			}
			port = close + 2;
		}
	} else {
		const char *colon = memchr(s, ':', n);
		if (colon && memchr(colon + 1, ':', (size_t)(s + n - colon - 1))) {
			*why = "an IPv6 address goes in [ ] (redis://[::1]:6379)";
			return -1;
		}
		name_len = colon ? (size_t)(colon - s) : n;
		if (colon)
			port = colon + 1;
		for (size_t i = 0; i < name_len; i++)
			if (!host_char((unsigned char)name[i])) {
				*why = "a host name holds only letters, digits, '.', '-' and '_' (an "
				       "IPv6 address goes in [ ])";
				return -1;
			}
	}
	if (name_len == 0 || name_len >= sizeof h->name) {
		*why = name_len ? "a host name is too long" : "a host is missing";
		return -1;
	}
	if (port && number(port, (size_t)(s + n - port), 1, 65535, &p) != 0) {
		*why = "a port is a number from 1 to 65535";
		return -1;
	}
	memcpy(h->name, name, name_len);
	h->name[name_len] = 0;
	h->port = (int)p;
	return 0;
}

/* The query's options (n bytes of s, '&'-separated) into *u: 0, or -1 with *why. */
static int parse_options(const char *s, size_t n, struct rj_remote_url *u, const char **why)
{
	const char *end = s + n;

	while (s < end) {
		const char *amp = memchr(s, '&', (size_t)(end - s));
		const char *opt_end = amp ? amp : end, *eq = memchr(s, '=', (size_t)(opt_end - s));
		size_t name_len = (size_t)((eq ? eq : opt_end) - s);
		const char *val = eq ? eq + 1 : NULL;
		size_t val_len = val ? (size_t)(opt_end - val) : 0;
		long long v;

#define IS(lit) (name_len == sizeof(lit) - 1 && memcmp(s, lit, name_len) == 0)
		if (name_len == 0) {
			/* an empty option ("?&x"): nothing */
		} else if (IS("readonly")) {
			if (val && !(val_len == 1 && (*val == '0' || *val == '1'))) {
				*why = "readonly takes no value, or 0 or 1";
				return -1;
			}
			u->readonly = !val || *val == '1';
		} else if (IS("prefix")) {
			if (!val || val_len == 0 || val_len >= sizeof u->prefix) {
				*why = "prefix= takes a name of 1 to 63 characters";
				return -1;
			}
			for (size_t i = 0; i < val_len; i++)
				if (!host_char((unsigned char)val[i])) {
					*why = "a prefix holds only letters, digits, '.', '-' and '_'";
					return -1;
				}
			memcpy(u->prefix, val, val_len);
			u->prefix[val_len] = 0;
		} else if (IS("ttl")) {
			if (!val || number(val, val_len, 0, 10ll * 366 * 86400, &v) != 0) {
				*why = "ttl= takes seconds, from 0 (no limit) to 10 years";
				return -1;
			}
			u->ttl_s = v;
		} else if (IS("connect_timeout") || IS("timeout")) {
			int connect = IS("connect_timeout");
			if (!val || number(val, val_len, 1, connect ? 60000 : 600000, &v) != 0) {
				*why = connect ? "connect_timeout= takes milliseconds, 1 to 60000"
					       : "timeout= takes milliseconds, 1 to 600000";
				return -1;
			}
			*(connect ? &u->connect_ms : &u->timeout_ms) = (int)v;
		} else if (IS("retry")) {
			if (!val || number(val, val_len, 0, 3600000, &v) != 0) {
				*why = "retry= takes milliseconds, 0 to 3600000";
				return -1;
			}
			u->retry_ms = (int)v;
		} else if (IS("lease")) {
			if (!val || number(val, val_len, 500, 3600000, &v) != 0) {
				*why = "lease= takes milliseconds, 500 to 3600000";
				return -1;
			}
			u->lease_ms = (int)v;
		} else if (IS("db") && u->kind == RJ_REMOTE_UNIX) {
			if (!val || number(val, val_len, 0, 1 << 20, &v) != 0) {
				*why = "db= takes a database number";
				return -1;
			}
			u->db = (int)v;
		} else {
			*why = "an option is not one of readonly, prefix=, ttl=, connect_timeout=, "
			       "timeout=, retry=, lease= (and db= for unix://)";
			return -1;
		}
#undef IS
		s = amp ? amp + 1 : end;
	}
	return 0;
}

/* user[:password] (n bytes of s), percent-decoded, into *u. */
static int parse_userinfo(const char *s, size_t n, struct rj_remote_url *u, const char **why)
{
	const char *colon = memchr(s, ':', n);
	size_t user_len = colon ? (size_t)(colon - s) : n;

	if (decode(s, user_len, u->user, sizeof u->user) != 0 ||
	    (colon && decode(colon + 1, (size_t)(s + n - colon - 1), u->password,
			     sizeof u->password) != 0)) {
		*why = "the user or the password is too long or badly percent-encoded (%XX)";
		return -1;
	}
	if (colon && !u->password[0]) {
		*why = "the password after ':' is empty";
		return -1;
	}
	return 0;
}

int rj_remote_url_parse(const char *text, struct rj_remote_url *out)
{
	static const struct {
		const char *scheme;
		enum rj_remote_kind kind;
	} schemes[] = { { "redis://", RJ_REMOTE_TCP },
			{ "redis-cluster://", RJ_REMOTE_CLUSTER },
			{ "unix://", RJ_REMOTE_UNIX } };
	char shown[1024];
	const char *rest = NULL, *query, *end, *why = NULL;
	size_t n;

	memset(out, 0, sizeof *out);
	out->connect_ms = RJ_REMOTE_CONNECT_MS;
	out->timeout_ms = RJ_REMOTE_TIMEOUT_MS;
	out->retry_ms = RJ_REMOTE_RETRY_MS;
	out->lease_ms = RJ_REMOTE_LEASE_MS;
	memcpy(out->prefix, RJ_REMOTE_PREFIX, sizeof RJ_REMOTE_PREFIX); /* no printf: open's path */
	RJ_CHECK(!text || !*text, ROCJIT_EINVAL, "remote cache: the URL is empty (give "
		 "redis://host:port, unix:///path/to/redis.sock or redis-cluster://host:port,...)");
	rj_remote_url_redact(text, shown, sizeof shown);
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0] && !rest; i++)
		if (!strncmp(text, schemes[i].scheme, strlen(schemes[i].scheme))) {
			out->kind = schemes[i].kind;
			rest = text + strlen(schemes[i].scheme);
		}
	RJ_CHECK(!rest, ROCJIT_EINVAL, "remote cache %s: the URL starts with redis://, "
		 "redis-cluster:// or unix:// (rediss:// is not supported: this build's hiredis "
		 "has no TLS)", shown);
	end = rest + strlen(rest);
	query = strchr(rest, '?');
	if (query && parse_options(query + 1, (size_t)(end - query - 1), out, &why) != 0)
		RJ_FAIL(ROCJIT_EINVAL, "remote cache %s: %s", shown, why);
	if (query)
		end = query;
	if (out->kind == RJ_REMOTE_UNIX) {
		n = (size_t)(end - rest);
		RJ_CHECK(n == 0 || rest[0] != '/', ROCJIT_EINVAL, "remote cache %s: unix:// is "
			 "followed by the socket's absolute path (unix:///run/redis.sock)", shown);
		RJ_CHECK(n >= sizeof out->path, ROCJIT_EINVAL, "remote cache %s: the socket's path "
			 "is longer than %zu bytes", shown, sizeof out->path - 1);
		memcpy(out->path, rest, n);
		out->path[n] = 0;
		return 0;
	}
	{
		const char *slash = memchr(rest, '/', (size_t)(end - rest));
		const char *auth_end = slash ? slash : end, *at = NULL, *hosts;

		for (const char *p = rest; p < auth_end; p++)
			if (*p == '@')
				at = p;
		if (at && parse_userinfo(rest, (size_t)(at - rest), out, &why) != 0)
			RJ_FAIL(ROCJIT_EINVAL, "remote cache %s: %s", shown, why);
		hosts = at ? at + 1 : rest;
		while (hosts <= auth_end) {
			const char *comma = memchr(hosts, ',', (size_t)(auth_end - hosts));
			const char *host_end = comma ? comma : auth_end;
			RJ_CHECK(out->nhosts == RJ_REMOTE_MAX_HOSTS, ROCJIT_EINVAL, "remote cache %s: "
				 "more than %d hosts", shown, RJ_REMOTE_MAX_HOSTS);
			if (parse_host(hosts, (size_t)(host_end - hosts), &out->hosts[out->nhosts],
				       &why) != 0)
				RJ_FAIL(ROCJIT_EINVAL, "remote cache %s: %s", shown, why);
			out->nhosts++;
			if (!comma)
				break;
			hosts = comma + 1;
		}
		RJ_CHECK(out->kind == RJ_REMOTE_TCP && out->nhosts > 1, ROCJIT_EINVAL,
			 "remote cache %s: redis:// names one server (several are a cluster: "
			 "redis-cluster://host:port,host:port)", shown);
		if (slash && slash + 1 < end) {
			long long db;
			RJ_CHECK(number(slash + 1, (size_t)(end - slash - 1), 0, 1 << 20, &db) != 0,
				 ROCJIT_EINVAL, "remote cache %s: after the host comes /DB, a database "
				 "number", shown);
			RJ_CHECK(out->kind == RJ_REMOTE_CLUSTER && db != 0, ROCJIT_EINVAL,
				 "remote cache %s: a Redis Cluster has only database 0", shown);
			out->db = (int)db;
		}
	}
	return 0;
}

void rj_remote_url_show(const struct rj_remote_url *u, char *out, size_t size)
{
	size_t len = 0;
	char part[300];

	if (!size)
		return;
	out[0] = 0;
	if (u->kind == RJ_REMOTE_UNIX) {
		snprintf(out, size, "unix://%s%s", u->path, u->db ? "?db=" : "");
		if (u->db) {
			len = strlen(out);
			snprintf(out + len, size - len, "%d", u->db);
		}
		return;
	}
	copy_out(out, size, &len, u->kind == RJ_REMOTE_CLUSTER ? "redis-cluster://" : "redis://",
		 u->kind == RJ_REMOTE_CLUSTER ? 16 : 8);
	if (u->user[0] || u->password[0]) {
		/* A user alone is masked too: it may be a password (rj_remote_url_redact). */
		if (u->password[0])
			copy_out(out, size, &len, u->user, strlen(u->user));
		copy_out(out, size, &len, u->password[0] ? ":" MASK : MASK,
			 strlen(MASK) + (u->password[0] ? 1 : 0));
		copy_out(out, size, &len, "@", 1);
	}
	for (int i = 0; i < u->nhosts; i++) {
		int v6 = strchr(u->hosts[i].name, ':') != NULL;
		snprintf(part, sizeof part, "%s%s%s%s:%d", i ? "," : "", v6 ? "[" : "",
			 u->hosts[i].name, v6 ? "]" : "", u->hosts[i].port);
		copy_out(out, size, &len, part, strlen(part));
	}
	if (u->db) {
		snprintf(part, sizeof part, "/%d", u->db);
		copy_out(out, size, &len, part, strlen(part));
	}
}

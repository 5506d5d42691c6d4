/*
 * config.c - rocjit's settings: the table of every ROCJIT_* setting (its file key, its
 * variable, what it takes, its default and one line saying what it does), the
 * configuration files, and the look-up under rj_config (env.c), the one accessor every
 * reader of a setting uses.
 *
 * A setting's value is, first found: the environment (ROCJIT_X, when set and not empty),
 * the user file ($XDG_CONFIG_HOME/rocjit/rocjit.conf, else ~/.config/rocjit/rocjit.conf),
 * the system file (/etc/rocjit/rocjit.conf, or $ROCJIT_CONFIG; "" for none), then the
 * default, which the reader applies (the table's default says it in words).  The cache's
 * size limit has one more step, between the environment and the files: the limit stored
 * in the cache itself (store/cache_settings.c).
 *
 * Files hold `key = value` lines; the key is the variable's name without ROCJIT_, in lower
 * case (cache_maxsize), or the variable's name itself.  '#' starts a comment line.  A
 * file is read once a process, under pthread_once, and only when it is a regular file
 * (no symbolic link) owned by root or by this user and writable by nobody else, in
 * folders that are too (OpenSSH's StrictModes): it chooses the keys trusted, the
 * libraries loaded and the worker run.  Each value is checked with the parser its reader
 * uses, no value may hold a control character, and a path must be absolute (a relative
 * one would be resolved in whatever folder a process runs in); a line that is malformed,
 * names no setting or holds a bad value is skipped with a warning naming FILE:LINE, kept
 * here and said by the first reader of a setting (rj_config, env.c): a warning asks for
 * ROCJIT_LOG, which is a setting too.
 *
 * Owns the table and the files (reading them, and writing the user file for `rocjit config
 * set`).  Below the log (error.c reads ROCJIT_LOG through it): it makes no message but
 * into the caller's buffer, and says its warnings through env.c's rj_config.  Knows
 * nothing of what the settings are for.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/error.h" /* RJ_PRINTF only: this file is below the log */
#include "base/fsutil.h"
#include "base/parse.h"

#define SYSTEM_FILE "/etc/rocjit/rocjit.conf"
#define FILE_MAX (1u << 20) /* a configuration file larger than this is no configuration */

/* Kinds of value, each checked by the parser its reader uses. */
#define K_SWITCH "switch"
#define K_SIZE "size"
#define K_NUMBER "number"
#define K_SECONDS "seconds"
#define K_PATH "path"
#define K_PATHS "paths" /* absolute paths separated by ':' */
#define K_KEYS "keys"   /* NAME:BASE64 keys, or the absolute paths of files of them */
#define K_TEXT "text"
#define K_LEVEL "off|error|warn|info|debug"

static const rocjit_setting table[] = {
	{ "cache_dir", "ROCJIT_CACHE_DIR", K_PATH, "$XDG_CACHE_HOME/rocjit, else ~/.cache/rocjit",
	  "the cache folder" },
	{ "cache_maxsize", "ROCJIT_CACHE_MAXSIZE", K_SIZE, "4G",
	  "code bytes the cache keeps, least recently used entries evicted beyond (0: no "
	  "limit); `rocjit config set cache_maxsize` stores it in the cache for every process" },
	{ "cache_index_size", "ROCJIT_CACHE_INDEX_SIZE", K_SIZE, "64M",
	  "bytes of the cache's read index, which serves a new process's hits (0: no index)" },
	{ "cache_shared", "ROCJIT_CACHE_SHARED", K_SWITCH, "off",
	  "a cache shared by a group: new caches 0770/0660, members' files accepted" },
	{ "cache_allow_network_fs", "ROCJIT_CACHE_ALLOW_NETWORK_FS", K_SWITCH, "off",
	  "use a cache on NFS, Lustre, SMB (SQLite's locking is unreliable there)" },
	{ "disable_cache", "ROCJIT_DISABLE_CACHE", K_SWITCH, "off",
	  "no on-disk cache: compiled kernels are kept in memory only" },
	{ "no_compile", "ROCJIT_NO_COMPILE", K_SWITCH, "off",
	  "a cache miss is an error (ROCJIT_ENOTCACHED) instead of a compile" },
	{ "arch", "ROCJIT_ARCH", K_TEXT, "the GPUs of this machine",
	  "the target id to compile for (gfx90a:sramecc+:xnack-, sm_90)" },
	{ "platform", "ROCJIT_PLATFORM", "amd|nvidia|auto", "auto",
	  "the device's platform (auto: whichever GPU is present)" },
	{ "kernel_path", "ROCJIT_KERNEL_PATH", K_PATH, "none: the embedded text",
	  "read registered kernels from this folder instead of their embedded text" },
	{ "bundle_path", "ROCJIT_BUNDLE_PATH", K_PATHS, "none",
	  "prebuilt bundles to look in after the user cache (a.rocjit:b.rocjit)" },
	{ "log", "ROCJIT_LOG", K_LEVEL, "warn",
	  "what rocjit says on stderr: off, warn (error is the same), info (each hit, miss, "
	  "compile), debug" },
	{ "compile_timeout", "ROCJIT_COMPILE_TIMEOUT", K_SECONDS, "600",
	  "seconds a compile may run before its worker is killed (0: no limit)" },
	{ "compile_memory_mb", "ROCJIT_COMPILE_MEMORY_MB", K_NUMBER, "half the machine's memory",
	  "MiB a compile worker may hold before it is killed (0: no limit)" },
	{ "workers", "ROCJIT_WORKERS", K_NUMBER, "the CPUs this process may use",
	  "compile workers a process runs at once" },
	{ "worker", "ROCJIT_WORKER", K_PATH, "rocjit-worker beside the library",
	  "the compile worker executable" },
	{ "compile_inprocess", "ROCJIT_COMPILE_INPROCESS", K_SWITCH, "off",
	  "compile in the application's process, without workers" },
	{ "compile_threads", "ROCJIT_COMPILE_THREADS", K_NUMBER, "16",
	  "threads an NVRTC compile of 8 kernels or more gives its optimizer and ptxas (2-256)" },
	{ "pch_max_mb", "ROCJIT_PCH_MAX_MB", K_NUMBER, "2048",
	  "MiB of NVRTC precompiled headers a worker keeps in the cache folder (0: none)" },
	{ "lock_timeout_ms", "ROCJIT_LOCK_TIMEOUT_MS", K_NUMBER, "300000",
	  "milliseconds a process waits for another compiling the same kernel" },
	{ "remote", "ROCJIT_REMOTE", K_TEXT, "none",
	  "the remote tier: redis://[user@]host[:port][/db], unix:///path, redis-cluster://..." },
	{ "remote_password_file", "ROCJIT_REMOTE_PASSWORD_FILE", K_PATH, "none",
	  "a file (mode 0600) whose first line is the remote tier's password" },
	{ "remote_readonly", "ROCJIT_REMOTE_READONLY", K_SWITCH, "off",
	  "read from the remote tier, never put or lock" },
	{ "signing_key", "ROCJIT_SIGNING_KEY", K_PATH, "none",
	  "sign every entry stored, exported or pushed with this key (rocjit keygen)" },
	{ "trusted_keys", "ROCJIT_TRUSTED_KEYS", K_KEYS, "none",
	  "NAME:BASE64 keys (or files of them), comma separated, whose signatures are trusted" },
	{ "require_signed", "ROCJIT_REQUIRE_SIGNED", "none|shared|all",
	  "shared when keys are trusted, else none",
	  "which entries need a trusted signature (all: the local cache's too)" },
	{ "hip_library", "ROCJIT_HIP_LIBRARY", K_PATH, "the loader's search",
	  "the HIP runtime library to load (hipRTC and comgr beside it)" },
	{ "nvrtc_library", "ROCJIT_NVRTC_LIBRARY", K_PATH, "$CUDA_PATH, $CUDA_HOME, /usr/local/cuda",
	  "the NVRTC library to load" },
	{ "config", "ROCJIT_CONFIG", K_PATH, SYSTEM_FILE,
	  "the system configuration file (\"\": none); the environment only" },
};

#define NSETTINGS (sizeof table / sizeof table[0])
#define CONFIG_INDEX (NSETTINGS - 1) /* ROCJIT_CONFIG: never read from a file */

/* What the files said, set once under load_once, read-only afterwards. */
static struct {
	char path[2][4096];          /* [0] system, [1] user: "" when there is none */
	char *value[2][NSETTINGS];   /* malloc'ed, never freed: they live as long as the process */
	char pending[16][600];       /* warnings made while loading, said once loaded */
	int npending;
} files;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void pending(const char *fmt, ...) RJ_PRINTF(1, 2);
static void pending(const char *fmt, ...)
{
	va_list ap;

	if (files.npending >= (int)(sizeof files.pending / sizeof files.pending[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(files.pending[files.npending++], sizeof files.pending[0], fmt, ap);
	va_end(ap);
}

const rocjit_setting *rj_config_find(const char *name, size_t *index)
{
	for (size_t i = 0; name && i < NSETTINGS; i++)
		if (!strcmp(name, table[i].env) || !strcasecmp(name, table[i].name)) {
			if (index)
				*index = i;
			return &table[i];
		}
	return NULL;
}

ROCJIT_API const rocjit_setting *rocjit_setting_at(size_t index)
{
	return index < NSETTINGS ? &table[index] : NULL;
}

ROCJIT_API const rocjit_setting *rocjit_setting_find(const char *name)
{
	return rj_config_find(name, NULL);
}

/* Whether text is one of the '|'-separated words of choices (any case). */
static int one_of(const char *choices, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = choices; *p; p += strcspn(p, "|"), p += *p == '|')
		if (strcspn(p, "|") == n && !strncasecmp(p, text, n))
			return 1;
	return 0;
}

/* The first control character of value (a byte below 0x20, or 0x7f), or NULL. */
static const char *control(const char *value)
{
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return p;
	return NULL;
}

static int is_path_kind(const char *k)
{
	return !strcmp(k, K_PATH) || !strcmp(k, K_PATHS);
}

/*
 * The first relative path in value, a setting of kind k, with its length (NULL when
 * every path is absolute): a path kept in a file would be resolved against whatever
 * folder a process happens to run in, so that a line `worker = bin/rocjit-worker` would
 * run the bin/ of any folder a user works in.  Of a key list, the items naming files
 * ('.' first, as rj_sig_trust_parse tells them): the keys themselves are no paths.
 */
static const char *relative(const char *k, const char *value, size_t *len)
{
	int keys = !strcmp(k, K_KEYS);
	const char *seps = keys ? ", \t" : !strcmp(k, K_PATHS) ? ":" : "";

	if (!keys && !is_path_kind(k))
		return NULL;
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, seps);
		if (n && (keys ? *p == '.' : *p != '/')) {
			*len = n;
			return p;
		}
		p += n;
		p += *p != 0;
	}
	return NULL;
}

int rj_config_check(const rocjit_setting *s, const char *value, int stored, char *why,
		    size_t size)
{
	const char *k = s->kind, *bad;
	uint64_t bytes;
	size_t n = 0;
	int rc;

	if ((stored || is_path_kind(k)) && (bad = control(value)))
		snprintf(why, size, "%s: the value holds a control character (byte 0x%02x at "
			 "offset %d), which no setting takes: write it on one line, without tabs "
			 "or escapes", s->name, (unsigned)(unsigned char)*bad, (int)(bad - value));
	else if (stored && (bad = relative(k, value, &n)))
		snprintf(why, size, "%s: \"%.*s\" is a relative path, which would name a file "
			 "in whatever folder a process runs in: write it whole, from / (e.g. "
			 "$PWD/%.*s)", s->name, (int)n, bad, (int)n, bad);
	else if (!strcmp(k, K_SWITCH) && rj_parse_flag(value) < 0)
		snprintf(why, size, "%s: \"%s\" is not a switch (1, true, yes, on / 0, false, no, "
			 "off)", s->name, value);
	else if (!strcmp(k, K_SIZE) && (rc = rj_parse_size_raw(value, &bytes)) != 0)
		snprintf(why, size, "%s: \"%s\" is %s", s->name, value,
			 rc == -2 ? "larger than any size (2^64 bytes)" :
				    "not a size: write a number of bytes with an optional unit K, "
				    "M, G or T (powers of 1024), e.g. 4096, 500M, 1.5G");
	else if ((!strcmp(k, K_NUMBER) || !strcmp(k, K_SECONDS)) &&
		 !rj_parse_is_number(value, !strcmp(k, K_SECONDS)))
		snprintf(why, size, "%s: \"%s\" is not a %s number", s->name, value,
			 !strcmp(k, K_SECONDS) ? "decimal" : "whole");
	else if (!strcmp(k, K_LEVEL) && rj_log_parse(value) < 0)
		snprintf(why, size, "%s: \"%s\" is not a log level (off, error, warn, info, "
			 "debug; or 0, 1, 2)", s->name, value);
	else if (strchr(k, '|') && strcmp(k, K_LEVEL) && !one_of(k, value))
		snprintf(why, size, "%s: \"%s\" is not one of %s", s->name, value, k);
	else if (!*value && strcmp(k, K_SWITCH))
		snprintf(why, size, "%s: the value is empty: remove the line (rocjit config "
			 "unset %s) for the default", s->name, s->name);
	else
		return 0;
	return -1;
}

/* s without its leading and trailing blanks, in place. */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

/*
 * Splits a line into key and value (quotes around the value dropped): 1, 0 for a blank or
 * comment line, -1 when it is no `key = value`.
 */
static int split(char *line, char **key, char **value)
{
	char *eq, *v;
	size_t n;

	line = trim(line);
	if (!*line || *line == '#')
		return 0;
	if (!(eq = strchr(line, '=')))
		return -1;
	*eq = 0;
	*key = trim(line);
	v = trim(eq + 1);
	n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = 0;
		v++;
	}
	*value = v;
	return **key ? 1 : -1;
}

/*
 * Opens a configuration file for reading when it may be trusted (OpenSSH's StrictModes):
 * a regular file, not a symbolic link, owned by root or this user and writable by nobody
 * else, in folders that are too up to / (rj_fs_folders_safe: whoever can write a folder on
 * the way can swap the file).  Returns the descriptor with *st, -1 when it does not
 * exist, -2 when it is skipped (why[size] says why).  Checked on the descriptor that is
 * read, so no rename in between can change what is trusted.
 */
static int open_trusted(const char *path, struct stat *st, char *why, size_t size)
{
	int fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, st);
	char folders[500];

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -1;
		snprintf(why, size, "configuration file %s skipped: %s", path,
			 rj_fs_why(errno, st));
		return -2;
	}
	/* Group write only for root's group: a user's primary group may hold others. */
	if ((st->st_uid != 0 && st->st_uid != geteuid()) || (st->st_mode & S_IWOTH) ||
	    ((st->st_mode & S_IWGRP) && st->st_gid != 0)) {
		snprintf(why, size, "configuration file %s skipped: it is %s (owner uid %u, mode "
			 "%04o), so another user could choose what rocjit trusts and loads; make "
			 "it yours or root's and writable by nobody else (chmod go-w %s)", path,
			 (st->st_mode & S_IWOTH) ? "writable by every user" :
			 (st->st_uid != 0 && st->st_uid != geteuid()) ? "owned by another user" :
									"writable by its group",
			 (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777), path);
		close(fd);
		return -2;
	}
	if (rj_fs_folders_safe(fd, path, folders, sizeof folders) != 0) {
		snprintf(why, size, "configuration file %s skipped: %s", path, folders);
		close(fd);
		return -2;
	}
	return fd;
}

/* The whole of a trusted file into *text (malloc'ed): 0; -1 when it does not exist; -2
 * when it cannot be used (why says why). */
static int read_trusted(const char *path, char **text, char *why, size_t size)
{
	struct stat st;
	int fd = open_trusted(path, &st, why, size), rc;

	*text = NULL;
	if (fd < 0)
		return fd;
	rc = st.st_size > FILE_MAX || rj_fs_read_all(fd, (size_t)st.st_size, text) != 0;
	if (rc)
		snprintf(why, size, "cannot read configuration file %s: %s", path,
			 st.st_size > FILE_MAX ? "larger than 1 MiB" : strerror(errno));
	close(fd);
	return rc ? -2 : 0;
}

/* Reads one file into files.value[which]; later lines for the same key win. */
static void read_file(int which)
{
	const char *path = files.path[which];
	char *text, *line, *next, why[600];
	int lineno = 0;

	if (!*path)
		return;
	switch (read_trusted(path, &text, why, sizeof why)) {
	case -2:
		pending("%s", why);
		/* fall through */
	case -1:
		return;
	}
	for (line = text; line; line = next) {
		char *key, *value;
		size_t i;
		int kind;

		lineno++;
		if ((next = strchr(line, '\n')))
			*next++ = 0;
		if ((kind = split(line, &key, &value)) == 0)
			continue;
		if (kind < 0)
			pending("%s:%d: not a `key = value` line; ignored", path, lineno);
		else if (!rj_config_find(key, &i))
			pending("%s:%d: \"%s\" is no rocjit setting (`rocjit config` lists them); "
				"ignored", path, lineno, key);
		else if (i == CONFIG_INDEX)
			pending("%s:%d: %s is read from the environment only; ignored", path,
				lineno, key);
		else if (rj_config_check(&table[i], value, 1, why, sizeof why) != 0)
			pending("%s:%d: %s; ignored", path, lineno, why);
		else {
			char *copy = strdup(value);
			if (copy) {
				free(files.value[which][i]);
				files.value[which][i] = copy;
			}
		}
	}
	free(text);
}

int rj_config_path(char *out, size_t size, int which)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *sys = getenv("ROCJIT_CONFIG");
	int n;

	*out = 0;
	if (which == ROCJIT_CONFIG_SYSTEM)
		n = snprintf(out, size, "%s", sys && !control(sys) ? sys : SYSTEM_FILE);
	else if (xdg && *xdg == '/')
		n = snprintf(out, size, "%s/rocjit/rocjit.conf", xdg);
	else if (home && *home == '/')
		n = snprintf(out, size, "%s/.config/rocjit/rocjit.conf", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= size) {
		*out = 0;
		return -1;
	}
	return 0;
}

static void load(void)
{
	rj_config_path(files.path[0], sizeof files.path[0], ROCJIT_CONFIG_SYSTEM);
	rj_config_path(files.path[1], sizeof files.path[1], ROCJIT_CONFIG_USER);
	read_file(0);
	read_file(1);
}

const char *rj_config_lookup(const char *name, int *from)
{
	const char *env;
	size_t i;
	int known = rj_config_find(name, &i) != NULL;

	if (from)
		*from = RJ_FROM_DEFAULT;
	/* A name the table does not hold is a variable of the environment alone. */
	env = known ? getenv(table[i].env) : name && !strncmp(name, "ROCJIT_", 7) ? getenv(name) :
									     NULL;
	if (env && *env) {
		if (from)
			*from = RJ_FROM_ENV;
		/* A path with a control character is no path anyone meant: the default
		   applies, and check_environment (env.c) says so. */
		return known && is_path_kind(table[i].kind) && control(env) ? NULL : env;
	}
	if (!known)
		return NULL;
	pthread_once(&load_once, load);
	for (int which = 1; which >= 0; which--)
		if (files.value[which][i]) {
			if (from)
				*from = which ? RJ_FROM_USER : RJ_FROM_SYSTEM;
			return files.value[which][i];
		}
	return NULL;
}

const char *rj_config_file_of(int from)
{
	pthread_once(&load_once, load);
	return from == RJ_FROM_USER ? files.path[1] : from == RJ_FROM_SYSTEM ? files.path[0] : NULL;
}

const char *rj_config_warning(int i)
{
	pthread_once(&load_once, load);
	return i < files.npending ? files.pending[i] : NULL;
}

/* One line `key = value`, appended to *out (a malloc'ed text of *len bytes): 0 or -1. */
static int append(char **out, size_t *len, const char *line, size_t n)
{
	char *grown = realloc(*out, *len + n + 2);

	if (!grown)
		return -1;
	memcpy(grown + *len, line, n);
	*len += n;
	grown[(*len)++] = '\n';
	grown[*len] = 0;
	*out = grown;
	return 0;
}

/*
 * old with setting s set to value (NULL: its lines removed), every other line kept as it
 * is, into *out.  The first line of the setting is replaced, later ones dropped.
 */
static int rewrite(char **out, size_t *len, const char *old, const rocjit_setting *s,
		   const char *value)
{
	char line[4200];
	const char *p = old;
	int done = !value, rc = 0;

	*out = NULL;
	*len = 0;
	snprintf(line, sizeof line, "%s = %s", s->name, value ? value : "");
	while (rc == 0 && p && *p) {
		size_t n = strcspn(p, "\n");
		char copy[4200], *key, *v;
		int mine = 0;

		if (n < sizeof copy) {
			memcpy(copy, p, n);
			copy[n] = 0;
			mine = split(copy, &key, &v) == 1 && rj_config_find(key, NULL) == s;
		}
		if (!mine)
			rc = append(out, len, p, n);
		else if (!done)
			rc = append(out, len, line, strlen(line)), done = 1;
		p += n + (p[n] == '\n');
	}
	if (rc == 0 && !done)
		rc = append(out, len, line, strlen(line));
	return rc;
}

/*
 * Writes the user file through a temporary file renamed over it, so that a reader sees the
 * old file or the new one.  The folder is made (0700) when missing; the file is 0644 (a
 * configuration holds no secret: the password lives in its own file).
 */
int rj_config_write_user(const rocjit_setting *s, const char *value, char *why, size_t size)
{
	char path[4096], dir[4096], tmp[4200], *old = NULL, *text = NULL;
	size_t len = 0;
	int fd, rc;

	/* One line per setting: a newline in value would add a line of its own choosing. */
	if (value && control(value)) {
		snprintf(why, size, "%s: the value holds a control character; not written",
			 s->name);
		return -1;
	}
	if (rj_config_path(path, sizeof path, ROCJIT_CONFIG_USER) != 0) {
		snprintf(why, size, "no user configuration file: neither XDG_CONFIG_HOME nor HOME "
			 "is an absolute path");
		return -1;
	}
	if (read_trusted(path, &old, why, size) == -2)
		return -1;
	rc = rewrite(&text, &len, old, s, value);
	free(old);
	if (rc != 0) {
		free(text);
		snprintf(why, size, "out of memory writing %s", path);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
	if ((fd = rj_fs_make_dirs(dir, 0700, NULL)) >= 0)
		close(fd);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	rc = fd < 0 || (len && write(fd, text, len) != (ssize_t)len) || fsync(fd) != 0;
	if (fd >= 0)
		rc |= close(fd) != 0;
	free(text);
	if (rc || rename(tmp, path) != 0) {
		snprintf(why, size, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * bundle_lookup.c - the bundle tier: prebuilt, read-only bundles of code objects, looked
 * in after the user cache (see the Bundles section of rocjit.h).
 *
 * Owns the bundles a context opened (immutable SQLite files in the cache's format, read
 * through the descriptor that was checked), the lookup by portable key, and the checks
 * of a bundle's rows (rj_bundle_row_problem, also import's).  Never writes a bundle it
 * reads, nor the user cache: moving entries between the two is bundle_transfer.c's.  A
 * bundle that cannot be used is skipped with one warning; it never fails a request.
 *
 * A bundle is data from outside: whoever wrote it chose every byte of every row.  An entry
 * is used only after rj_bundle_row_problem() found nothing wrong with it (checksum, code
 * object, target, kernel names, key sizes); a context checks each entry once, the first
 * time it loads it, and remembers the rows it checked.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "codeobj/codeobj.h"
#include "key/target.h"
#include "store/bundle_internal.h"
#include "store/cache_internal.h"
#include "store/signatures.h"
#include "store/sqlite_fd.h"
#include "store/trust.h"

static void bundle_free(struct rj_bundle *b)
{
	sqlite3_finalize(b->find);
	sqlite3_close(b->db);
	if (b->fd >= 0)
		close(b->fd);
	pthread_mutex_destroy(&b->lock);
	free(b->checked);
	free(b);
}

/*
 * The file is opened once, O_NONBLOCK (a FIFO is refused, never waited on), checked as
 * opened (regular, trust rule) and read by SQLite through that same descriptor, so the
 * checked file is the one served.  quiet: for the optional bundle beside the executable.
 */
struct rj_bundle *rj_bundle_open_one(const char *path, int quiet, char *error, size_t size)
{
	struct rj_bundle *b = calloc(1, sizeof *b);
	char trust[1024];
	int app = 0, version = 0;
	const char *why = NULL;
	struct stat st;
	int missing = 0;

	if (error && size)
		error[0] = 0;
	if (!b)
		return NULL;
	snprintf(b->path, sizeof b->path, "%s", path);
	pthread_mutex_init(&b->lock, NULL);
	b->fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY, 0, &st);
	if (b->fd < 0 && errno == ENOENT && quiet) {
		bundle_free(b);
		return NULL;
	}
	if (b->fd < 0) {
		missing = errno == ENOENT;
		why = rj_fs_why(errno, &st);
	} else if (rj_trust_check(b->fd, path, "bundle", 0) != 0) {
		/* Whoever can write a bundle can put code on the GPU: this user's or root's
		   (installed with the application), and writable by nobody else. */
		snprintf(trust, sizeof trust, "%s", rocjit_last_error());
		why = trust;
	} else {
		if (rj_sqlite_open_fd(&b->db, b->fd) != SQLITE_OK)
			why = b->db ? sqlite3_errmsg(b->db) : "out of memory";
		else if (rj_db_int(b->db, "PRAGMA application_id", &app) != SQLITE_OK ||
			 app != RJ_CACHE_APP_ID)
			why = "not a rocjit bundle";
		else if (rj_db_int(b->db, "PRAGMA user_version", &version) != SQLITE_OK ||
			 version != RJ_BUNDLE_FORMAT)
			why = "a format this rocjit does not read";
		else if (sqlite3_prepare_v3(b->db,
					    "SELECT " RJ_BUNDLE_ROW_COLUMNS ", rowid, compiler = ?3, "
					    "key, compiler, options, source_name, headers "
					    "FROM entries "
					    "WHERE pkey = ?1 AND target = ?2 "
					    "ORDER BY compiler = ?3 DESC, created DESC",
					    -1, SQLITE_PREPARE_PERSISTENT, &b->find, NULL) != SQLITE_OK)
			why = sqlite3_errmsg(b->db);
	}
	if (why) {
		/* Bundles are opened once a context: one warning each. */
		if (error && size)
			snprintf(error, size, "%s", why);
		if (missing)
			rj_warn_once("bundle-missing", "bundle %s is skipped: %s", path, why);
		else
			rj_log(RJ_LOG_WARN, "bundle %s is skipped: %s", path, why);
		bundle_free(b);
		return NULL;
	}
	RJ_LOG(RJ_LOG_DEBUG, "bundle %s", path);
	return b;
}

/* Adds the bundles of a colon-separated list; missing files are skipped silently when
 * quiet (the bundle beside the executable is optional), else with a warning. */
static void add_list(struct rj_bundle **list, const char *paths, int quiet)
{
	char path[4096];

	for (const char *p = paths; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n && n < sizeof path) {
			struct rj_bundle *b, **tail = list;
			memcpy(path, p, n);
			path[n] = 0;
			if ((b = rj_bundle_open_one(path, quiet, NULL, 0)) != NULL) {
				while (*tail)
					tail = &(*tail)->next;
				*tail = b;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
}

struct rj_bundle *rj_bundles_open(const char *paths)
{
	struct rj_bundle *list = NULL;

	add_list(&list, paths, 0);
	add_list(&list, rj_config("ROCJIT_BUNDLE_PATH", NULL), 0);
	return list;
}

void rj_bundles_add_beside_executable(struct rj_bundle **list)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 8);

	if (n > 0) {
		memcpy(exe + n, ".rocjit", 8);
		add_list(list, exe, 1);
	}
}

void rj_bundles_close(struct rj_bundle *list)
{
	while (list) {
		struct rj_bundle *next = list->next;
		bundle_free(list);
		list = next;
	}
}

/*
 * Why a bundle row cannot be used as the entry it claims to be, into why[size]; 0 when
 * nothing is wrong.  Checks what the row says against what its code is: the checksum and
 * size, that the code parses as a code object (rj_codeobj_check: AMDGPU ELF or CUBIN),
 * that the object's own target is the row's (a well-formed, normalized target id of the
 * row's platform), that its kernels are the row's, and that the keys are 16 bytes.  What
 * no row can prove - that the code is what its source compiles to - is the trust rule's
 * business (who may write a bundle).  Sets the thread's last error when the code is bad.
 */
int rj_bundle_row_problem(char *why, size_t size, const struct rj_bundle_row *r)
{
	char norm[RJ_TARGET_MAX], *kernels = NULL;
	const char *platform;
	int rc;

	why[0] = 0;
	if (r->key_len >= 0 && (!r->key || r->key_len != 16))
		snprintf(why, size, "its key is %d bytes, not 16", r->key_len);
	else if (!r->pkey || r->pkey_len != 16)
		snprintf(why, size, "its portable key is %d bytes, not 16", r->pkey_len);
	else if (!r->code || r->code_len <= 0 || r->size != r->code_len)
		snprintf(why, size, "its code is %d bytes where the entry says %lld", r->code_len,
			 (long long)r->size);
	else if (rj_checksum(r->code, (size_t)r->code_len) != (uint64_t)r->checksum)
		snprintf(why, size, "its code does not match its checksum");
	else if (!isfinite(r->compile_ms) || r->compile_ms < 0)
		snprintf(why, size, "its compile time is not a duration");
	else if (!r->target || strlen(r->target) >= RJ_TARGET_MAX ||
		 rj_target_normalize(norm, r->target) != 0 || strcmp(norm, r->target) != 0)
		snprintf(why, size, "its target is not a normalized target id");
	if (why[0])
		return -1;
	platform = rocjit_platform_name(rocjit_target_platform(r->target));
	if (!r->platform || strcmp(r->platform, platform) != 0) {
		snprintf(why, size, "its platform is not %s's (%s)", r->target, platform);
		return -1;
	}
	rc = rj_codeobj_check(r->code, (size_t)r->code_len, r->target, &kernels);
	if (rc != 0)
		snprintf(why, size, "its code is not a code object for %s: %s", r->target,
			 rocjit_last_error());
	else if (!r->kernels || strlen(kernels) != rj_kernels_symbols_len(r->kernels) ||
		 strncmp(kernels, r->kernels, strlen(kernels)) != 0)
		snprintf(why, size, "its kernel names are not those in its code (%s)", kernels);
	else if (rj_names_check(r->kernels, kernels, strlen(kernels), r->code,
				(size_t)r->code_len) != 0)
		snprintf(why, size, "its name expressions do not name kernels or variables in "
			 "its code");
	free(kernels);
	/* Names and targets inside the code are the bundle writer's bytes: shown, not run. */
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return why[0] ? -1 : 0;
}

void rj_bundle_row_read(sqlite3_stmt *st, struct rj_bundle_row *r)
{
	r->key = NULL;
	r->key_len = -1;
	r->code = sqlite3_column_blob(st, 0);
	r->code_len = sqlite3_column_bytes(st, 0);
	r->size = sqlite3_column_int64(st, 1);
	r->checksum = sqlite3_column_int64(st, 2);
	r->compile_ms = sqlite3_column_double(st, 3);
	r->platform = (const char *)sqlite3_column_text(st, 4);
	r->target = (const char *)sqlite3_column_text(st, 5);
	r->kernels = (const char *)sqlite3_column_text(st, 6);
	r->pkey = sqlite3_column_blob(st, 7);
	r->pkey_len = sqlite3_column_bytes(st, 7);
}

/* Whether b's row was checked already (b->lock held); adds it when add. */
static int row_checked(struct rj_bundle *b, int64_t rowid, int add)
{
	for (size_t i = 0; i < b->nchecked; i++)
		if (b->checked[i] == rowid)
			return 1;
	if (add) {
		if (b->nchecked == b->capchecked) {
			size_t cap = b->capchecked ? 2 * b->capchecked : 16;
			int64_t *n = realloc(b->checked, cap * sizeof *n);
			if (!n)
				return 0; /* checked again next time */
			b->checked = n;
			b->capchecked = cap;
		}
		b->checked[b->nchecked++] = rowid;
	}
	return 0;
}

/*
 * A bundle's entry is checked (rj_bundle_row_problem) the first time this context loads
 * it; after that its rowid is known good, and the in-process table serves the program's repeats,
 * so a hit never checks again.  A bad entry is a miss with one warning.
 */
/* Whether the row st is on may serve under trust (NULL: no signature is asked for): 1, or
 * 0 with why in rej (1, 2, 3: rj_sig_status of its signature). */
static int row_trusted(struct rj_bundle *b, sqlite3_stmt *st, const struct rj_bundle_row *r,
		       const struct rj_sig_trust *trust, struct rj_bundle_reject *rej)
{
	struct rj_stored_sig sig;
	struct rj_row_subject e;
	enum rj_sig_status status;
	const int at = RJ_BUNDLE_ROW_NCOLUMNS;

	if (!trust)
		return 1;
	if (sqlite3_column_bytes(st, at + 2) != 16) {
		status = RJ_SIG_BAD;
	} else {
		/* Every field the signature covers, from this row: what the hit serves (its
		   code, kernels column and compile time among them) is what is checked. */
		rj_row_subject_make(&e, sqlite3_column_blob(st, at + 2), r->pkey, r->platform,
				    r->target, (const char *)sqlite3_column_text(st, at + 3),
				    (const char *)sqlite3_column_text(st, at + 4),
				    (const char *)sqlite3_column_text(st, at + 5),
				    (const char *)sqlite3_column_text(st, at + 6), r->kernels,
				    r->compile_ms, r->code, (size_t)r->code_len);
		rj_sig_table_get(b->db, e.key.b, &sig);
		status = rj_sig_verify(trust, &e.e, sig.signer, sig.sig, sig.len);
		if (status == RJ_SIG_TRUSTED)
			return 1;
		snprintf(rej->signer, sizeof rej->signer, "%s", sig.signer);
	}
	rej->count++;
	rej->status = (int)status;
	rej->which = b->path;
	return 0;
}

int rj_bundles_get(struct rj_bundle *list, const rj_key *pkey, const char *target,
		   const char *compiler, const struct rj_sig_trust *trust, void **code,
		   size_t *size, double *compile_ms, const char **which, char **kernels,
		   int *exact, struct rj_bundle_reject *rej)
{
	memset(rej, 0, sizeof *rej);
	for (struct rj_bundle *b = list; b; b = b->next) {
		int found = 0;

		pthread_mutex_lock(&b->lock);
		sqlite3_bind_blob(b->find, 1, pkey->b, 16, SQLITE_STATIC);
		sqlite3_bind_text(b->find, 2, target, -1, SQLITE_STATIC);
		sqlite3_bind_text(b->find, 3, compiler ? compiler : "", -1, SQLITE_STATIC);
		/* The best entry first; one that is bad or not trusted gives way to the next. */
		while (!found && sqlite3_step(b->find) == SQLITE_ROW) {
			int64_t rowid = sqlite3_column_int64(b->find, RJ_BUNDLE_ROW_NCOLUMNS);
			struct rj_bundle_row r;
			char why[1024];
			int bad;

			rj_bundle_row_read(b->find, &r); /* its target is target (the WHERE) */
			/* Checked before: the file is immutable, but the copy is still summed. */
			if (row_checked(b, rowid, 0)) {
				snprintf(why, sizeof why, "its code does not match its checksum");
				bad = r.code_len <= 0 || r.size != r.code_len ||
				      rj_checksum(r.code, (size_t)r.code_len) != (uint64_t)r.checksum;
			} else {
				bad = rj_bundle_row_problem(why, sizeof why, &r) != 0;
			}
			if (bad) {
				rj_warn_once("bundle-bad", "bundle %s has a bad entry for %s (%s); it "
					     "is not used", b->path, target, why);
				continue;
			}
			row_checked(b, rowid, 1);
			if (!row_trusted(b, b->find, &r, trust, rej))
				continue;
			if ((*code = malloc((size_t)r.code_len)) != NULL) {
				memcpy(*code, r.code, (size_t)r.code_len);
				*size = (size_t)r.code_len;
				*compile_ms = r.compile_ms;
				*which = b->path;
				*exact = compiler && sqlite3_column_int(b->find,
									RJ_BUNDLE_ROW_NCOLUMNS + 1);
				if (kernels)
					*kernels = strdup(r.kernels ? r.kernels : "");
				found = 1;
			}
		}
		sqlite3_reset(b->find);
		pthread_mutex_unlock(&b->lock);
		if (found)
			return 1;
	}
	return 0;
}

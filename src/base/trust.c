/*
 * trust.c - the one trust rule for everything another party could have written that
 * feeds code or secrets to this process: cache folders and their files, bundles, import
 * sources, trusted-key lists, signing keys, passwords, compiler libraries, the compile
 * worker, the sockets of a remote tier.  Owned by this user or root and writable by nobody
 * else (readable by nobody else too, for a secret).
 *
 * Owns the rule only (trust.h; its folders' half is fsutil.c's, below the log): callers
 * open what they use (base/fsutil.h: by descriptor, never blocking) and ask about that
 * descriptor before reading from it.  No state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsutil.h"
#include "base/trust.h"

/* Whether gid is this process's group or one of its supplementary groups. */
static int in_group(gid_t gid)
{
	gid_t groups[256];
	int n = getgroups(256, groups);

	if (gid == getegid())
		return 1;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return 1;
	return 0;
}

/*
 * The one trust rule for everything that can put code on the GPU: the cache folder and
 * its files, a cache or bundle given as a file, an import source.  Whoever can write such
 * a file chooses the code this process runs, so what fd refers to must be
 *   - owned by this user or by root (root can change any file anyway), and
 *   - writable by nobody else: never by all users; by its group only for a cache shared
 *     by a group (RJ_TRUST_CACHE | RJ_TRUST_SHARED: $ROCJIT_CACHE_SHARED=1) that this
 *     user belongs to - then other members may own files in it too.
 * Checked on the descriptor that is then used (fstat), never on a name looked up again.
 */
int rj_trust_check(int fd, const char *path, const char *what, int flags)
{
	struct stat st;

	RJ_CHECK(fstat(fd, &st) != 0, ROCJIT_EIO, "%s %s: cannot check it: %s", what, path,
		 strerror(errno));
	return rj_trust_check_stat(&st, path, what, flags);
}

int rj_trust_check_stat(const struct stat *stp, const char *path, const char *what, int flags)
{
	struct stat st = *stp;
	uid_t me = geteuid();
	int cache = flags & RJ_TRUST_CACHE, shared = cache && (flags & RJ_TRUST_SHARED);
	int group_ok;

	group_ok = shared && in_group(st.st_gid);
	RJ_CHECK(st.st_uid != me && st.st_uid != 0 && !group_ok, ROCJIT_EIO,
		 "%s %s is owned by user %u, not by you (%u) or root: it is not used, since "
		 "whoever can write it can put code on the GPU; %s", what, path,
		 (unsigned)st.st_uid, (unsigned)me,
		 !cache ? "use a copy of your own, or one root installed" :
		 shared ? "ROCJIT_CACHE_SHARED=1 trusts the members of a group you are in, and "
			  "its group is not one of yours: use a cache folder of your own "
			  "(ROCJIT_CACHE_DIR)"
			: "use a cache folder of your own (ROCJIT_CACHE_DIR), or, for a cache "
			  "shared by a group you are in, set ROCJIT_CACHE_SHARED=1");
	RJ_CHECK((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && !group_ok), ROCJIT_EIO,
		 "%s %s is writable by %s (mode %04o): it is not used, since whoever can write "
		 "it can put code on the GPU; make it yours alone with chmod %s %s%s", what,
		 path, st.st_mode & S_IWOTH ? "everyone" : "its group",
		 (unsigned)(st.st_mode & 07777), shared ? "o-w" : "go-w", path,
		 cache && !shared && !(st.st_mode & S_IWOTH) ?
			 ", or, if it is a cache shared by your group, set ROCJIT_CACHE_SHARED=1" :
			 "");
	RJ_CHECK((flags & RJ_TRUST_SECRET) && (st.st_mode & (S_IRGRP | S_IROTH)), ROCJIT_EIO,
		 "%s %s is readable by %s (mode %04o): it holds a secret, so it is not used; "
		 "make it yours alone with chmod 600 %s", what, path,
		 st.st_mode & S_IROTH ? "everyone" : "its group",
		 (unsigned)(st.st_mode & 07777), path);
	return 0;
}

int rj_trust_open(const char *path, const char *what, int flags, struct stat *st)
{
	struct stat local;
	int fd, err;

	if (!st)
		st = &local;
	fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY, 0, st);
	RJ_CHECK(fd < 0, ROCJIT_EIO, "%s %s: cannot open it: %s", what, path,
		 rj_fs_why(errno, st));
	if ((err = rj_trust_check_stat(st, path, what, flags)) != 0) {
		close(fd);
		return err;
	}
	return fd;
}

int rj_trust_check_peer(int fd, const char *path, const char *what, uid_t service)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	uid_t me = geteuid();

	RJ_CHECK(getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0, ROCJIT_EIO,
		 "%s %s: cannot tell who serves it: %s", what, path, strerror(errno));
	RJ_CHECK(cred.uid != me && cred.uid != 0 && cred.uid != service, ROCJIT_EIO,
		 "%s %s is served by a process of user %u, not by you (%u), root or the "
		 "socket's owner: it is not used, since whoever serves it can put code on the "
		 "GPU; use a server of your own, or a service's socket in the service's own "
		 "folder", what, path, (unsigned)cred.uid, (unsigned)me);
	return 0;
}

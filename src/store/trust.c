/*
 * trust.c - whether what rocjit opens may be used at all: the one trust rule for
 * every file that can feed code to the GPU (a cache folder and its files, bundles, import
 * sources: owned by this user or root and writable by nobody else), whether a cache is on
 * a local file system (SQLite's WAL locking fails on network ones), and shared mode.
 *
 * Owns these rules only (trust.h); cache_db.c and bundle_lookup.c ask, about descriptors
 * they opened, before SQLite reads anything.  Opens nothing itself and never touches a
 * database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/error.h"
#include "store/cache.h"
#include "store/trust.h"

int rj_cache_trust_flags(void)
{
	return RJ_TRUST_CACHE | (rocjit_env_flag("ROCJIT_CACHE_SHARED") ? RJ_TRUST_SHARED : 0);
}

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
	return 0;
}

/* SQLite's WAL needs shared memory and locks that network file systems do not give. */
int rj_cache_check_local(int dirfd, const char *dir, int *cow)
{
	static const unsigned long cow_types[] = { 0x9123683eul /* btrfs */,
						   0x2fc12fc1ul /* ZFS */,
						   0xca451a4eul /* bcachefs */ };
	struct statfs fs;

	*cow = 1; /* unknown: as if */
	if (fstatfs(dirfd, &fs) != 0)
		return 0;
	*cow = 0;
	for (size_t i = 0; i < sizeof cow_types / sizeof cow_types[0]; i++)
		*cow |= (unsigned long)fs.f_type == cow_types[i];
	if (!rj_fs_is_network((unsigned long)fs.f_type))
		return 0;
	RJ_CHECK(!rocjit_env_flag("ROCJIT_CACHE_ALLOW_NETWORK_FS"), ROCJIT_EIO,
		 "cache folder %s is on a network file system (type 0x%lx), where SQLite's "
		 "locking is unreliable: it is not used; put the cache on a local disk "
		 "(ROCJIT_CACHE_DIR=/tmp/...), or set ROCJIT_CACHE_ALLOW_NETWORK_FS=1 at your own "
		 "risk", dir, (unsigned long)fs.f_type);
	return 0;
}

int rj_fs_is_network(unsigned long type)
{
	static const unsigned long network[] = {
		0x6969,     /* NFS */
		0x517b,     /* SMB */
		0xff534d42, /* CIFS */
		0xfe534d42, /* SMB2 */
		0x0bd00bd0, /* Lustre */
		0x47504653, /* GPFS */
		0x00c36400, /* Ceph */
		0x5346414f, /* AFS */
		0x01021997, /* 9P */
		0x65735546, /* FUSE (sshfs, ...) */
		0x013111a8, /* IBRIX */
		0x19830326, /* BeeGFS */
	};
	for (size_t i = 0; i < sizeof network / sizeof network[0]; i++)
		if (type == network[i])
			return 1;
	return 0;
}

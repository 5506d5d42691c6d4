/*
 * cache_guard.c - whether a cache folder may be used at all: owned by this user and
 * writable by nobody else (else it is a way to put code on the GPU), and on a local file
 * system (SQLite's WAL locking fails on network ones); and the size limit's syntax.
 *
 * Owns these rules only; cache.c asks before it opens anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cache_internal.h"
#include "error.h"

/*
 * A cache another user can write to can hand this process arbitrary GPU code: the folder
 * and the database must be the user's own and writable by nobody else.  An operator may
 * opt in to a cache shared by a group ($ROCJIT_CACHE_SHARED=1): group write is then
 * allowed, world write never.
 */
int rj_cache_check_trusted(const char *dir, const char *file)
{
	const char *paths[2] = { dir, file };
	mode_t forbidden = rocjit_env_flag("ROCJIT_CACHE_SHARED") ? S_IWOTH : (S_IWGRP | S_IWOTH);

	for (int i = 0; i < 2; i++) {
		struct stat st;
		if (stat(paths[i], &st) != 0)
			continue; /* the file is created below, 0600 */
		RJ_CHECK(st.st_uid != geteuid() && !rocjit_env_flag("ROCJIT_CACHE_SHARED"), ROCJIT_EIO,
			 "cache %s is owned by user %u, not by this user (%u): it is not used, "
			 "since whoever can write it can put code on the GPU; use a cache folder "
			 "of your own (ROCJIT_CACHE_DIR), or set ROCJIT_CACHE_SHARED=1 for a "
			 "group cache", paths[i], (unsigned)st.st_uid, (unsigned)geteuid());
		RJ_CHECK(st.st_mode & forbidden, ROCJIT_EIO,
			 "cache %s is writable by %s (mode %03o): it is not used, since whoever "
			 "can write it can put code on the GPU; fix it with chmod %s %s%s",
			 paths[i], st.st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(st.st_mode & 0777), i == 0 ? "700" : "600", paths[i],
			 st.st_mode & S_IWOTH ? "" : ", or set ROCJIT_CACHE_SHARED=1 for a group cache");
	}
	return 0;
}

/* SQLite's WAL needs shared memory and locks that network file systems do not give. */
int rj_cache_check_local(const char *dir)
{
	struct statfs fs;

	if (statfs(dir, &fs) != 0 || !rj_fs_is_network((unsigned long)fs.f_type))
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

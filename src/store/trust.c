/*
 * trust.c - the store's own conditions on a cache folder: whether it is on a local file
 * system (SQLite's WAL locking fails on network ones), and shared mode.  The trust rule
 * every file is held to lives below, in base/trust.c.
 *
 * Opens nothing itself and never touches a database.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/error.h"
#include "store/cache.h"
#include "base/trust.h"
#include "store/trust.h"

int rj_cache_trust_flags(void)
{
	return RJ_TRUST_CACHE | (rocjit_env_flag("ROCJIT_CACHE_SHARED") ? RJ_TRUST_SHARED : 0);
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

/*
 * mapguard.h - mappings of files that another party can shrink (see mapguard.c): an access
 * past the file's new end becomes zeros and a mark, never SIGBUS.  A reader copies or
 * checks what it took from a guarded mapping, then asks rj_mapguard_broken(): when it says
 * so, what was taken may hold zeros, and is a miss.
 */
#ifndef ROCJIT_MAPGUARD_H
#define ROCJIT_MAPGUARD_H

#include <stddef.h>

/*
 * Guards the mapping [addr, addr + len) (a MAP_SHARED mapping of a file, the caller's),
 * installing the process's SIGBUS handler at the first call.  Call it before the first
 * access to the mapping.  Returns the guard (>= 0), or -1 when the table is full or the
 * handler cannot be installed: then do not use the mapping (unmap it).  Thread-safe.
 */
int rj_mapguard_add(void *addr, size_t len);
/* Stops guarding (call it before munmap; -1: nothing).  The mapping is then the caller's
 * to unmap: after a fault it is an anonymous mapping of the same place and size. */
void rj_mapguard_remove(int guard);
/* Whether an access to guard's mapping went past its file's end: then the whole mapping
 * reads as zeros from then on (and writes to it reach no file).  An atomic load;
 * async-signal-safe. */
int rj_mapguard_broken(int guard);

#endif

/*
 * sqlite_floor.c - what SQLite alone needs for a new process's first disk hit: the floor
 * under rocjit_open + the first lookup (bench/RESULTS.md, issue 14).
 *
 *   sqlite_floor [--keep-wal] DB
 *
 * Plain SQLite on a copy of a rocjit cache, none of rocjit's checks: sqlite3_initialize,
 * sqlite3_open_v2 (read-write, the default VFS), the first statement (PRAGMA
 * synchronous=NORMAL: it reads the schema and, in WAL mode, opens the -wal and -shm), the
 * prepare of rocjit's lookup and one step of it for a key that is absent.  --keep-wal sets
 * SQLITE_FCNTL_PERSIST_WAL first, as rocjit does, so that the next run finds the -wal and
 * -shm.  Prints the times in ms on one line.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int keep = argc == 3 && !strcmp(argv[1], "--keep-wal"), one = 1, rc;
	const char *path = argv[argc - 1];
	double t[6];
	sqlite3_stmt *st;
	sqlite3 *db;

	if (argc != 2 && !keep) {
		fprintf(stderr, "usage: sqlite_floor [--keep-wal] DB\n");
		return 2;
	}
	t[0] = now_ms();
	sqlite3_initialize();
	t[1] = now_ms();
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db));
		return 1;
	}
	if (keep)
		sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	t[2] = now_ms();
	rc = sqlite3_exec(db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	t[3] = now_ms();
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v3(db, "SELECT code, size, checksum, compile_ms, kernels FROM "
					"entries WHERE key = ?1", -1, SQLITE_PREPARE_PERSISTENT, &st,
					NULL);
	t[4] = now_ms();
	if (rc != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_bind_blob(st, 1, "absent-key-16-by", 16, SQLITE_STATIC);
	rc = sqlite3_step(st);
	t[5] = now_ms();
	printf("init=%.4f open=%.4f first_read=%.4f prepare=%.4f step=%.4f total=%.4f%s\n",
	       t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4], t[5] - t[0],
	       rc == SQLITE_DONE ? "" : " (step failed)");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}

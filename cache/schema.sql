-- rocjit on-disk cache, format version 2 (stored as PRAGMA user_version = 2).
-- Embedded into the library at build time (src/store/cache_db.c runs it when a database is new).
-- See cache/FORMAT.md.

CREATE TABLE IF NOT EXISTS entries (
	id          INTEGER PRIMARY KEY,
	key         BLOB    NOT NULL UNIQUE CHECK (length(key) = 16), -- XXH3-128, src/key.h
	platform    TEXT    NOT NULL,           -- "amd"
	target      TEXT    NOT NULL,           -- normalized target id: gfx90a:sramecc+:xnack-
	compiler    TEXT    NOT NULL,           -- compiler identity: hiprtc 9.0 hip 50221153 ...
	options     TEXT    NOT NULL,           -- normalized options, space separated
	source_name TEXT    NOT NULL,           -- file name for humans; not part of the key
	headers     TEXT    NOT NULL,           -- in-memory header names, space separated
	kernels     TEXT    NOT NULL,           -- kernel symbols in the code object, comma
	                                        -- separated; then "\nexpr\tlowered" for each
	                                        -- name expression (FORMAT.md)
	size        INTEGER NOT NULL,           -- bytes of code
	checksum    INTEGER NOT NULL,           -- XXH3-64 of code, checked on every read
	created     INTEGER NOT NULL,           -- unix seconds
	last_used   INTEGER NOT NULL,           -- unix seconds
	hits        INTEGER NOT NULL DEFAULT 0, -- disk hits
	compile_ms  REAL    NOT NULL,           -- what compiling it took
	pkey        BLOB,                       -- the key without the compiler (bundles, v2)
	code        BLOB    NOT NULL            -- the code object; last, so metadata reads skip it
);

CREATE INDEX IF NOT EXISTS entries_last_used ON entries (last_used);
CREATE INDEX IF NOT EXISTS entries_target ON entries (target);
CREATE INDEX IF NOT EXISTS entries_pkey ON entries (pkey);

-- What each platform's compiler identity was, with a fingerprint of the files it came
-- from (src/compile/compiler_id.c): lets a cache hit skip loading the compiler.
CREATE TABLE IF NOT EXISTS compilers (
	platform    TEXT    PRIMARY KEY,        -- "amd", "nvidia"
	memo        TEXT    NOT NULL            -- identity + file and environment fingerprint
);

-- Counters across processes since the last `rocjit stats --zero` (src/store/cache_usage.c adds each
-- context's counts when it closes).  Rows: disk_hits, misses, compiles, compile_ms,
-- saved_ms (compile time the disk hits did not spend again), since (unix seconds).
CREATE TABLE IF NOT EXISTS counters (
	name        TEXT    PRIMARY KEY,
	value       REAL    NOT NULL
);

/*
 * breaker.h - the remote tier's circuit breaker (see breaker.c): after a failure, the
 * deployment is left alone for a period, by this process and, through a file in the
 * cache folder, by the node's other processes.
 */
#ifndef ROCJIT_REMOTE_BREAKER_H
#define ROCJIT_REMOTE_BREAKER_H

/* What a command gets, negated, while the breaker is open (client.h's RJ_REDIS_OFF). */
#define RJ_BREAKER_OFF 120

/* One deployment's breaker.  Not thread-safe: its client's user locks (remote.c). */
struct rj_breaker {
	int retry_ms;            /* how long it stays open after a failure */
	double off_until;        /* rj_now_ms() before which nothing is sent */
	char off_why[768];       /* why it opened; "" while closed */
	int warned;              /* a warning was printed since the last success */
	int quiet;               /* no warning at all (an administrative call reports) */
	int share_fd;            /* the folder of the shared file, or -1 */
	char share_name[48];     /* rocjit-remote-<16 hex of the URL shown>.down */
	int share_seen;          /* the file was there at the last look */
};

/* A closed breaker with its period, sharing nothing yet. */
void rj_breaker_init(struct rj_breaker *b, int retry_ms);
/* Shares it through a file in the folder dirfd (duplicated; -1: none). */
void rj_breaker_share(struct rj_breaker *b, int dirfd);
/* Lets go of the shared folder. */
void rj_breaker_close(struct rj_breaker *b);

/*
 * The calls below take shown, the deployment's URL without its password: it goes into
 * the messages and names the shared file.
 */
/* A failure: opens the breaker for the period, writes the shared file, and warns once an
 * outage (later failures of the same outage only at ROCJIT_LOG=info). */
void rj_breaker_trip(struct rj_breaker *b, const char *shown, const char *why);
/* 0 when commands may be sent now; else -RJ_BREAKER_OFF with the reason recorded. */
int rj_breaker_check(struct rj_breaker *b, const char *shown);
/* Before a connection: 1 when another process of the node found the deployment failing
 * less than the period ago (the breaker opens for what is left of it, with that reason),
 * else 0.  One fstatat; the file is read only when it is recent. */
int rj_breaker_shared_off(struct rj_breaker *b, const char *shown);
/* A command worked: closes the breaker, and removes the shared file when there is one. */
void rj_breaker_succeeded(struct rj_breaker *b, const char *shown);

#endif

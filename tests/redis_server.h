/*
 * redis_server.h - a real redis-server for a test (the remote tier, issue 15): started on
 * 127.0.0.1 at a free port and on a unix socket in the test's folder, with nothing saved
 * to disk, and ended with the test process (PR_SET_PDEATHSIG) whatever happens to it.
 * Also a 3-master Redis Cluster made of such servers, with helpers to move a slot so that
 * a client meets MOVED and ASK redirects; servers that never answer (for timeouts); and
 * pausing or killing a server (for a server that hangs or dies under a client).
 *
 * Everything here is for one test process, from its main thread, and fails the test
 * (ASSERT) rather than returning an error unless said otherwise.
 */
#ifndef ROCJIT_TEST_REDIS_SERVER_H
#define ROCJIT_TEST_REDIS_SERVER_H

#include <stddef.h>
#include <sys/types.h>

struct rj_redis_server {
	pid_t pid;              /* 0 once stopped or killed */
	int port;
	char dir[4200];         /* its folder, in the test's */
	char sock[4300];        /* its unix socket */
	/* When not empty, rj_redis_call authenticates with it (AUTH) before each command.
	 * rj_redis_start leaves it empty even with --requirepass (a test sees NOAUTH until
	 * it sets this); rj_redis_cluster_start sets it on its nodes. */
	char password[256];
};

/*
 * Starts one, with extra ("--requirepass", "x", ..., NULL; may be NULL) after rocjit's
 * settings, and waits (5 s at most) until it answers PING.  Skips the test (exit 77) when
 * redis-server is not installed (tools/install-deps.sh installs it); fails it when the
 * server does not come up.  name: a folder name for it in the test's folder.
 */
void rj_redis_start(struct rj_redis_server *s, const char *name, const char *const *extra);

/* Ends it (SIGCONT, SIGTERM, then SIGKILL after 2 s) and waits for it.  Harmless when
 * stopped, killed (rj_redis_kill9) or paused (rj_redis_pause). */
void rj_redis_stop(struct rj_redis_server *s);

/*
 * Sends one command (its words, NULL-terminated) over TCP in the Redis protocol, after
 * AUTH when s->password is set, and reads one reply into reply (size bytes,
 * NUL-terminated): a status or error line as it comes ("+OK", "-ERR ..."), an integer as
 * ":N", a bulk string's bytes, "(nil)"; an array as its elements so written, one a line
 * ("\n" between them; nested arrays flattened in order; an empty array is ""). A failed
 * AUTH gives its error line as the reply.  0, or -1 when no whole reply came within
 * timeout_ms (replies over 64 KiB count as none).
 */
int rj_redis_call(const struct rj_redis_server *s, int timeout_ms, char *reply, size_t size,
		  const char *const *words);

/*
 * Hanging and dying servers.  A paused server (SIGSTOP) still completes TCP handshakes
 * (the kernel does) but answers nothing: a client's command times out.
 */
/* Stops it (SIGSTOP) and returns once it is stopped. */
void rj_redis_pause(struct rj_redis_server *s);
/* Continues it (SIGCONT): it answers again, the commands sent meanwhile included. */
void rj_redis_resume(struct rj_redis_server *s);
/* Kills it (SIGKILL, paused or not) and waits for it: nothing listens on its port or its
 * socket afterwards (the socket file stays, refusing connections).  s->pid becomes 0. */
void rj_redis_kill9(struct rj_redis_server *s);

/*
 * A 3-master Redis Cluster: three servers as above, each with cluster mode on
 * (--cluster-enabled yes, nodes.conf in its own folder, --cluster-node-timeout 2000), at
 * ports P where P and the cluster bus port P + 10000 were both free (picked below the
 * kernel's ephemeral range where it can, so that no client connection takes one
 * meanwhile), joined by `redis-cli --cluster create ... --cluster-replicas 0`: node i owns
 * about a third of the 16384 slots.
 */
struct rj_redis_cluster {
	struct rj_redis_server node[3]; /* rj_redis_call works on each */
	char id[3][48];                 /* each node's id (CLUSTER MYID) */
	char dir[4200];                 /* its folder, in the test's; node i's is dir/node<i> */
	char password[256];             /* from --requirepass in extra, or empty */
};

/*
 * Starts the three nodes with extra on each (as rj_redis_start's; "--requirepass", "pw"
 * among them makes every node need pw, and this file's calls use it: c->password and each
 * node's password), creates the cluster (redis-cli, its output in dir/create.log), and
 * waits (20 s at most) until CLUSTER INFO on every node says cluster_state:ok with all
 * 16384 slots assigned and 3 nodes known.  Skips the test (77) when redis-server or
 * redis-cli is not installed; fails it, printing the logs, when the cluster does not come
 * up.  name: a folder name for it in the test's folder.
 */
void rj_redis_cluster_start(struct rj_redis_cluster *c, const char *name,
			    const char *const *extra);
/* Ends the three nodes (rj_redis_stop).  Harmless when stopped. */
void rj_redis_cluster_stop(struct rj_redis_cluster *c);

/* The slot of key (CLUSTER KEYSLOT, asked of a live node): 0..16383. */
int rj_redis_cluster_slot_of(const struct rj_redis_cluster *c, const char *key);
/* The index (0..2) of the master serving slot: the one node whose own line of CLUSTER
 * NODES lists it (during a migration, still the source).  -1 when not exactly one does. */
int rj_redis_cluster_node_of_slot(const struct rj_redis_cluster *c, int slot);
/* rj_redis_cluster_node_of_slot of the key's slot. */
int rj_redis_cluster_node_of_key(const struct rj_redis_cluster *c, const char *key);

/*
 * Leaves slot half-migrated from its owner to node `to` (another node): IMPORTING on `to`,
 * MIGRATING on the owner, and moves keys (NULL-terminated, of that slot, each existing or
 * not; may be NULL) with MIGRATE.  Then the owner answers a moved or missing key of the
 * slot with "-ASK <slot> 127.0.0.1:<to's port>", and still serves the keys it holds.
 */
void rj_redis_cluster_migrate_start(struct rj_redis_cluster *c, int slot, int to,
				    const char *const *keys);
/*
 * Ends a migration that rj_redis_cluster_migrate_start began: moves the slot's remaining
 * keys from the owner to `to`, then gives `to` the slot (CLUSTER SETSLOT <slot> NODE on
 * `to`, the old owner, then the third node).  Then the old owner (and the third node)
 * answer any key of the slot with "-MOVED <slot> 127.0.0.1:<to's port>".
 */
void rj_redis_cluster_migrate_finish(struct rj_redis_cluster *c, int slot, int to);
/* Moves slot with all its keys to node `to`: migrate_start then migrate_finish. */
void rj_redis_cluster_move_slot(struct rj_redis_cluster *c, int slot, int to);

/*
 * Servers that never answer, for connect and read timeouts.
 *
 * rj_blackhole_listen: a listening TCP socket on 127.0.0.1 (its port in *port) whose
 * accept queue is full, so that a new connect() to it hangs until the client gives up.
 * The trick: listen(fd, 0) lets one finished connection wait for accept(); this makes
 * that connection itself (and keeps it open), and nobody ever accepts.  With the queue
 * full, Linux drops each new SYN (tcp_conn_request: "listen overflow"), SYN cookies or
 * not, and the client's kernel resends it at 1 s, 3 s, 7 s ...: connect() neither succeeds
 * nor fails.  Made sure of before returning: a further non-blocking connect is still in
 * progress after 200 ms.  Fails the test when that cannot be made so.  The socket and the
 * connections filling it last until rj_blackhole_close(fd) or the end of the process.
 */
int rj_blackhole_listen(int *port);
void rj_blackhole_close(int fd);
/*
 * rj_silent_server_start: a forked child (ended with the test process) listening on
 * 127.0.0.1 (its port in *port) that accepts every connection and reads what comes, but
 * never writes nor closes: connect() succeeds, a command's reply never comes.  Returns the
 * child's pid for rj_silent_server_stop (which kills and waits for it).
 */
pid_t rj_silent_server_start(int *port);
void rj_silent_server_stop(pid_t pid);

#endif

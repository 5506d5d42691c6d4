/*
 * test_url.c - the remote tier's address (src/store/url.c): every form of
 * ROCJIT_REMOTE parses to what it names, every bad one is refused saying why, and no
 * message or shown form ever holds the password.
 */
#include "base/error.h"
#include "remote/url.h"
#include "harness.h"

#define SECRET "s3cr3t-Pa55"

/* Parses text, which must fail; its message must not hold SECRET (nor its encoded
 * forms) and must hold want. */
static void refused(const char *text, const char *want)
{
	struct rj_remote_url u;
	const char *msg;

	ASSERT_INT(rj_remote_url_parse(text, &u), ROCJIT_EINVAL);
	msg = rocjit_last_error();
	ASSERT(strstr(msg, SECRET) == NULL);
	ASSERT(strstr(msg, "s3cr3t") == NULL);
	ASSERT_CONTAINS(msg, want);
}

TEST(tcp_url_with_every_part)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("redis://alice:" SECRET "@cache.example.org:7000/3", &u), 0);
	ASSERT_INT(u.kind, RJ_REMOTE_TCP);
	ASSERT_INT(u.nhosts, 1);
	ASSERT_STR(u.hosts[0].name, "cache.example.org");
	ASSERT_INT(u.hosts[0].port, 7000);
	ASSERT_STR(u.user, "alice");
	ASSERT_STR(u.password, SECRET);
	ASSERT_INT(u.db, 3);
	ASSERT_INT(u.readonly, 0);
	ASSERT_STR(u.prefix, RJ_REMOTE_PREFIX);
	ASSERT_INT(u.connect_ms, RJ_REMOTE_CONNECT_MS);
	ASSERT_INT(u.timeout_ms, RJ_REMOTE_TIMEOUT_MS);
	ASSERT_INT(u.ttl_s, 0);
}

TEST(defaults_and_short_forms)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("redis://127.0.0.1", &u), 0);
	ASSERT_STR(u.hosts[0].name, "127.0.0.1");
	ASSERT_INT(u.hosts[0].port, RJ_REMOTE_PORT);
	ASSERT_INT(u.db, 0);
	ASSERT(!u.user[0] && !u.password[0]);
	ASSERT_INT(rj_remote_url_parse("redis://localhost:6380/", &u), 0);
	ASSERT_INT(u.hosts[0].port, 6380);
	ASSERT_INT(u.db, 0);
	/* A password alone (AUTH password), and a user alone. */
	ASSERT_INT(rj_remote_url_parse("redis://:" SECRET "@h", &u), 0);
	ASSERT_STR(u.user, "");
	ASSERT_STR(u.password, SECRET);
	ASSERT_INT(rj_remote_url_parse("redis://bob@h", &u), 0);
	ASSERT_STR(u.user, "bob");
	ASSERT_STR(u.password, "");
}

TEST(ipv6_hosts_in_brackets)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("redis://[::1]:6400", &u), 0);
	ASSERT_STR(u.hosts[0].name, "::1");
	ASSERT_INT(u.hosts[0].port, 6400);
	ASSERT_INT(rj_remote_url_parse("redis://[fe80::1:2]", &u), 0);
	ASSERT_STR(u.hosts[0].name, "fe80::1:2");
	ASSERT_INT(u.hosts[0].port, RJ_REMOTE_PORT);
	refused("redis://[::1:6400", "']'");
	refused("redis://[::1]6400", "':port'");
	refused("redis://::1:6400", "IPv6");
}

TEST(percent_encoded_credentials)
{
	struct rj_remote_url u;

	/* A password with '@', ':' and '/' must be encoded; it decodes to itself. */
	ASSERT_INT(rj_remote_url_parse("redis://us%65r:p%40ss%3Aw%2Frd@h:1", &u), 0);
	ASSERT_STR(u.user, "user");
	ASSERT_STR(u.password, "p@ss:w/rd");
	ASSERT_STR(u.hosts[0].name, "h");
	refused("redis://u:" SECRET "%4@h", "percent-encoded");
	refused("redis://u:" SECRET "%zz@h", "percent-encoded");
	refused("redis://u:" SECRET "%00@h", "percent-encoded");
	refused("redis://u:@h", "empty");
}

TEST(unix_socket_url)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("unix:///run/redis/redis.sock", &u), 0);
	ASSERT_INT(u.kind, RJ_REMOTE_UNIX);
	ASSERT_STR(u.path, "/run/redis/redis.sock");
	ASSERT_INT(u.nhosts, 0);
	ASSERT_INT(rj_remote_url_parse("unix:///tmp/r.sock?db=2&readonly", &u), 0);
	ASSERT_STR(u.path, "/tmp/r.sock");
	ASSERT_INT(u.db, 2);
	ASSERT_INT(u.readonly, 1);
	refused("unix://relative.sock", "absolute path");
	refused("unix://", "absolute path");
	{
		char longpath[300] = "unix:///";
		memset(longpath + 8, 'x', 200);
		longpath[208] = 0;
		refused(longpath, "longer than");
	}
}

TEST(cluster_url_with_seeds)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("redis-cluster://:" SECRET "@10.0.0.1:7000,10.0.0.2:7001,"
				       "[::1]:7002?prefix=fleet&ttl=86400",
				       &u),
		   0);
	ASSERT_INT(u.kind, RJ_REMOTE_CLUSTER);
	ASSERT_INT(u.nhosts, 3);
	ASSERT_STR(u.hosts[1].name, "10.0.0.2");
	ASSERT_INT(u.hosts[1].port, 7001);
	ASSERT_STR(u.hosts[2].name, "::1");
	ASSERT_STR(u.password, SECRET);
	ASSERT_STR(u.prefix, "fleet");
	ASSERT_INT(u.ttl_s, 86400);
	refused("redis-cluster://a:1/2", "only database 0");
	refused("redis://a:1,b:2", "redis-cluster://");
	refused("redis-cluster://a:1,,b:2", "host is missing");
	{
		char many[400] = "redis-cluster://";
		for (int i = 0; i < RJ_REMOTE_MAX_HOSTS + 1; i++)
			snprintf(many + strlen(many), sizeof many - strlen(many), "%sh%d:1",
				 i ? "," : "", i);
		refused(many, "more than");
	}
}

TEST(options_are_checked)
{
	struct rj_remote_url u;

	ASSERT_INT(rj_remote_url_parse("redis://h?readonly&connect_timeout=50&timeout=2000", &u),
		   0);
	ASSERT_INT(u.readonly, 1);
	ASSERT_INT(u.connect_ms, 50);
	ASSERT_INT(u.timeout_ms, 2000);
	ASSERT_INT(rj_remote_url_parse("redis://h?readonly=0", &u), 0);
	ASSERT_INT(u.readonly, 0);
	refused("redis://h?readonly=yes", "readonly");
	refused("redis://h?timeout=0", "timeout=");
	refused("redis://h?connect_timeout=99999999", "connect_timeout=");
	refused("redis://h?ttl=-1", "ttl=");
	refused("redis://h?prefix=a:b", "prefix");
	refused("redis://h?prefix=", "prefix=");
	refused("redis://h?bogus=1", "not one of");
	refused("redis://h?db=1", "not one of"); /* db= is for unix:// */
}

TEST(bad_urls_say_why_without_the_password)
{
	refused("", "empty");
	refused("rediss://u:" SECRET "@h", "TLS");
	refused("http://u:" SECRET "@h", "redis://");
	refused("redis://u:" SECRET "@", "host is missing");
	refused("redis://u:" SECRET "@h:0", "port");
	refused("redis://u:" SECRET "@h:65536", "port");
	refused("redis://u:" SECRET "@h:6379x", "port");
	refused("redis://u:" SECRET "@h/x", "database number");
	refused("redis://u:" SECRET "@bad host", "host name");
	refused("redis://u:" SECRET "@h?bogus", "not one of");
}

TEST(redaction_masks_the_password_in_any_text)
{
	static const char *const texts[] = {
		"redis://u:" SECRET "@h:1/0",
		"redis://:" SECRET "@h",
		"redis-cluster://u:" SECRET "@a:1,b:2?readonly",
		"redis://u:" SECRET "@h/0?prefix=x",
		"rediss://u:" SECRET "@h",
		"foo://u:" SECRET "@@h/x?y",
		"u:" SECRET "@h",                  /* no scheme: nothing shown of it */
		"redis://u:" SECRET "@",
		/* Unencoded '/', '?', '#', '@' in the password (the parser refuses them; the
		   message showing the URL must still mask them). */
		"redis://u:s3cr3t/" SECRET "@h:6379",
		"redis://u:s3cr3t?" SECRET "@h:6379/1",
		"redis://u:s3cr3t#" SECRET "@h",
		"redis://u:s3cr3t@" SECRET "@h:1",
		"redis-cluster://u:s3cr3t/" SECRET "@a:1,b:2",
	};
	char out[256];

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		rj_remote_url_redact(texts[i], out, sizeof out);
		ASSERT(strstr(out, SECRET) == NULL);
		ASSERT(strstr(out, "s3cr3t") == NULL);
	}
	rj_remote_url_redact("redis://alice:" SECRET "@h:1/2", out, sizeof out);
	ASSERT_STR(out, "redis://alice:***@h:1/2");
	rj_remote_url_redact("redis://h:6379/1", out, sizeof out);
	ASSERT_STR(out, "redis://h:6379/1"); /* nothing to mask: as given */
	rj_remote_url_redact("redis://alice:" SECRET "@h", out, 12);
	ASSERT_STR(out, "redis://ali"); /* cut, still without it */
}

TEST(unencoded_password_characters_never_reach_a_message)
{
	static const char *const urls[] = {
		"redis://u:s3cr3t/" SECRET "@h:6379",
		"redis://u:s3cr3t?" SECRET "@h:6379",
		"redis://:s3cr3t#" SECRET "@h",
		"redis-cluster://u:s3cr3t/" SECRET "@a:1,b:2",
	};
	struct rj_remote_url u;

	for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
		rj_error_clear();
		rj_remote_url_parse(urls[i], &u); /* refused or not: the message must not hold it */
		ASSERT(strstr(rocjit_last_error(), SECRET) == NULL);
		ASSERT(strstr(rocjit_last_error(), "s3cr3t") == NULL);
	}
}

TEST(shown_form_never_holds_the_password)
{
	struct rj_remote_url u;
	char out[512];

	ASSERT_INT(rj_remote_url_parse("redis://alice:" SECRET "@h:7000/3", &u), 0);
	rj_remote_url_show(&u, out, sizeof out);
	ASSERT_STR(out, "redis://alice:***@h:7000/3");
	ASSERT_INT(rj_remote_url_parse("redis-cluster://a:1,[::1]:2", &u), 0);
	rj_remote_url_show(&u, out, sizeof out);
	ASSERT_STR(out, "redis-cluster://a:1,[::1]:2");
	ASSERT_INT(rj_remote_url_parse("unix:///r.sock?db=4", &u), 0);
	rj_remote_url_show(&u, out, sizeof out);
	ASSERT_STR(out, "unix:///r.sock?db=4");
}

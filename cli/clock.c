/*
 * clock.c - the clocks: monotonic milliseconds for durations (compile times, progress,
 * time limits) and wall-clock unix seconds for ages (an entry's last use).
 *
 * Owns nothing, and uses no other file of cli/.
 */
#include <time.h>

#include "cli.h"

double cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int64_t cli_now_s(void)
{
	return (int64_t)time(NULL);
}

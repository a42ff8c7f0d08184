/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/progress.h"

/* Everything written to @f so far. */
static char *written(FILE *f)
{
	static char buf[4096];
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	return buf;
}

Test(progress, elsewhere_a_line_each_interval_and_nothing_before)
{
	FILE *f = tmpfile();
	struct progress p;

	cr_assert_not_null(f);
	progress_begin(&p, f, "replay", "events", 0);
	cr_assert_not(p.tty);
	cr_assert_eq(p.interval_s, PROGRESS_LINE_S);
	progress_show(&p, 10);
	cr_assert_str_empty(written(f), "short work says nothing");

	p.next_s = 0; /* as if the interval had passed */
	progress_show(&p, 8192);
	cr_assert(strstr(written(f), "replay: 8192 events in "), "%s", written(f));
	cr_assert(strchr(written(f), '\n') && !strchr(written(f), '\r'), "%s", written(f));
	progress_show(&p, 9000);
	cr_assert_null(strstr(written(f), "9000"), "one line an interval: %s", written(f));

	p.next_s = 0;
	p.total = 10000;
	progress_tick(&p, 9000);
	cr_assert_null(strstr(written(f), "9000"), "a tick looks every 4096: %s", written(f));
	progress_tick(&p, 12288);
	cr_assert(strstr(written(f), "replay: 12288/10000 events"), "%s", written(f));
	progress_end(&p);
	cr_assert_null(strstr(written(f), "\033[K"), "%s", written(f));
	fclose(f);
}

Test(progress, a_terminal_gets_a_bar_cleared_at_the_end)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;
	char buf[1024] = "";
	struct progress p;
	ssize_t n;
	FILE *f;

	cr_assert_geq(master, 0);
	cr_assert_eq(grantpt(master), 0);
	cr_assert_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	cr_assert_geq(slave, 0);
	f = fdopen(slave, "w");
	cr_assert_not_null(f);

	progress_begin(&p, f, "trace gen", "events", 200);
	cr_assert(p.tty);
	p.next_s = 0;
	progress_show(&p, 50);
	progress_end(&p);
	fclose(f);
	/* a pty hands over what was written in pieces: read until the closed side says EIO */
	for (size_t at = 0; at < sizeof(buf) - 1; at += (size_t)n) {
		n = read(master, buf + at, sizeof(buf) - 1 - at);
		if (n <= 0)
			break;
	}
	cr_assert_gt(strlen(buf), 0);
	cr_assert(strstr(buf, "\rtrace gen [#######"), "%s", buf);
	cr_assert(strstr(buf, "]  25% 50/200 events, "), "%s", buf);
	cr_assert(strstr(buf, "\r\033[K"), "the bar is cleared: %s", buf);
	close(master);
}

Test(progress, without_a_stream_nothing)
{
	struct progress p;

	progress_begin(&p, NULL, "sweep", "runs", 10);
	p.next_s = 0;
	progress_show(&p, 4096);
	progress_tick(&p, 4096);
	progress_end(&p);
	cr_assert_null(p.f);
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "json.h"
#include "types.h"
#include "yaml_internal.h"

/*
 * Hostile input: what libfyaml cannot be given (a NUL byte, bytes that are
 * not UTF-8) is refused before it sees it, and what it can is parsed once
 * in a child process first, which may crash or loop instead of gpuiso.
 */

/*
 * The trial parse's pace (yaml_trial_parse()): the CPU time it may use, 10 s and
 * 1 s more for every 128 KiB (libfyaml parses 5 MiB or more in a second of
 * CPU time here: a 50 MB file takes about 10 s of the 400 s it may; but a
 * mapping's keys cost it time that grows with the square of their count,
 * and 50,000 keys in one mapping take it many minutes), and the seconds it
 * may neither run nor move on.
 */
#define YAML_CPU_S 10
#define YAML_CPU_BYTES_PER_S (128u << 10)
#define YAML_STUCK_S 30
#define YAML_POLL_MS 250

/*
 * What libfyaml cannot be given: a NUL byte, or bytes that are not UTF-8
 * (YAML and JSON are text in UTF-8; libfyaml 0.7.12 loops for ever on a
 * directive line with an invalid sequence). The first is reported where it is.
 */
int yaml_check_text(struct yaml_doc *d, const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	int line = 1, col = 1;

	for (size_t i = 0, n; i < len; i += n, col++) {
		n = p[i] ? json_utf8_len(p + i, len - i) : 0;
		if (!n && p[i]) {
			yaml_err_pos(d, line, col, "not UTF-8 text (byte 0x%02x, offset %zu)", p[i], i);
			return -EINVAL;
		}
		if (!n) {
			yaml_err_pos(d, line, col, "a NUL byte (offset %zu)", i);
			return -EINVAL;
		}
		if (p[i] == '\n') {
			line++;
			col = 0;
		}
	}
	return 0;
}

/* In the trial child: each diagnostic of the parser, as it comes, to the parent. */
static void send_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	if (write(*(int *)user, buf, len) < 0)
		_exit(0); /* the parent has gone: nothing to tell */
}

/* The child's side of yaml_trial_parse(): parse as this process will, saying every error on @fd. */
static void __attribute__((noreturn)) trial_child(int fd, const char *text, size_t len,
						  unsigned int flags)
{
	struct fy_diag_cfg dcfg;
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | flags };

	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = send_output;
	dcfg.user = &fd;
	dcfg.colorize = false;
	dcfg.show_source = false;
	dcfg.level = FYET_ERROR;
	cfg.diag = fy_diag_create(&dcfg);
	if (cfg.diag)
		fy_document_build_from_string(&cfg, text, len);
	_exit(0); /* the write end closes: the parent's wait ends */
}

/* Where the trial child's last error said it was, in @said; false when it said none. */
static bool trial_last_error(char *said, int *line, int *col, const char **msg, int *msglen)
{
	const char *pos = NULL;
	int at = 0;

	/* its last error, "<memory-…>:LINE:COL: error: MESSAGE", says where it was */
	for (const char *l = said; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
		if (!strncmp(l, "<memory", 7) && strstr(l, ">:"))
			pos = strstr(l, ">:"); /* the last error's own line: its name ends at its first ">:" */
	if (!pos || sscanf(pos, ">:%d:%d: error: %n", line, col, &at) != 2 || !at)
		return false;
	*msg = pos + at;
	*msglen = (int)strcspn(pos + at, "\n");
	return true;
}

/*
 * Parse @text once in a child process first: libfyaml 0.7.12 crashes on
 * some few bytes of valid UTF-8 ("? a:\t?") and loops for ever on others,
 * and a parse must not take gpuiso with it. The child parses exactly as
 * this process will (the same call on the same bytes: libfyaml's crashes
 * depend on how it is handed the text). It is watched by its pace
 * (child.h), never by the clock: one that has used more CPU time than any
 * parse of a file that size takes loops on the file, however busy the
 * machine; one that neither runs nor moves on for YAML_STUCK_S is blocked
 * on something that is not the file.
 *
 * Return: 0 when the child finished (this process then parses it and hears
 * its errors, if any), -EINVAL when it died or looped on the file (reported
 * where its last error said, when it said one), -ECHILD when it was stuck
 * or killed by someone else (reported: not the file's doing).
 */
int yaml_trial_parse(struct yaml_doc *d, const char *text, size_t len, unsigned int flags)
{
	struct pollfd pfd = { .events = POLLIN };
	unsigned int cpu_s = YAML_CPU_S + (unsigned int)(len / YAML_CPU_BYTES_PER_S);
	enum child_pace_verdict v = CHILD_MOVING;
	struct child_pace pace;
	char said[4096], why[160];
	size_t nsaid = 0;
	int fds[2], status, line = 0, col = 0, msglen = 0;
	const char *msg;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return 0; /* no child to be had: the parse is this process's, as before */
	pid = child_fork("yaml-trial");
	if (pid == 0) {
		close(fds[0]);
		trial_child(fds[1], text, len, flags);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	/* what it says, until it ends (the pipe's end), or its pace says it will not */
	pfd.fd = fds[0];
	child_pace_start(&pace, pid);
	for (;;) {
		uint64_t before = clock_mono_ns();
		int ready = poll(&pfd, 1, YAML_POLL_MS);
		ssize_t n;

		if (ready < 0 && errno != EINTR) {
			/* cannot wait for it: the parse is this process's, as without a child */
			kill(pid, SIGKILL);
			close(fds[0]);
			child_reap(pid, NULL);
			return 0;
		}
		if (ready > 0) {
			n = read(fds[0], said + nsaid, sizeof(said) - 1 - nsaid);
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				break; /* the end: the child is done */
			if (n > 0)
				nsaid += (size_t)n;
			if (nsaid == sizeof(said) - 1)
				nsaid = 0; /* only the last errors matter */
		}
		/*
		 * Its progress cannot be seen from here: it is judged by its CPU
		 * time alone. At most two polls' worth of waiting count at a
		 * time: a whole process stopped (^Z) is not a stuck child.
		 */
		v = child_pace_check(&pace, 0,
				     GPUISO_MIN(clock_mono_ns() - before, 2 * YAML_POLL_MS * 1000000ull),
				     cpu_s, YAML_STUCK_S);
		if (v != CHILD_MOVING) {
			kill(pid, SIGKILL);
			break;
		}
	}
	close(fds[0]);
	status = child_reap(pid, NULL);
	said[nsaid] = '\0';
	if (v == CHILD_MOVING && WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (v == CHILD_STUCK || (v == CHILD_MOVING && WIFSIGNALED(status) &&
				 WTERMSIG(status) == SIGKILL)) {
		char line_text[512];

		/* not the file's doing: a process blocked (stopped, deadlocked), or killed from outside */
		if (v == CHILD_STUCK)
			child_pace_say(&pace, v, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "was killed from outside (SIGKILL: out of memory?)");
		snprintf(line_text, sizeof(line_text),
			 "%s: error: the process that parses it first (yaml-trial, pid %d) %s: not the file's doing\n",
			 d->path, (int)pid, why);
		yaml_err_add(d, 0, 0, line_text);
		d->env_err = -ECHILD;
		return -ECHILD;
	}
	if (v == CHILD_SPINNING)
		snprintf(why, sizeof(why),
			 "did not finish in %u s of CPU time, the most a file of %zu bytes is given",
			 cpu_s, len);
	else
		child_died_of(status, why, sizeof(why));
	if (trial_last_error(said, &line, &col, &msg, &msglen))
		yaml_err_pos(d, line, col,
			     "%.*s; then the YAML parser (libfyaml) %s: not YAML it can read", msglen,
			     msg, why);
	else
		yaml_err_pos(d, 1, 1, "the YAML parser (libfyaml) %s on this file: not YAML it can read",
			     why);
	return -EINVAL;
}


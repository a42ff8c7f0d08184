/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "types.h"

/*
 * LTTng-UST's fork hooks (lttng/ust-fork.h): weak, so that they are there
 * exactly when liblttng-ust is in the process.
 */
extern void lttng_ust_before_fork(sigset_t *save_sigset) __attribute__((weak));
extern void lttng_ust_after_fork_parent(sigset_t *restore_sigset) __attribute__((weak));
extern void lttng_ust_after_fork_child(sigset_t *restore_sigset) __attribute__((weak));

/*
 * A sanitizer's callback at a report (libFuzzer's writes the input as a
 * finding of its own): weak, there exactly when a sanitizer runtime is.
 */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* How a parser or decoder dies; a sanitizer's handlers of them stay out of the child. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

int child_tie(pid_t parent, const char *name)
{
	if (name)
		prctl(PR_SET_NAME, name); /* a name is for people: no failure matters */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return -errno;
	/* the parent may have died between fork() and here: then no signal comes */
	return getppid() == parent ? 0 : -ESRCH;
}

/* Whether this process's tracepoints are being recorded (child_fork_set_traced()). */
static bool (*fork_traced)(void);
/* In a child that LTTng-UST was not started again in: no other thread, no hook to call. */
static bool lttng_inert;

void child_fork_set_traced(bool (*traced)(void))
{
	fork_traced = traced;
}

bool child_fork_traced(void)
{
	return lttng_ust_after_fork_child && !lttng_inert && fork_traced && fork_traced();
}

pid_t child_fork_plain(void)
{
	bool hooks = lttng_ust_before_fork && lttng_ust_after_fork_parent &&
		     lttng_ust_after_fork_child && !lttng_inert;
	sigset_t saved;
	pid_t pid;
	int err;

	if (!hooks)
		return fork();
	lttng_ust_before_fork(&saved);
	pid = fork();
	err = errno;
	if (pid > 0 || pid < 0) {
		lttng_ust_after_fork_parent(&saved);
	} else if (child_fork_traced()) {
		lttng_ust_after_fork_child(&saved); /* a traced process of its own */
	} else {
		/*
		 * Nothing calls LTTng-UST here: no tracepoint is enabled, and
		 * this copy of their states never changes. Its locks stay
		 * held, its threads are not started again.
		 */
		lttng_inert = true;
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	errno = err;
	return pid;
}

pid_t child_fork(const char *name)
{
	struct rlimit no_core = { 0, 0 };
	pid_t parent = getpid();
	pid_t pid = child_fork_plain();

	if (pid != 0)
		return pid;
	if (child_tie(parent, name))
		_exit(127);
	setrlimit(RLIMIT_CORE, &no_core);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		signal(fatal_signals[i], SIG_DFL);
	/* a library's error the sanitizer reports in the child (an allocation too big) is its death */
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	return 0;
}

bool child_ends_within(pid_t pid, unsigned int ms)
{
	struct pollfd pfd = { .fd = pidfd_open(pid, 0), .events = POLLIN };
	int rc;

	if (pfd.fd < 0)
		return true;
	do
		rc = poll(&pfd, 1, (int)ms);
	while (rc < 0 && errno == EINTR);
	close(pfd.fd);
	return rc != 0;
}

int child_reap(pid_t pid, uint64_t *peak_rss)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (peak_rss)
		*peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	return status;
}

const char *child_died_of(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "crashed (%s)", strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "ended with wait status %#x", (unsigned int)status);
	return buf;
}

/* ---- watching a child's pace ---- */

/* The scheduler state of @pid ('R', 'S', 'D', 'T', 'Z', ...), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], state = '?';
	const char *close_paren;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return state;
	/* "PID (COMM) S ...": the name may hold anything, the last ')' ends it */
	if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) && close_paren[1] == ' ')
		state = close_paren[2];
	fclose(f);
	return state;
}

static bool cpu_time(const struct child_pace *p, uint64_t *ns)
{
	struct timespec ts;

	if (!p->cpu_known || clock_gettime(p->cpu, &ts))
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return true;
}

void child_pace_start(struct child_pace *p, pid_t pid)
{
	*p = (struct child_pace){ .pid = pid, .state = '?' };
	p->cpu_known = !clock_getcpuclockid(pid, &p->cpu);
	if (!cpu_time(p, &p->cpu_at_mark_ns))
		p->cpu_known = false;
	p->cpu_ns = p->cpu_at_mark_ns;
}

enum child_pace_verdict child_pace_check(struct child_pace *p, uint64_t mark, uint64_t waited_ns,
					 unsigned int spin_s, unsigned int stuck_s)
{
	uint64_t cpu = p->cpu_ns;
	bool ran;

	if (p->cpu_known && !cpu_time(p, &cpu))
		cpu = p->cpu_ns; /* gone already: its end is about to be seen */
	ran = cpu != p->cpu_ns;
	p->cpu_ns = cpu;
	if (mark != p->mark) {
		p->mark = mark;
		p->cpu_at_mark_ns = cpu;
		p->waited_ns = 0;
		return CHILD_MOVING;
	}
	if (p->cpu_known && cpu - p->cpu_at_mark_ns >= (uint64_t)spin_s * 1000000000ull)
		return CHILD_SPINNING;
	/* running or waiting for a core: slow, not stuck, however long it takes */
	p->state = proc_state(p->pid);
	if (ran || p->state == 'R') {
		p->waited_ns = 0;
		return CHILD_MOVING;
	}
	p->waited_ns += waited_ns;
	return p->waited_ns >= (uint64_t)stuck_s * 1000000000ull ? CHILD_STUCK : CHILD_MOVING;
}

const char *child_pace_say(const struct child_pace *p, enum child_pace_verdict v, char *buf,
			   size_t len)
{
	char path[64], wchan[64] = "";
	FILE *f;

	if (v == CHILD_SPINNING) {
		snprintf(buf, len, "used %.0f s of CPU time without moving on",
			 (double)(p->cpu_ns - p->cpu_at_mark_ns) / 1e9);
		return buf;
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)p->pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = '\0';
		fclose(f);
	}
	snprintf(buf, len, "neither ran nor moved on for %.0f s (state %c%s%s)",
		 (double)p->waited_ns / 1e9, p->state, wchan[0] && strcmp(wchan, "0") ?
		 ", waiting in " : "", wchan[0] && strcmp(wchan, "0") ? wchan : "");
	return buf;
}

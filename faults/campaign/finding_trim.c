/* SPDX-License-Identifier: MIT */
/*
 * Each finding's reproducer trimmed in a child of the pool (finding_trim.h):
 * the child runs trim_run() and sends the parent what it kept; the parent
 * writes the command that replays it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/path.h"
#include "faults/campaign/finding_trim.h"
#include "replay/text.h"

/* What a trimming child tells the parent (pool_send()). */
struct finding_trimmed {
	int rc;              /* trim_run()'s */
	uint64_t kept, events, nth;
	bool plan;           /* trim_result.plan */
	char why[1024];      /* rc != 0: why */
};

/* Finding @i's trim options: the caller's, into its OUT/findings/SIGNATURE/trace. */
static void trim_opts_of(const struct finding_trimmer *ft, size_t i, struct trim_opts *to)
{
	ft->opts(ft->arg, i, to);
	to->out = ft->repro[i].trim.trace;
	to->max_replays = FINDING_TRIM_REPLAYS;
}

/* A trimming child's beat, once per replay: it is moving. */
static void trim_beat(void *arg)
{
	watch_beat(arg);
}

/*
 * Beside a trimmed trace TRACE, its events as text in TRACE.txt (as
 * `gpuiso trace dump` writes them), for a reader of the findings and for
 * the dashboard's page of the finding. A convenience: a failure costs the
 * text only.
 */
static void trim_text(const struct trim_opts *to)
{
	char path[sizeof(((struct finding_trim *)0)->trace) + 8], err[256];

	snprintf(path, sizeof(path), "%s.txt", to->out);
	if (text_dump_file(to->out, NULL, 0, path, err, sizeof(err)))
		unlink(path);
}

/* In the child of slot @slot: trim finding @i, tell the parent how it went, and leave. */
static void trim_child(const struct finding_trimmer *ft, size_t slot, size_t i)
{
	struct finding_trimmed m = { 0 };
	struct trim_result tr;
	struct trim_opts to;

	trim_opts_of(ft, i, &to);
	to.beat = trim_beat;
	to.beat_arg = pool_beat(ft->pool, slot);
	m.rc = trim_run(&to, &tr, m.why, sizeof(m.why));
	if (!m.rc)
		trim_text(&to);
	m.kept = tr.kept;
	m.events = tr.events;
	m.nth = tr.nth;
	m.plan = tr.plan;
	_exit(pool_send(ft->pool, slot, &m, sizeof(m)) ? ft->exit_error : 0);
}

/* The child trimming finding p->slots[slot].job ended with @status: its reproducer, checked, or why not. */
static void trim_done(void *arg, const struct pool *p, size_t slot, int status)
{
	const struct finding_trimmer *ft = arg;
	size_t i = p->slots[slot].job;
	struct finding_repro *r = &ft->repro[i];
	struct finding_trimmed m;
	struct trim_result tr;
	struct trim_opts to;
	size_t len;
	FILE *f;

	if (p->slots[slot].killed) {
		snprintf(r->why, sizeof(r->why), "not trimmed: trimming %s, killed",
			 p->slots[slot].killed == WATCH_OVERTIME ? "ran out of time" : "made no progress");
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || p->slots[slot].msglen != sizeof(m)) {
		snprintf(r->why, sizeof(r->why), "not trimmed: trimming crashed (%s %d)",
			 WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ?
			 WTERMSIG(status) : WEXITSTATUS(status));
		return;
	}
	memcpy(&m, p->slots[slot].msg, sizeof(m));
	if (m.rc) {
		snprintf(r->why, sizeof(r->why), "not trimmed: %s", m.why);
		if (ft->progress)
			fprintf(ft->progress, "%s: finding %zu not trimmed: %s\n", ft->who, i + 1, m.why);
		return;
	}
	trim_opts_of(ft, i, &to);
	tr = (struct trim_result){ .kept = m.kept, .events = m.events, .nth = m.nth, .plan = m.plan };
	f = open_memstream(&r->cmd, &len);
	if (!f)
		return;
	if (trim_reproducer(&to, &tr, f) | fclose(f)) {
		free(r->cmd);
		r->cmd = NULL;
		return;
	}
	r->trimmed = true;
	r->trim.events = m.kept;
	r->trim.of = m.events;
}

/*
 * Start trimming finding @i in a child of its own. trim_run() checks the
 * trimmed trace reproduces from disk before it says so.
 * Return: 0, or a negative errno of waiting.
 */
static int trim_start_one(const struct finding_trimmer *ft, size_t i)
{
	const struct finding *fd = &ft->findings->v[i];
	struct finding_repro *r = &ft->repro[i];
	size_t slot = 0;
	pid_t pid;
	int rc;

	if (r->why[0])
		return 0;
	if ((size_t)snprintf(r->trim.trace, sizeof(r->trim.trace), "%s/findings/%016llx/trace",
			     ft->out, (unsigned long long)fd->signature) >= sizeof(r->trim.trace) ||
	    path_mkdir_parent(r->trim.trace)) {
		snprintf(r->why, sizeof(r->why), "not trimmed: cannot make the folder of %s",
			 r->trim.trace);
		return 0;
	}
	if (ft->progress) {
		fprintf(ft->progress, "%s: trimming the reproducer of finding %zu/%zu: %s\n", ft->who,
			i + 1, ft->findings->n, fd->title);
		fflush(ft->progress);
	}
	while (ft->pool->running == ft->pool->n)
		if ((rc = pool_wait(ft->pool, trim_done, (void *)ft)))
			return rc;
	while (ft->pool->slots[slot].pid)
		slot++;
	pid = pool_fork(ft->pool, slot, i, "trim", ft->exit_error);
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "not trimmed: fork: %s", strerror((int)-pid));
		return 0;
	}
	if (!pid)
		trim_child(ft, slot, i); /* does not return */
	return 0;
}

int finding_trim_all(const struct finding_trimmer *ft, char *err, size_t errlen)
{
	char dir[4096];
	int rc;

	snprintf(dir, sizeof(dir), "%s/findings", ft->out);
	rc = path_remove_tree(dir);
	if (rc) {
		snprintf(err, errlen, "%s: %s: cannot remove the last findings: %s", ft->who, dir,
			 strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < ft->findings->n && !rc; i++)
		rc = trim_start_one(ft, i);
	while (ft->pool->running && !rc)
		rc = pool_wait(ft->pool, trim_done, (void *)ft);
	pool_kill_all(ft->pool);
	for (size_t i = 0; i < ft->findings->n; i++) {
		struct finding_repro *r = &ft->repro[i];

		if (!r->trimmed) {
			free(r->cmd);
			r->cmd = r->whole ? strdup(r->whole) : NULL;
		}
	}
	if (rc)
		snprintf(err, errlen, "%s: waiting for the trimming: %s", ft->who, strerror(-rc));
	return rc;
}

void finding_repro_text(FILE *f, const struct finding_repro *r)
{
	fprintf(f, "   reproduce: %s\n", r->cmd ? r->cmd : "(out of memory)");
	if (r->trimmed)
		fprintf(f, "   (a trimmed trace: %llu of the trace's %llu events; on the whole "
			"trace: %s)\n", (unsigned long long)r->trim.events,
			(unsigned long long)r->trim.of, r->whole ? r->whole : "(out of memory)");
	else if (r->why[0])
		fprintf(f, "   (the whole trace: %s)\n", r->why);
}

void finding_repro_free(struct finding_repro *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].cmd);
		free(r[i].whole);
	}
	free(r);
}

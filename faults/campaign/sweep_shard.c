/* SPDX-License-Identifier: MIT */
/*
 * A sweep in shards (shard.h; docs/slurm.md). Every shard runs the counting
 * pass, so each knows every run, in the order the replay hits them; the
 * runs are split into contiguous parts of equal expected cost
 * (shard_split()), and a shard forks (or runs from scratch) its part only.
 * Runs next to each other often end in the same state, and a forked run
 * stops where it meets an earlier run of its own shard (meet.h): contiguous
 * parts keep most of those meetings.
 *
 * A shard books each run as it ends in its journal, OUT/shards/I-of-N: the
 * header (what the work is: its inputs, options, the gpuiso that ran it and
 * what the counting pass found), then a record per run:
 *
 *   run RUN POINT NTH OUTCOME
 *   verdict ... / finding ...   (verdict_lines_write(), when it said one)
 *   end RUN
 *
 * A shard started again keeps the records of the same work and runs the
 * rest; a record cut short by a kill is dropped. sweep_merge() runs the
 * counting pass once more, books every shard's records and writes the
 * report a sweep of all runs writes; runs no shard booked are listed,
 * shard by shard, and nothing is merged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "code.h"
#include "common/digest.h"
#include "common/digest_path.h"
#include "common/path.h"
#include "common/units.h"
#include "faults/campaign/shard.h"
#include "faults/campaign/sweep_internal.h"
#include "replay/verdict.h"

/*
 * A forked run's expected cost, in replayed events (docs/slurm.md,
 * "Figures"). On the 10,000-event power-cycle trace the replay takes about
 * 1.2 us an event, and 4 shards of equal counts took CPU in proportion to
 * about 0.66 ms a run (fork, exit and the first checks) plus 1/16 of the
 * events left after its hit: most runs meet the unfailed run within a few
 * events, the few that never do replay the rest of the trace.
 */
#define SWEEP_FORK_COST 550
#define SWEEP_REST_SHARE 16

/* What defines the sweep, as the header's fields say it (a merge reads them back). */
static int header_fields(const struct sweep *s, struct shard_header *h)
{
	const struct sweep_opts *o = s->o;
	char run_timeout[16], stall_timeout[16];
	int rc;

	snprintf(run_timeout, sizeof(run_timeout), "%u", o->run_timeout_s);
	snprintf(stall_timeout, sizeof(stall_timeout), "%u", o->stall_timeout_s);
	snprintf(h->kind, sizeof(h->kind), "sweep");
	rc = shard_field_add(h, "trace", s->trace);
	/* a field each, in order: the merge reads them back as the sweep's --map options */
	for (size_t i = 0; !rc && i < o->nmaps; i++)
		rc = shard_field_add(h, "map", s->maps[i]);
	if (!rc)
		rc = shard_field_add(h, "scenario", s->scenario);
	if (!rc)
		rc = shard_field_add(h, "faults", s->faults);
	if (!rc)
		rc = shard_field_add(h, "points", o->points);
	if (!rc)
		rc = shard_field_add(h, "trace-covers", trace_covers_name(o->covers));
	if (!rc)
		rc = shard_field_add(h, "mode", o->from_scratch ? "from-scratch" : "fork");
	if (!rc)
		rc = shard_field_add(h, "run-timeout", run_timeout);
	if (!rc)
		rc = shard_field_add(h, "stall-timeout", stall_timeout);
	return rc;
}

/*
 * The work's key: the header's fields, the gpuiso that runs it, its
 * inputs' content, and what the counting pass found. Shards of the same
 * key ran the same runs the same way.
 */
static int work_of(const struct sweep *s, const struct shard_header *h, uint64_t *work)
{
	uint64_t w = digest_fnv1a_str(DIGEST_FNV_BASIS, GPUISO_CODE_ID);
	const char *inputs[] = { s->trace, s->scenario, s->faults };
	int rc = 0;

	for (size_t i = 0; i < h->nfields; i++)
		w = digest_fnv1a_str(digest_fnv1a_str(w, h->fields[i].name), h->fields[i].value);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		if (!inputs[i])
			continue;
		rc = digest_path(inputs[i], &w);
		if (rc)
			return rc;
	}
	for (size_t i = 0; !rc && i < s->o->nmaps; i++)
		rc = digest_path(s->maps[i], &w);
	if (rc)
		return rc;
	w = DIGEST_FOLD(w, s->total, s->nevents, s->baseline);
	*work = digest_fold(w, s->hits, FP_NPOINTS);
	return 0;
}

/*
 * Each run's shard. A forked run costs a fork and the events it replays:
 * one that may stop where it meets the unfailed run (it may when that run
 * recovered) is taken to replay a share of the events left; one that may
 * not replays all of them. A run from scratch replays the whole trace:
 * they all cost the same.
 */
static int owners_of(const struct sweep *s, uint32_t count, uint32_t **owner)
{
	uint64_t *cost = calloc(s->total ? s->total : 1, sizeof(*cost));

	*owner = calloc(s->total ? s->total : 1, sizeof(**owner));
	if (!cost || !*owner) {
		free(cost);
		free(*owner);
		*owner = NULL;
		return -ENOMEM;
	}
	for (uint64_t r = 0; r < s->total && !s->o->from_scratch; r++) {
		const struct sweep_run *run = &s->runs[r];
		uint64_t event = s->where[run->point][run->nth - 1].event;
		uint64_t rest = s->nevents > event ? s->nevents - event : 0;

		/* the merge compares no states: what it knows is whether the shards could */
		cost[r] = SWEEP_FORK_COST +
			  (s->baseline == SWEEP_RECOVERED ? rest / SWEEP_REST_SHARE : rest);
	}
	shard_split(cost, s->total, count, *owner);
	free(cost);
	return 0;
}

static int header_of(struct sweep *s, const struct shard *sh, struct shard_header *h)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->sh = *sh;
	rc = header_fields(s, h);
	if (!rc)
		rc = work_of(s, h, &h->work);
	if (rc)
		shard_header_free(h);
	s->work = h->work;
	return rc;
}

/* "run RUN POINT NTH OUTCOME" into @r. */
static bool run_line(const char *line, struct sweep_record *r)
{
	unsigned long long run, nth;
	char point[32], outcome[16];
	int p, oc;

	if (sscanf(line, "run %llu %31s %llu %15s", &run, point, &nth, outcome) != 4 ||
	    !shard_line_as_written(line, "run %llu %s %llu %s", run, point, nth, outcome) ||
	    (p = fp_point_lookup(point)) < 0 || !nth)
		return false;
	for (oc = 0; oc < SWEEP_NOUTCOMES && strcmp(sweep_outcome_names[oc], outcome); oc++)
		;
	*r = (struct sweep_record){ .run = run, .point = (enum fp_point)p, .nth = nth,
				    .outcome = (enum sweep_outcome)oc };
	return oc < SWEEP_NOUTCOMES;
}

int sweep_journal_records(FILE *f, int (*each)(void *arg, const struct sweep_record *r), void *arg,
			  off_t *good)
{
	unsigned long long end;
	struct sweep_record r;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0, got;

	*good = ftello(f);
	while (!rc && shard_line(f, &line, &cap) == 1 && run_line(line, &r)) {
		while ((got = shard_line(f, &line, &cap)) == 1 &&
		       verdict_line_read(line, &r.verdict) == 1)
			r.has_verdict = true;
		/* a verdict says the outcome it ends in: one that says another is not this run's */
		if (got != 1 || sscanf(line, "end %llu", &end) != 1 ||
		    !shard_line_as_written(line, "end %llu", end) || end != r.run ||
		    (r.has_verdict && (r.outcome >= SWEEP_CRASH ||
				       (int)r.verdict.outcome != (int)r.outcome)))
			break;
		*good = ftello(f);
		rc = each(arg, &r);
	}
	free(line);
	return rc;
}

/* What reading a journal into a sweep needs. */
struct journal_reading {
	struct sweep *s;
	bool book;         /* book each run (a merge), or only mark it done (a shard resuming) */
	uint64_t records;
};

/*
 * One record of a journal of this work: its run is booked, or marked done.
 * Return: 0, -EPROTO (not one of this sweep's runs, or one booked twice
 * with another outcome: @s->err says which).
 */
static int journal_record(void *arg, const struct sweep_record *r)
{
	struct journal_reading *jr = arg;
	struct sweep *s = jr->s;
	struct sweep_run *run = r->run < s->total ? &s->runs[r->run] : NULL;

	if (!run || run->point != r->point || run->nth != r->nth) {
		snprintf(s->err, s->errlen, "sweep: the journal's run %llu (%s:%llu) is not this "
			 "sweep's", (unsigned long long)r->run, fp_point_name(r->point),
			 (unsigned long long)r->nth);
		return -EPROTO;
	}
	jr->records++;
	if (run->ended) {
		/* the same run twice (a shard run twice at once): the same outcome, or not deterministic */
		if (run->outcome == r->outcome)
			return 0;
		snprintf(s->err, s->errlen, "sweep: %s:%llu was booked as %s and as %s: the replay is "
			 "not deterministic", fp_point_name(r->point), (unsigned long long)r->nth,
			 sweep_outcome_names[run->outcome], sweep_outcome_names[r->outcome]);
		return -EPROTO;
	}
	run->ended = true;
	run->outcome = r->outcome;
	if (jr->book) {
		sweep_book(s, (uint32_t)r->run, r->outcome, r->has_verdict ? &r->verdict : NULL);
		s->ended++;
	}
	return s->error;
}

/*
 * Read the journal at @f into @s when its header is @ours (the same work
 * and shard): *@read says whether it was. *@good: as sweep_journal_records().
 * Return: the records read (>= 0), or a negative errno.
 */
static int64_t journal_load(struct sweep *s, FILE *f, const struct shard_header *ours, bool book,
			    bool *read, off_t *good)
{
	struct journal_reading jr = { .s = s, .book = book };
	struct shard_header h;
	int rc;

	*read = false;
	*good = 0;
	/* a header of other work (or none): nothing of it is read */
	rc = shard_header_read(f, &h);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	*read = !strcmp(h.kind, ours->kind) && h.work == ours->work &&
		h.sh.index == ours->sh.index && h.sh.count == ours->sh.count;
	shard_header_free(&h);
	if (*read)
		rc = sweep_journal_records(f, journal_record, &jr, good);
	return rc ? rc : (int64_t)jr.records;
}

/* Write all of @len bytes at @buf to @fd. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A text for the journal, written whole with one write() (journal_text_write()). */
struct journal_text {
	FILE *f;
	char *text;
	size_t len;
};

static int journal_text_begin(struct journal_text *t)
{
	*t = (struct journal_text){ 0 };
	t->f = open_memstream(&t->text, &t->len);
	return t->f ? 0 : -ENOMEM;
}

/* Write the text at @fd's offset, and free it. */
static int journal_text_write(struct journal_text *t, int fd)
{
	int rc = fclose(t->f) ? -ENOMEM : write_all(fd, t->text, t->len);

	free(t->text);
	return rc;
}

/* Make the journal anew: its header alone. */
static int journal_start(int fd, const struct shard_header *h)
{
	struct journal_text t;

	/* from its start: reading it moved the offset this descriptor shares */
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if (journal_text_begin(&t))
		return -ENOMEM;
	shard_header_write(t.f, h);
	return journal_text_write(&t, fd);
}

/*
 * Open (or make) the shard's journal, locked: keep the records of the same
 * work and mark their runs done; drop a record cut short at its end.
 */
static int journal_open(struct sweep *s, const char *path, const struct shard_header *h)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), rfd, rc = 0;
	off_t good = 0;
	bool ours;
	int64_t n;
	FILE *f;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto close_fd;
	}
	/* read through a descriptor of its own: fclose() closes it, not @fd */
	rfd = dup(fd);
	f = rfd < 0 ? NULL : fdopen(rfd, "r");
	if (!f) {
		rc = -errno;
		if (rfd >= 0)
			close(rfd);
		goto close_fd;
	}
	n = journal_load(s, f, h, false, &ours, &good);
	fclose(f);
	if (n < 0) {
		rc = (int)n;
		goto close_fd;
	}
	if (ours) {
		s->resumed = (uint64_t)n;
		rc = ftruncate(fd, good) || lseek(fd, good, SEEK_SET) < 0 ? -errno : 0;
	} else {
		rc = journal_start(fd, h);
	}
	if (!rc) {
		s->journal = fd;
		return 0;
	}
close_fd:
	close(fd);
	return rc;
}

int sweep_shard_begin(struct sweep *s)
{
	const struct shard *sh = &s->o->shard;
	struct shard_header h;
	uint32_t *owner = NULL;
	char path[4096] = "";
	int rc;

	rc = header_of(s, sh, &h);
	if (rc) {
		snprintf(s->err, s->errlen, "sweep: reading the inputs again: %s", strerror(-rc));
		return rc;
	}
	rc = owners_of(s, sh->count, &owner);
	if (!rc)
		rc = shard_path(s->out, sh, path, sizeof(path));
	if (!rc)
		rc = path_mkdir_parent(path) ?: shard_summary_remove(s->out);
	if (!rc) {
		rc = journal_open(s, path, &h);
		if (rc == -EBUSY)
			snprintf(s->err, s->errlen, "sweep: %s: shard %u/%u is being run by another "
				 "process already", path, sh->index, sh->count);
	}
	if (rc && !*s->err)
		snprintf(s->err, s->errlen, "sweep: %s: %s", path, strerror(-rc));
	s->todo = 0;
	for (uint64_t r = 0; !rc && r < s->total; r++) {
		struct sweep_run *run = &s->runs[r];

		/* booked before: done, as far as this invocation goes */
		run->skip = owner[r] != sh->index || run->ended;
		run->ended = false;
		s->todo += !run->skip;
	}
	if (!rc && s->o->progress)
		fprintf(s->o->progress, "sweep: shard %u/%u: %llu of the %llu runs, %llu booked before\n",
			sh->index, sh->count, (unsigned long long)(s->todo + s->resumed),
			(unsigned long long)s->total, (unsigned long long)s->resumed);
	free(owner);
	shard_header_free(&h);
	return rc;
}

int sweep_shard_add(struct sweep *s, uint32_t r, enum sweep_outcome oc, const struct verdict *v)
{
	struct journal_text t;
	int rc = journal_text_begin(&t);

	if (rc)
		return rc;
	fprintf(t.f, "run %u %s %llu %s\n", r, fp_point_name(s->runs[r].point),
		(unsigned long long)s->runs[r].nth, sweep_outcome_names[oc]);
	if (v)
		verdict_lines_write(t.f, v);
	fprintf(t.f, "end %u\n", r);
	rc = journal_text_write(&t, s->journal);
	if (rc)
		snprintf(s->err, s->errlen, "sweep: writing the shard's journal: %s", strerror(-rc));
	return rc;
}

int sweep_shard_end(struct sweep *s)
{
	int rc = fsync(s->journal) ? -errno : 0;

	if (close(s->journal) && !rc)
		rc = -errno;
	s->journal = -1;
	if (rc)
		snprintf(s->err, s->errlen, "sweep: writing the shard's journal: %s", strerror(-rc));
	return rc;
}

/* ---- the merge -------------------------------------------------------------- */

/* Book the records of shard @ours->sh's journal, when it is of this work (*@read). */
static int merge_journal(struct sweep *s, const struct shard_header *ours, bool *read)
{
	char path[4096];
	int64_t n;
	off_t good;
	FILE *f;

	*read = false;
	if (shard_path(s->out, &ours->sh, path, sizeof(path)) || !(f = fopen(path, "r")))
		return 0;
	n = journal_load(s, f, ours, true, read, &good);
	fclose(f);
	return n < 0 ? (int)n : 0;
}

/* "POINT:A-B" ranges of the missing runs of shard @k, into @f; how many runs. */
static uint64_t missing_ranges(const struct sweep *s, const uint32_t *owner, uint32_t k,
			       FILE *f, size_t shown)
{
	uint64_t missing = 0;
	size_t ranges = 0;

	for (int p = 0; p < FP_NPOINTS; p++) {
		uint64_t from = 0, to = 0;

		for (uint64_t r = 0; r <= s->total; r++) {
			const struct sweep_run *run = r < s->total ? &s->runs[r] : NULL;
			bool gone = run && owner[r] == k && run->point == (enum fp_point)p && !run->ended;

			if (gone && from && run->nth == to + 1) {
				to = run->nth;
			} else if (gone || r == s->total) {
				if (from && ranges++ < shown)
					fprintf(f, "%s%s:%llu", ranges > 1 ? ", " : "", fp_point_name(p),
						(unsigned long long)from);
				if (from && to != from && ranges <= shown)
					fprintf(f, "-%llu", (unsigned long long)to);
				/* cppcheck-suppress nullPointer ; gone holds only of a run */
				from = to = gone ? run->nth : 0;
			}
			missing += gone;
		}
	}
	if (ranges > shown)
		fprintf(f, ", ... (%zu ranges)", ranges);
	return missing;
}

/*
 * The runs no shard booked: a line per shard in @s->err, every range in
 * OUT/shards/missing. Return: -ENODATA.
 */
static int merge_missing(struct sweep *s, uint32_t count, const bool *read)
{
	uint32_t *owner = NULL;
	char *line = NULL;
	size_t len = 0;
	FILE *all, *f;
	int rc = owners_of(s, count, &owner);

	if (rc)
		return rc;
	all = shard_missing_begin(s->out);
	for (uint32_t k = 0; k < count; k++) {
		const struct shard sh = { k, count };
		uint64_t of = 0, missing;

		for (uint64_t r = 0; r < s->total; r++)
			of += owner[r] == k;
		f = open_memstream(&line, &len);
		if (!f)
			break;
		missing = missing_ranges(s, owner, k, f, SHARD_MISSING_SHOWN);
		fclose(f);
		if (missing) {
			shard_missing_say(s->err, s->errlen, &sh, missing, of,
					  read[k] ? "" : " (no journal of this work)", line);
			if (all) {
				fprintf(all, "shard %u/%u: ", k, count);
				missing_ranges(s, owner, k, all, SIZE_MAX);
				fputc('\n', all);
			}
		}
		free(line);
		line = NULL;
	}
	free(owner);
	return shard_missing_end(all, s->out, s->err, s->errlen);
}

/*
 * The options the shards ran with, from @h's fields; the maps' paths into
 * @maps (REPLAY_MAX_MAPS of them), which point into @h.
 */
static int merge_opts(const char *out, const struct shard_header *h, struct sweep_opts *o,
		      const char **maps, char *err, size_t errlen)
{
	const char *covers = shard_field(h, "trace-covers"), *mode = shard_field(h, "mode");
	const char *run = shard_field(h, "run-timeout"), *stall = shard_field(h, "stall-timeout");
	uint64_t run_s, stall_s;

	o->trace = shard_field(h, "trace");
	o->scenario = shard_field(h, "scenario");
	o->faults = shard_field(h, "faults");
	o->points = shard_field(h, "points");
	o->out = out;
	o->maps = maps;
	for (size_t i = 0; i < h->nfields; i++) {
		if (strcmp(h->fields[i].name, "map"))
			continue;
		if (o->nmaps == REPLAY_MAX_MAPS) {
			snprintf(err, errlen, "merge: %s/shards: a sweep shard's header names more than "
				 "%d maps", out, REPLAY_MAX_MAPS);
			return -EINVAL;
		}
		maps[o->nmaps++] = h->fields[i].value;
	}
	/* the timeouts as the shards' options took them: 0 (none) or a second to a day */
	if (!o->trace || !covers || trace_covers_parse(covers, &o->covers) || !mode ||
	    (strcmp(mode, "fork") && strcmp(mode, "from-scratch")) || !run || !stall ||
	    units_parse_u64(run, &run_s) || run_s > 86400 || units_parse_u64(stall, &stall_s) ||
	    stall_s > 86400) {
		snprintf(err, errlen, "merge: %s/shards: a sweep shard's header lacks its options", out);
		return -EINVAL;
	}
	o->run_timeout_s = (unsigned int)run_s;
	o->stall_timeout_s = (unsigned int)stall_s;
	o->from_scratch = !strcmp(mode, "from-scratch");
	return 0;
}

int sweep_merge(const char *out, const struct shard_header *h, unsigned int jobs, FILE *progress,
		FILE *report, const char *program, struct sweep_totals *t, char *err,
		size_t errlen)
{
	struct sweep_opts o = { .jobs = jobs, .progress = progress, .report = report,
				.program = program };
	const char *maps[REPLAY_MAX_MAPS];
	struct shard_header ours = { 0 };
	uint32_t count = h->sh.count;
	struct sweep s;
	bool *read = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = merge_opts(out, h, &o, maps, err, errlen);
	if (rc)
		return rc;
	sweep_init(&s, &o, err, errlen);
	s.merging = true;
	rc = sweep_plan(&s);
	if (!rc)
		rc = header_of(&s, &h->sh, &ours);
	if (rc)
		goto free_sweep;
	if (ours.work != h->work) {
		snprintf(err, errlen, "merge: %s: the shards' work differs from what their inputs "
			 "give now (an input changed, or another gpuiso ran them): run them again",
			 out);
		rc = -EINVAL;
		goto free_sweep;
	}
	read = calloc(count, sizeof(*read));
	rc = read ? 0 : -ENOMEM;
	for (uint32_t k = 0; !rc && k < count; k++) {
		ours.sh.index = k;
		rc = merge_journal(&s, &ours, &read[k]);
	}
	if (!rc && s.ended != s.total)
		rc = merge_missing(&s, count, read);
	if (!rc)
		rc = sweep_summary_write(&s);
	sweep_totals_fill(&s, t);
	if (!rc && report)
		sweep_report_findings(&s, report);
free_sweep:
	if (rc && rc != -ENODATA && !*err)
		snprintf(err, errlen, "merge: %s", strerror(-rc));
	free(read);
	shard_header_free(&ours);
	sweep_free(&s);
	return rc;
}

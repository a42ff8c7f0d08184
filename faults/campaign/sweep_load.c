/* SPDX-License-Identifier: MIT */
/*
 * A sweep's inputs, before any replay (sweep_prepare()): its options
 * checked, the trace found, the import maps and the base plan read, the
 * points it sweeps selected, the output folder made, the scenario loaded,
 * the paths its reproducers name made absolute, and the pool of its runs.
 * What is wrong here is bad input (-EINVAL, said in the sweep's err) or
 * the environment's; sweep.c runs the sweep on what it loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/failure.h"
#include "faults/faults.h"
#include "faults/plan.h"
#include "faults/campaign/pool.h"
#include "faults/campaign/sweep.h"
#include "faults/campaign/sweep_internal.h"
#include "replay/ctf.h"
#include "replay/import.h"
#include "replay/machine.h"
#include "replay/replay.h"

static int abs_path(struct sweep *s, const char *path, char **out)
{
	int rc;

	*out = realpath(path, NULL);
	if (*out)
		return 0;
	rc = -errno;
	snprintf(s->err, s->errlen, "sweep: %s: %s", path, strerror(-rc));
	return rc;
}

/* The import maps read as the replay will read them: a bad one is bad input, said before any run. */
static int maps_check(struct sweep *s)
{
	const struct sweep_opts *o = s->o;
	struct import_map *m = NULL;
	int rc;

	if (o->nmaps > REPLAY_MAX_MAPS) {
		snprintf(s->err, s->errlen, "sweep: at most %d --map files", REPLAY_MAX_MAPS);
		return -EINVAL;
	}
	if (!o->nmaps)
		return 0;
	rc = import_map_load(o->maps, o->nmaps, &m, s->err, s->errlen);
	import_map_free(m);
	return rc;
}

/* The maps' absolute paths, for reproducers that work from any folder. */
static int maps_abs(struct sweep *s)
{
	int rc = 0;

	if (!s->o->nmaps)
		return 0;
	s->maps = calloc(s->o->nmaps, sizeof(*s->maps));
	if (!s->maps)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < s->o->nmaps; i++)
		rc = abs_path(s, s->o->maps[i], &s->maps[i]);
	return rc;
}

/* Options, scenario and point selection: everything that can be wrong before a replay. */
int sweep_prepare(struct sweep *s)
{
	const struct sweep_opts *o = s->o;
	struct stat st;
	bool any = false;
	int rc;

	if (!o->trace || !o->out || !o->jobs) {
		snprintf(s->err, s->errlen, "sweep: a trace, an output folder and jobs >= 1 are required");
		return -EINVAL;
	}
	if (stat(o->trace, &st)) {
		rc = -errno;
		snprintf(s->err, s->errlen, "sweep: %s: %s", o->trace, strerror(-rc));
		return rc;
	}
	if (!S_ISDIR(st.st_mode) && !ctf_trace_file_is(o->trace)) {
		snprintf(s->err, s->errlen, "sweep: %s: neither a trace folder nor a trace file "
			 "(a trace.dat, an .etl file)", o->trace);
		return -EINVAL;
	}
	rc = maps_check(s);
	if (rc)
		return rc;
	if (o->faults) {
		rc = fault_plan_load(o->faults, &s->base, s->err, s->errlen);
		if (rc)
			return rc;
	}
	/* a point the base plan arms has its rule already: it is not swept */
	for (int p = 0; p < FP_NPOINTS; p++) {
		s->selected[p] = (!o->points || fp_point_match(o->points, (enum fp_point)p)) &&
				 !s->base.armed[p];
		any |= s->selected[p];
	}
	if (!any) {
		snprintf(s->err, s->errlen, "sweep: --points '%s' matches no injection point%s "
			 "(gpuiso faults list)", o->points ? o->points : "*",
			 o->faults ? " the base plan leaves unarmed" : "");
		return -EINVAL;
	}
	/* where the summary (or the shard's journal) goes, before the runs rather than after them */
	rc = 0;
	if (mkdir(o->out, 0777) && errno != EEXIST)
		rc = -errno;
	else if (stat(o->out, &st))
		rc = -errno;
	else if (!S_ISDIR(st.st_mode))
		rc = -ENOTDIR;
	else if (access(o->out, W_OK))
		rc = -errno;
	if (rc) {
		snprintf(s->err, s->errlen, "sweep: %s: %s", o->out, strerror(-rc));
		return failure_output(rc);
	}
	rc = machine_load(o->scenario, NULL, &s->scn, s->err, s->errlen);
	if (rc)
		return rc;
	rc = abs_path(s, o->trace, &s->trace);
	if (!rc && o->scenario)
		rc = abs_path(s, o->scenario, &s->scenario);
	if (!rc && o->faults)
		rc = abs_path(s, o->faults, &s->faults);
	if (!rc)
		rc = abs_path(s, o->out, &s->out);
	if (!rc)
		rc = maps_abs(s);
	if (rc)
		return rc;
	/* before any fork: every child shares its beats */
	return pool_init(&s->pool, o->jobs, o->stall_timeout_s, o->run_timeout_s);
}

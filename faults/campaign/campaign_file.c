/* SPDX-License-Identifier: MIT */
/*
 * Reading a campaign file (docs/campaign-format.md, "Campaigns"): the whole
 * file is read and checked before anything runs, and its runs planned:
 * every (run, trace, seed, repetition), with the id its files carry and the
 * key that says whether a finished one still counts.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/digest.h"
#include "common/digest_path.h"
#include "common/failure.h"
#include "common/u64map.h"
#include "common/yaml.h"
#include "faults/campaign/campaign_internal.h"
#include "replay/ctf.h"
#include "replay/import.h"
#include "replay/machine.h"

#define MAX_RUNS 100000u /* (runs x traces x seeds x repetitions) of one campaign */
#define MAX_REPS 1000u

const char *const campaign_invariants[CAMPAIGN_NINVARIANTS] = {
	"no_leaks",          "no_stale_mappings", "no_dma_to_unmapped",
	"baseline_restored", "vram_restored",     "forward_progress",
};

/* A name as part of a file name: anything but [A-Za-z0-9._-] becomes '_'. */
static void id_part(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';

		out[i] = ok ? ch : '_';
	}
	out[i] = '\0';
}

/*
 * One rule for relative paths: as given (from the current folder) when that
 * exists, else from the campaign file's folder. The result is absolute, so
 * that results and reproduce commands work from anywhere.
 */
static bool resolve_path(const struct campaign *c, const char *given, char *out)
{
	char joined[2 * PATH_MAX];
	struct stat st;

	if (given[0] == '/' || !stat(given, &st))
		return realpath(given, out) != NULL;
	if (snprintf(joined, sizeof(joined), "%s/%s", c->folder, given) >= (int)sizeof(joined))
		return false;
	return realpath(joined, out) != NULL;
}

/* An item of a sequence field as a field of its own (for the scalar readers). */
static void item_field(struct yaml_field *item, struct fy_node *node, const char *name)
{
	item->key = NULL;
	item->val = node;
	snprintf(item->name, sizeof(item->name), "%s", name);
}

/* Where the campaign file is, and what it is called when it names itself not. */
static int campaign_place(struct campaign *c, const char *file)
{
	char abs[PATH_MAX], base[PATH_MAX], *dot;

	if (!realpath(file, abs))
		return -errno;
	snprintf(base, sizeof(base), "%s", basename(abs));
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	/* a long file name makes a shorter default campaign name: fine */
	if (snprintf(c->name, sizeof(c->name), "%s", base) < 0)
		c->name[0] = '\0';
	snprintf(c->folder, sizeof(c->folder), "%s", dirname(abs));
	return 0;
}

static void parse_name(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	const char *s = yaml_str(d, f, "a campaign name");
	bool control = false;

	for (const char *p = s; p && *p; p++)
		control |= (unsigned char)*p < 0x20;
	if (s && !*s)
		yaml_field_error(d, f, "the name is empty");
	else if (control)
		yaml_field_error(d, f, "the name must be one line of printable text");
	else if (s && strlen(s) >= sizeof(c->name))
		yaml_field_error(d, f, "longer than %zu characters", sizeof(c->name) - 1);
	else if (s)
		snprintf(c->name, sizeof(c->name), "%s", s);
}

/* An empty or missing sequence where at least one item is needed: say so. */
static int count_items(struct yaml_doc *d, const struct yaml_field *f, const char *what)
{
	int n = yaml_count(d, f);

	if (!n)
		yaml_field_error(d, f, "needs at least one %s", what);
	return n;
}

/* Append @more (a reader's error lines) after the lines in @err. */
static void append_errors(char *err, size_t errlen, const char *more)
{
	size_t n = strlen(err);

	if (!*more || n + 1 >= errlen)
		return;
	if (n && err[n - 1] != '\n')
		err[n++] = '\n';
	snprintf(err + n, errlen - n, "%s", more);
}

/* A trace entry's path, resolved as every path is: a CTF folder or a trace file (trace.dat, .etl). */
static bool trace_path(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c,
		       struct camp_trace *t)
{
	const char *s = yaml_str(d, f, "a trace folder or trace file");
	struct stat st;

	if (!s)
		return false;
	if (!resolve_path(c, s, t->path) || stat(t->path, &st)) {
		yaml_field_error(d, f, "'%s' is not a trace folder or trace file (tried from the "
				 "current folder, then from %s)", s, c->folder);
		return false;
	}
	if (!S_ISDIR(st.st_mode) && !ctf_trace_file_is(t->path)) {
		yaml_field_error(d, f, "'%s' (%s) is neither a trace folder nor a trace file (a "
				 "trace.dat, an .etl file)", s, t->path);
		return false;
	}
	return true;
}

/* Free a trace entry's maps (one that was not taken, or the campaign's). */
static void trace_maps_free(struct camp_trace *t)
{
	for (size_t i = 0; i < t->nmaps; i++)
		free(t->maps[i]);
	t->nmaps = 0;
}

/*
 * A trace entry's maps: each found as every path is, then all of them read
 * as the replay will read them (their errors follow the campaign's), and
 * their text hashed for the runs' keys. Return: false after reporting.
 */
static bool trace_maps(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c,
		       struct camp_trace *t)
{
	char name[YAML_NAME_LEN], path[PATH_MAX], err[4096] = "";
	struct import_map *m = NULL;
	struct yaml_field item;
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;
	bool ok = true;
	int n = count_items(d, f, "import map"), rc;

	if (n <= 0)
		return false;
	if (n > REPLAY_MAX_MAPS) {
		yaml_field_error(d, f, "at most %d import maps, not %d", REPLAY_MAX_MAPS, n);
		return false;
	}
	while ((node = yaml_items(d, f, &it, &index, name))) {
		const char *s;

		item_field(&item, node, name);
		s = yaml_str(d, &item, "an import map file");
		if (!s) {
			ok = false;
		} else if (!resolve_path(c, s, path)) {
			yaml_field_error(d, &item, "cannot find '%s' (tried from the current folder, "
					 "then from %s)", s, c->folder);
			ok = false;
		} else if (!(t->maps[t->nmaps] = strdup(path))) {
			yaml_nomem(d);
			return false;
		} else {
			t->nmaps++;
		}
	}
	if (!ok)
		return false;
	rc = import_map_load((const char *const *)t->maps, t->nmaps, &m, err, sizeof(err));
	import_map_free(m);
	if (rc == -ENOMEM) {
		yaml_nomem(d);
		return false;
	}
	if (rc) {
		if (failure_of(rc) == FAILURE_ENVIRONMENT) {
			c->maps_rc = rc;
			yaml_field_error(d, f, "cannot read the import maps (why follows)");
		} else {
			yaml_field_error(d, f, "the import maps do not load (their errors follow)");
		}
		append_errors(c->maps_err, sizeof(c->maps_err), err);
		return false;
	}
	for (size_t i = 0; i < t->nmaps; i++) {
		if (digest_path(t->maps[i], &t->maps_hash)) {
			yaml_field_error(d, f, "cannot read '%s'", t->maps[i]);
			return false;
		}
	}
	return true;
}

/* A name run ids carry as it is: 1 to 63 of A-Z a-z 0-9 . _ -, not starting with '.'. */
static bool run_name_ok(const char *s)
{
	char clean[CAMPAIGN_NAME_LEN];

	if (!*s || *s == '.' || strlen(s) >= CAMPAIGN_NAME_LEN)
		return false;
	id_part(s, clean, sizeof(clean));
	return !strcmp(clean, s);
}

/* A trace entry's own name for its run ids: as a run's name is written. */
static bool trace_name(struct yaml_doc *d, const struct yaml_field *f, struct camp_trace *t)
{
	const char *s = yaml_str(d, f, "a name for run ids");

	if (!s)
		return false;
	if (!run_name_ok(s)) {
		yaml_field_error(d, f, "'%s' is not a trace name (1 to %d of A-Z a-z 0-9 . _ -, not "
				 "starting with '.')", s, CAMPAIGN_NAME_LEN - 1);
		return false;
	}
	snprintf(t->base, sizeof(t->base), "%s", s);
	return true;
}

/*
 * One entry of traces: a path (a CTF folder or a trace.dat file), or
 * {path: P, maps: [M, ...], name: N} for a trace replayed through import
 * maps, or named otherwise than its folder or file in run ids.
 */
static void parse_trace(struct yaml_doc *d, const struct yaml_field *item, struct campaign *c)
{
	static const char *const keys[] = { "path", "maps", "name" };
	struct camp_trace *t = &c->traces[c->ntraces];
	struct yaml_field f[3];
	bool ok;

	memset(t, 0, sizeof(*t));
	if (!fy_node_is_mapping(item->val)) {
		ok = trace_path(d, item, c, t);
	} else {
		if (!yaml_fields(d, item->val, NULL, item->name, keys, 3, f))
			return;
		if (!f[0].val) {
			yaml_error(d, item->val, NULL, "%s: a trace entry needs a 'path'", item->name);
			return;
		}
		ok = trace_path(d, &f[0], c, t);
		ok &= !f[1].val || trace_maps(d, &f[1], c, t);
		ok &= !f[2].val || trace_name(d, &f[2], t);
	}
	if (ok && !t->base[0])
		id_part(basename(t->path), t->base, sizeof(t->base));
	for (size_t i = 0; ok && i < c->ntraces; i++) {
		if (!strcmp(c->traces[i].base, t->base)) {
			yaml_field_error(d, item, "'%s' has the name of '%s' in run ids: they would "
					 "clash (give one a 'name')", t->base, c->traces[i].path);
			ok = false;
		}
	}
	if (!ok) {
		trace_maps_free(t);
		return;
	}
	c->ntraces++;
}

static void parse_traces(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;
	int n = count_items(d, f, "trace");

	if (n <= 0)
		return;
	c->traces = calloc((size_t)n, sizeof(*c->traces));
	if (!c->traces) {
		yaml_nomem(d);
		return;
	}
	while ((node = yaml_items(d, f, &it, &index, name)) && c->ntraces < (size_t)n) {
		item_field(&item, node, name);
		parse_trace(d, &item, c);
	}
}

static void parse_scenario(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	const char *s = yaml_str(d, f, "a scenario file");

	if (!s)
		return;
	if (!resolve_path(c, s, c->scenario)) {
		yaml_field_error(d, f, "cannot find '%s' (tried from the current folder, then from %s)",
				 s, c->folder);
		return;
	}
	c->has_scenario = true;
	c->scn_rc = machine_load(c->scenario, NULL, &c->scn, c->scn_err, sizeof(c->scn_err));
	if (failure_of(c->scn_rc) == FAILURE_ENVIRONMENT)
		yaml_field_error(d, f, "cannot read '%s' (why follows)", s);
	else if (c->scn_rc)
		yaml_field_error(d, f, "'%s' is not a valid scenario (its errors follow)", s);
	else if (digest_path(c->scenario, &c->scenario_hash))
		yaml_field_error(d, f, "cannot read '%s'", s);
}

static void parse_seeds(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	struct fy_node *node;
	struct u64map seen = { 0 }; /* the seeds so far but UINT64_MAX, which it cannot hold */
	bool seen_max = false;
	size_t index = 0;
	void *it = NULL;
	int n = count_items(d, f, "seed");

	if (n <= 0)
		return;
	c->seeds = calloc((size_t)n, sizeof(*c->seeds));
	if (!c->seeds) {
		yaml_nomem(d);
		return;
	}
	while ((node = yaml_items(d, f, &it, &index, name)) && c->nseeds < (size_t)n) {
		uint64_t seed;

		item_field(&item, node, name);
		if (!yaml_u64(d, &item, &seed))
			continue;
		/* (a campaign may list millions: each is looked for in constant time) */
		if (seed == UINT64_MAX ? seen_max : !!u64map_get(&seen, seed)) {
			yaml_field_error(d, &item, "seed %llu is listed twice", (unsigned long long)seed);
			continue;
		}
		if (seed == UINT64_MAX) {
			seen_max = true;
		} else if (u64map_put(&seen, seed, 0)) {
			yaml_nomem(d);
			break;
		}
		c->seeds[c->nseeds++] = seed;
	}
	u64map_fini(&seen);
}

static void parse_reps(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	uint32_t reps;

	if (!yaml_u32(d, f, &reps))
		return;
	if (!reps || reps > MAX_REPS)
		yaml_field_error(d, f, "takes 1 to %u, not %u", MAX_REPS, reps);
	else
		c->reps = reps;
}

/* This run's faults: and pressure: as a faults file of their own (NULL without memory). */
static char *emit_faults(struct fy_node *faults, struct fy_node *pressure)
{
	struct fy_document *doc = fy_document_create(NULL);
	struct fy_node *root, *val;
	char *text = NULL;

	if (!doc)
		return NULL;
	root = fy_node_create_mapping(doc);
	if (!root || fy_document_set_root(doc, root))
		goto destroy_doc;
	/* an empty file is not a faults file: a run without faults says faults: [] */
	val = faults ? fy_node_copy(doc, faults) : fy_node_create_sequence(doc);
	if (!val || fy_node_mapping_append(root, fy_node_create_scalar(doc, "faults", FY_NT), val))
		goto destroy_doc;
	if (pressure) {
		val = fy_node_copy(doc, pressure);
		if (!val ||
		    fy_node_mapping_append(root, fy_node_create_scalar(doc, "pressure", FY_NT), val))
			goto destroy_doc;
	}
	text = fy_emit_document_to_string(doc, FYECF_MODE_BLOCK | FYECF_INDENT_2 |
						       FYECF_WIDTH_INF | FYECF_DOC_START_MARK_OFF);
destroy_doc:
	fy_document_destroy(doc);
	return text;
}

static void parse_run(struct yaml_doc *d, struct fy_node *node, const char *name,
		      struct campaign *c)
{
	static const char *const keys[] = { "name", "faults", "pressure" };
	struct camp_run *r = &c->runs[c->nruns];
	struct yaml_field f[3];
	const char *s;

	if (!yaml_fields(d, node, NULL, name, keys, 3, f))
		return;
	c->nruns++; /* from here on it owns a plan to free */
	fault_plan_parse(d, &f[1], &f[2], &r->plan);
	r->faults_yaml = emit_faults(f[1].val, f[2].val);
	if (!r->faults_yaml)
		yaml_nomem(d);
	if (!f[0].val) {
		yaml_error(d, node, NULL, "%s: a run needs a 'name'", name);
		return;
	}
	s = yaml_str(d, &f[0], "a run name");
	if (!s)
		return;
	if (!run_name_ok(s)) {
		yaml_field_error(d, &f[0], "'%s' is not a run name (1 to %d of A-Z a-z 0-9 . _ -, not starting with '.')",
				 s, CAMPAIGN_NAME_LEN - 1);
		return;
	}
	for (size_t i = 0; i + 1 < c->nruns; i++) {
		if (!strcmp(c->runs[i].name, s)) {
			yaml_field_error(d, &f[0], "run '%s' is named twice", s);
			return;
		}
	}
	snprintf(r->name, sizeof(r->name), "%s", s);
}

static void parse_runs(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	char name[YAML_NAME_LEN];
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;
	int n = count_items(d, f, "run");

	if (n <= 0)
		return;
	c->runs = calloc((size_t)n, sizeof(*c->runs));
	if (!c->runs) {
		yaml_nomem(d);
		return;
	}
	while ((node = yaml_items(d, f, &it, &index, name)) && c->nruns < (size_t)n)
		parse_run(d, node, name, c);
}

static void parse_invariant(struct yaml_doc *d, const struct yaml_field *item, bool *seen,
			    struct campaign *c)
{
	const char *s = yaml_str(d, item, "an invariant name");
	size_t i;

	if (!s)
		return;
	for (i = 0; i < CAMPAIGN_NINVARIANTS; i++)
		if (!strcmp(s, campaign_invariants[i]))
			break;
	if (i == CAMPAIGN_NINVARIANTS) {
		yaml_field_error(d, item, "unknown invariant '%s' (expected one of: no_leaks, no_stale_mappings, "
				 "no_dma_to_unmapped, baseline_restored, vram_restored, forward_progress)", s);
	} else if (seen[i]) {
		yaml_field_error(d, item, "invariant '%s' is listed twice", s);
	} else {
		seen[i] = true;
		c->required[i] = true;
	}
}

static void parse_invariants(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	bool seen[CAMPAIGN_NINVARIANTS] = { false };
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;

	if (!f->val) {
		/* not given: all of them must hold */
		for (size_t i = 0; i < CAMPAIGN_NINVARIANTS; i++)
			c->required[i] = true;
		return;
	}
	if (yaml_count(d, f) < 0)
		return;
	while ((node = yaml_items(d, f, &it, &index, name))) {
		item_field(&item, node, name);
		parse_invariant(d, &item, seen, c);
	}
}

/* What defines a run's outcome; a finished run is resumed only if this is unchanged. */
static uint64_t job_key(const struct campaign *c, const struct camp_job *j)
{
	const struct camp_trace *t = &c->traces[j->trace];
	uint64_t h = DIGEST_FNV_BASIS;

	h = digest_fnv1a_str(h, CAMPAIGN_OUTCOME_SCHEMA);
	h = digest_fnv1a_str(h, j->id);
	h = digest_fnv1a_str(h, t->path);
	/* only with maps: runs recorded before traces had them stay finished */
	for (size_t i = 0; i < t->nmaps; i++)
		h = digest_fnv1a_str(h, t->maps[i]);
	if (t->nmaps)
		h = digest_fnv1a(h, &t->maps_hash, sizeof(t->maps_hash));
	h = digest_fnv1a_str(h, c->has_scenario ? c->scenario : "");
	h = digest_fnv1a(h, &c->scenario_hash, sizeof(c->scenario_hash));
	h = digest_fnv1a_str(h, c->runs[j->run].faults_yaml);
	h = digest_fnv1a(h, &j->seed, sizeof(j->seed));
	h = digest_fnv1a(h, &j->rep, sizeof(j->rep));
	/* only when not the default: runs recorded before the key existed stay finished */
	if (c->covers != COVERS_WINDOW)
		h = digest_fnv1a_str(h, trace_covers_name(c->covers));
	return digest_fnv1a(h, c->required, sizeof(c->required));
}

static int cmp_id(const void *a, const void *b)
{
	const struct camp_job *const *x = a, *const *y = b;

	return strcmp((*x)->id, (*y)->id);
}

/* Two runs named "a-b" and "a" over traces "c" and "b-c" would share an id. */
static void check_ids_unique(struct yaml_doc *d, const struct yaml_field *runs, struct campaign *c)
{
	const struct camp_job **sorted = calloc(c->njobs, sizeof(*sorted));

	if (!sorted) {
		yaml_nomem(d);
		return;
	}
	for (size_t i = 0; i < c->njobs; i++)
		sorted[i] = &c->jobs[i];
	qsort(sorted, c->njobs, sizeof(*sorted), cmp_id);
	for (size_t i = 1; i < c->njobs; i++) {
		if (!strcmp(sorted[i - 1]->id, sorted[i]->id)) {
			yaml_field_error(d, runs, "two runs would share the id '%s': rename one",
					 sorted[i]->id);
			break;
		}
	}
	free(sorted);
}

static void fill_job(struct campaign *c, struct camp_job *j)
{
	int n = snprintf(j->id, sizeof(j->id), "%s-%s-s%llu", c->runs[j->run].name,
			 c->traces[j->trace].base, (unsigned long long)j->seed);

	if (c->reps > 1 && n > 0 && (size_t)n < sizeof(j->id))
		snprintf(j->id + n, sizeof(j->id) - (size_t)n, "-r%u", j->rep);
	j->key = job_key(c, j);
}

/* Every (run, trace, seed, repetition), in that order: the order of the summary. */
static void plan_jobs(struct yaml_doc *d, const struct yaml_field *runs, struct campaign *c)
{
	uint64_t n = (uint64_t)c->nruns * c->ntraces * c->nseeds * c->reps;

	for (size_t r = 0; r < c->nruns; r++)
		if (!c->runs[r].faults_yaml)
			return; /* out of memory, already recorded */
	if (!n)
		return;
	if (n > MAX_RUNS) {
		yaml_field_error(d, runs, "%llu runs in all (runs x traces x seeds x repetitions): at most %u",
				 (unsigned long long)n, MAX_RUNS);
		return;
	}
	c->jobs = calloc((size_t)n, sizeof(*c->jobs));
	if (!c->jobs) {
		yaml_nomem(d);
		return;
	}
	for (size_t r = 0; r < c->nruns; r++)
		for (size_t t = 0; t < c->ntraces; t++)
			for (size_t s = 0; s < c->nseeds; s++)
				for (uint32_t rep = 1; rep <= c->reps; rep++) {
					struct camp_job *j = &c->jobs[c->njobs++];

					*j = (struct camp_job){ .run = r, .trace = t, .seed = c->seeds[s],
								.rep = rep };
					fill_job(c, j);
				}
	check_ids_unique(d, runs, c);
}

static void parse_covers(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	const char *s = yaml_str(d, f, "window or life");

	if (s && trace_covers_parse(s, &c->covers))
		yaml_field_error(d, f, "takes window or life, not '%s'", s);
}

enum { K_NAME, K_TRACES, K_SCENARIO, K_SEEDS, K_REPS, K_RUNS, K_INVARIANTS, K_COVERS, NKEYS };

static void parse_campaign(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner,
			   struct campaign *c)
{
	static const char *const keys[NKEYS] = { "name", "traces", "scenario", "seeds",
						 "repetitions", "runs", "invariants",
						 "trace_covers" };
	struct yaml_field f[NKEYS];

	if (!yaml_fields(d, map, owner, "campaign", keys, NKEYS, f))
		return;
	if (f[K_NAME].val)
		parse_name(d, &f[K_NAME], c);
	if (f[K_TRACES].val)
		parse_traces(d, &f[K_TRACES], c);
	else
		yaml_error(d, map, owner, "campaign: needs 'traces' (trace folders or trace.dat files)");
	if (f[K_SCENARIO].val)
		parse_scenario(d, &f[K_SCENARIO], c);
	if (f[K_SEEDS].val) {
		parse_seeds(d, &f[K_SEEDS], c);
	} else {
		c->seeds = calloc(1, sizeof(*c->seeds)); /* seed 0, as replay without --seed */
		c->nseeds = c->seeds ? 1 : 0;
		if (!c->seeds)
			yaml_nomem(d);
	}
	if (f[K_REPS].val)
		parse_reps(d, &f[K_REPS], c);
	if (f[K_RUNS].val)
		parse_runs(d, &f[K_RUNS], c);
	else
		yaml_error(d, map, owner, "campaign: needs 'runs' (each a name, faults and pressure)");
	parse_invariants(d, &f[K_INVARIANTS], c);
	if (f[K_COVERS].val)
		parse_covers(d, &f[K_COVERS], c);
	if (!yaml_failed(d))
		plan_jobs(d, &f[K_RUNS], c);
}

int campaign_load(const char *file, struct campaign *c, char *err, size_t errlen)
{
	static const char *const top[] = { "campaign" };
	struct yaml_field f;
	struct yaml_doc *d;
	int rc, closed;

	c->reps = 1;
	rc = yaml_open(file, &d);
	if (rc == -ENOMEM)
		return rc;
	if (!rc)
		rc = campaign_place(c, file);
	if (!rc && yaml_fields(d, yaml_root(d), NULL, "", top, 1, &f)) {
		if (f.val)
			parse_campaign(d, f.val, f.key, c);
		else
			yaml_error(d, yaml_root(d), NULL, "a campaign file holds one key, 'campaign'");
	}
	closed = yaml_close(d, err, errlen);
	if (closed && !rc)
		rc = closed;
	else if (rc && !*err)
		snprintf(err, errlen, "%s: cannot find its folder: %s", file, strerror(-rc));
	append_errors(err, errlen, c->scn_err);
	append_errors(err, errlen, c->maps_err);
	if (!rc && !c->has_scenario)
		rc = scenario_defaults(&c->scn);
	if (failure_of(c->scn_rc) == FAILURE_ENVIRONMENT)
		return c->scn_rc;
	if (failure_of(c->maps_rc) == FAILURE_ENVIRONMENT)
		return c->maps_rc;
	return rc;
}

void campaign_free(struct campaign *c)
{
	for (size_t i = 0; i < c->nruns; i++) {
		fault_plan_free(&c->runs[i].plan);
		free(c->runs[i].faults_yaml);
	}
	free(c->runs);
	for (size_t i = 0; i < c->ntraces; i++)
		trace_maps_free(&c->traces[i]);
	free(c->traces);
	free(c->seeds);
	free(c->jobs);
	scenario_free(&c->scn);
	free(c);
}

int campaign_check(const char *file, char *err, size_t errlen)
{
	struct campaign *c = calloc(1, sizeof(*c));
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!c)
		return -ENOMEM;
	rc = campaign_load(file, c, err, errlen);
	campaign_free(c);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * Fault-injection campaigns (docs/campaign-format.md, "Campaigns").
 *
 * The whole campaign file is read and checked first: a bad one runs
 * nothing. Then every (run, trace, seed, repetition) is replayed in a child
 * process of its own, at most --jobs at a time, so that a crash costs one
 * run and not the campaign. Each run leaves its files in DIR/runs: the
 * results JSON, a standalone faults file (what the reproduce command
 * replays) and an outcome record. Every file is written atomically, and the
 * summary is rebuilt from the outcome records at the end, which is what
 * makes a killed campaign resumable without losing finished runs.
 *
 * The parent watches each child's progress (watch.h) and kills one that has
 * stopped moving, or is still going after --run-timeout: that run fails as
 * hung, and the campaign goes on. No child outlives the parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign.h"
#include "common/atomic_file.h"
#include "common/child.h"
#include "common/digest.h"
#include "common/digest_path.h"
#include "common/host.h"
#include "common/json.h"
#include "common/path.h"
#include "common/shell.h"
#include "common/yaml.h"
#include "core/scenario.h"
#include "faults/campaign/watch.h"
#include "faults/plan.h"
#include "replay/replay.h"

#define NAME_LEN 64      /* a run's name, a trace's folder name in run ids */
#define ID_LEN 200       /* <run>-<trace>-s<seed>[-r<rep>] */
#define REASON_LEN 512
#define MAX_RUNS 100000u /* (runs x traces x seeds x repetitions) of one campaign */
#define MAX_REPS 1000u
#define OUTCOME_SCHEMA "gpuiso-campaign-run/1"
#define RUN_PATH_LEN (PATH_MAX + ID_LEN + 32)

/* The invariants a campaign may require (replay/engine.c engine_finish()). */
static const char *const invariant_names[] = {
	"no_leaks",          "no_stale_mappings", "no_dma_to_unmapped",
	"baseline_restored", "vram_restored",     "forward_progress",
};
#define NINVARIANTS ARRAY_SIZE(invariant_names)

/* One entry of runs: its name, its plan, and that plan as a standalone file. */
struct camp_run {
	char name[NAME_LEN];
	struct fault_plan plan;
	char *faults_yaml; /* faults: and pressure: as the campaign gave them (malloc) */
};

struct camp_trace {
	char path[PATH_MAX];  /* absolute */
	char base[NAME_LEN];  /* its folder name, as run ids carry it */
};

/* One replay of the campaign. */
struct camp_job {
	size_t run, trace;
	uint64_t seed;
	uint32_t rep;   /* 1-based */
	char id[ID_LEN];
	uint64_t key;   /* what defines the run: a finished one is resumed only if it matches */
	bool resumed;
};

/* The outcome record DIR/runs/<id>.outcome: written when a run ends. */
struct outcome {
	uint64_t key;
	bool has_results;  /* <id>.json was written, and hashes to @results */
	uint64_t results;
	bool failed;
	bool hung;         /* failed: it made no progress, or ran out of time, and was killed */
	char reason[REASON_LEN];
};

struct campaign {
	char name[128];
	char folder[PATH_MAX]; /* the campaign file's folder: relative paths fall back to it */
	struct camp_trace *traces;
	size_t ntraces;
	bool has_scenario;
	char scenario[PATH_MAX];
	uint64_t scenario_hash;  /* of its text: an edited scenario makes finished runs stale */
	struct scenario scn;
	uint64_t *seeds;
	size_t nseeds;
	uint32_t reps;
	struct camp_run *runs;
	size_t nruns;
	bool required[NINVARIANTS];
	enum trace_covers covers; /* what its traces cover (trace_covers:, default window) */
	struct camp_job *jobs;
	size_t njobs;
	char out[PATH_MAX];      /* the output folder, absolute */
	char scn_err[4096];      /* the scenario's own errors, shown after the campaign's */
	unsigned int run_timeout_s;   /* campaign_opts.run_timeout_s */
	unsigned int stall_timeout_s; /* campaign_opts.stall_timeout_s (0: WATCH_STALL_S) */
};

/* A worker child: the read end of a pipe only it writes to, so EOF means it ended. */
struct slot {
	pid_t pid;
	int fd;
	size_t job;
	enum watch_verdict killed; /* why the parent killed it, or WATCH_MOVING */
};

/* Progress lines: "[3/12] pin-always-fails power-cycle s2: passed". */
struct progress {
	FILE *f;
	size_t done;
};

/* ---- small helpers ------------------------------------------------------ */

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

static int job_path(const struct campaign *c, const struct camp_job *j, const char *suffix,
		    char *buf, size_t len)
{
	if (snprintf(buf, len, "%s/runs/%s%s", c->out, j->id, suffix) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- reading the campaign file ------------------------------------------ */

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

static void parse_trace(struct yaml_doc *d, const struct yaml_field *item, struct campaign *c)
{
	struct camp_trace *t = &c->traces[c->ntraces];
	const char *s = yaml_str(d, item, "a trace folder");
	struct stat st;

	if (!s)
		return;
	if (!resolve_path(c, s, t->path) || stat(t->path, &st) || !S_ISDIR(st.st_mode)) {
		yaml_field_error(d, item,
				 "'%s' is not a trace folder (tried from the current folder, then from %s)",
				 s, c->folder);
		return;
	}
	id_part(basename(t->path), t->base, sizeof(t->base));
	for (size_t i = 0; i < c->ntraces; i++) {
		if (!strcmp(c->traces[i].base, t->base)) {
			yaml_field_error(d, item, "'%s' has the folder name of '%s': run ids would clash",
					 s, c->traces[i].path);
			return;
		}
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
	int n = count_items(d, f, "trace folder");

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
	if (scenario_load(c->scenario, &c->scn, c->scn_err, sizeof(c->scn_err)))
		yaml_field_error(d, f, "'%s' is not a valid scenario (its errors follow)", s);
	else if (digest_path(c->scenario, &c->scenario_hash))
		yaml_field_error(d, f, "cannot read '%s'", s);
}

static void parse_seeds(struct yaml_doc *d, const struct yaml_field *f, struct campaign *c)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	struct fy_node *node;
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
		bool dup = false;

		item_field(&item, node, name);
		if (!yaml_u64(d, &item, &seed))
			continue;
		for (size_t i = 0; i < c->nseeds; i++)
			dup |= c->seeds[i] == seed;
		if (dup)
			yaml_field_error(d, &item, "seed %llu is listed twice", (unsigned long long)seed);
		else
			c->seeds[c->nseeds++] = seed;
	}
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

static bool run_name_ok(const char *s)
{
	char clean[NAME_LEN];

	if (!*s || *s == '.' || strlen(s) >= NAME_LEN)
		return false;
	id_part(s, clean, sizeof(clean));
	return !strcmp(clean, s);
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
				 s, NAME_LEN - 1);
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
	for (i = 0; i < NINVARIANTS; i++)
		if (!strcmp(s, invariant_names[i]))
			break;
	if (i == NINVARIANTS) {
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
	bool seen[NINVARIANTS] = { false };
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;

	if (!f->val) {
		/* not given: all of them must hold */
		for (size_t i = 0; i < NINVARIANTS; i++)
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
	uint64_t h = DIGEST_FNV_BASIS;

	h = digest_fnv1a_str(h, OUTCOME_SCHEMA);
	h = digest_fnv1a_str(h, j->id);
	h = digest_fnv1a_str(h, c->traces[j->trace].path);
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
		yaml_error(d, map, owner, "campaign: needs 'traces' (trace folders)");
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

/* Append the scenario's own errors after the campaign's. */
static void append_errors(char *err, size_t errlen, const char *more)
{
	size_t n = strlen(err);

	if (!*more || n + 1 >= errlen)
		return;
	if (n && err[n - 1] != '\n')
		err[n++] = '\n';
	snprintf(err + n, errlen - n, "%s", more);
}

/*
 * Read and check the whole campaign file. Return: 0, -EINVAL (a missing or
 * malformed file: @err says where), -ENOMEM.
 */
static int campaign_load(const char *file, struct campaign *c, char *err, size_t errlen)
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
	if (!rc && !c->has_scenario)
		rc = scenario_defaults(&c->scn);
	return rc == -ENOMEM ? rc : rc ? -EINVAL : 0;
}

static void campaign_free(struct campaign *c)
{
	for (size_t i = 0; i < c->nruns; i++) {
		fault_plan_free(&c->runs[i].plan);
		free(c->runs[i].faults_yaml);
	}
	free(c->runs);
	free(c->traces);
	free(c->seeds);
	free(c->jobs);
	scenario_free(&c->scn);
	free(c);
}

/* ---- run files ----------------------------------------------------------- */

/* "gpuiso replay TRACE [--scenario S] --faults DIR/runs/ID.faults.yaml --seed N" */
static int reproduce_cmd(const struct campaign *c, const struct camp_job *j, char **out)
{
	char faults[RUN_PATH_LEN];
	size_t len;
	FILE *f;
	int rc = job_path(c, j, ".faults.yaml", faults, sizeof(faults));

	if (rc)
		return rc;
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	fputs("gpuiso replay ", f);
	shell_word(f, c->traces[j->trace].path);
	if (c->has_scenario) {
		fputs(" --scenario ", f);
		shell_word(f, c->scenario);
	}
	fputs(" --faults ", f);
	shell_word(f, faults);
	fprintf(f, " --seed %llu", (unsigned long long)j->seed);
	if (c->covers != COVERS_WINDOW)
		fprintf(f, " --trace-covers %s", trace_covers_name(c->covers));
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static bool rule_equal(const struct fp_rule *a, const struct fp_rule *b)
{
	return a->nth == b->nth && a->every == b->every && a->times == b->times &&
	       a->probability_ppm == b->probability_ppm && a->seed == b->seed &&
	       a->space == b->space && a->window == b->window && a->from == b->from &&
	       a->to == b->to && a->observe == b->observe;
}

static bool value_equal(const struct pressure_value *a, const struct pressure_value *b)
{
	return a->set == b->set && a->percent == b->percent && a->v == b->v;
}

static bool step_equal(const struct pressure_step *a, const struct pressure_step *b)
{
	return a->by_time == b->by_time && a->at == b->at && value_equal(&a->commit, &b->commit) &&
	       value_equal(&a->lockable, &b->lockable) && a->contiguous_set == b->contiguous_set &&
	       a->max_contiguous == b->max_contiguous;
}

static bool plan_equal(const struct fault_plan *a, const struct fault_plan *b)
{
	for (int p = 0; p < FP_NPOINTS; p++)
		if (a->armed[p] != b->armed[p] || (a->armed[p] && !rule_equal(&a->rule[p], &b->rule[p])))
			return false;
	if (a->nsteps != b->nsteps)
		return false;
	for (size_t i = 0; i < a->nsteps; i++)
		if (!step_equal(&a->steps[i], &b->steps[i]))
			return false;
	return true;
}

/* Keep @s on one line: records and comments are line based. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

/*
 * Write DIR/runs/ID.faults.yaml, then read it back as `gpuiso replay
 * --faults` will: the reproduce command must replay exactly this run's plan.
 */
static int write_faults_file(const struct campaign *c, const struct camp_job *j, char *err,
			     size_t errlen)
{
	const struct camp_run *r = &c->runs[j->run];
	struct fault_plan back;
	char path[RUN_PATH_LEN], lerr[1024] = "", name[sizeof(c->name)];
	char *text = NULL, *cmd = NULL;
	size_t len;
	FILE *f;
	int rc = job_path(c, j, ".faults.yaml", path, sizeof(path));

	if (!rc)
		rc = reproduce_cmd(c, j, &cmd);
	if (rc)
		goto out;
	f = open_memstream(&text, &len);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	/* a line break in a name or path would end the comment early */
	snprintf(name, sizeof(name), "%s", c->name);
	one_line(name);
	one_line(cmd);
	fprintf(f, "# Campaign %s, run %s (%s): its faults and pressure.\n# Reproduce: %s\n%s",
		name, r->name, j->id, cmd, r->faults_yaml);
	if (fclose(f)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = atomic_file_write(path, text, len);
	if (rc)
		goto out;
	rc = fault_plan_load(path, &back, lerr, sizeof(lerr));
	if (!rc && !plan_equal(&back, &r->plan))
		rc = -EPROTO;
	fault_plan_free(&back);
	if (rc == -EPROTO || rc == -EINVAL)
		snprintf(err, errlen, "%s: the faults file written for run '%s' does not read back as "
			 "the campaign's run: %s", path, r->name, *lerr ? lerr : "different rules");
out:
	if (rc && !*err)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
	free(cmd);
	free(text);
	return rc;
}

static int outcome_write(const struct campaign *c, const struct camp_job *j,
			 const struct outcome *oc)
{
	char path[RUN_PATH_LEN], text[REASON_LEN + 256];
	int n, rc = job_path(c, j, ".outcome", path, sizeof(path));

	if (rc)
		return rc;
	n = snprintf(text, sizeof(text), "%s\nkey %016llx\nresults %s%016llx\noutcome %s\nreason %s\n",
		     OUTCOME_SCHEMA, (unsigned long long)oc->key, oc->has_results ? "" : "none ",
		     (unsigned long long)oc->results,
		     oc->hung ? "hung" : oc->failed ? "failed" : "passed", oc->reason);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -EOVERFLOW;
	return atomic_file_write(path, text, (size_t)n);
}

/* One "name value" line of an outcome record; false when it is not that. */
static bool outcome_line(FILE *f, const char *name, char *val, size_t len)
{
	char line[REASON_LEN + 64];
	size_t n = strlen(name), l;

	if (!fgets(line, sizeof(line), f) || strncmp(line, name, n) || line[n] != ' ')
		return false;
	l = strlen(line);
	if (!l || line[l - 1] != '\n')
		return false;
	line[l - 1] = '\0';
	snprintf(val, len, "%s", line + n + 1);
	return true;
}

/* Read DIR/runs/ID.outcome; false when it is missing or not one. */
static bool outcome_read(const struct campaign *c, const struct camp_job *j, struct outcome *oc)
{
	char path[RUN_PATH_LEN], schema[64], key[32], results[64], what[16];
	unsigned long long v;
	bool ok;
	FILE *f;

	memset(oc, 0, sizeof(*oc));
	if (job_path(c, j, ".outcome", path, sizeof(path)) || !(f = fopen(path, "r")))
		return false;
	ok = fgets(schema, sizeof(schema), f) && !strcmp(schema, OUTCOME_SCHEMA "\n") &&
	     outcome_line(f, "key", key, sizeof(key)) &&
	     outcome_line(f, "results", results, sizeof(results)) &&
	     outcome_line(f, "outcome", what, sizeof(what)) &&
	     outcome_line(f, "reason", oc->reason, sizeof(oc->reason));
	fclose(f);
	if (!ok || sscanf(key, "%llx", &v) != 1)
		return false;
	oc->key = v;
	oc->has_results = strncmp(results, "none", 4) != 0;
	if (oc->has_results && sscanf(results, "%llx", &v) == 1)
		oc->results = v;
	else if (oc->has_results)
		return false;
	oc->hung = !strcmp(what, "hung");
	oc->failed = oc->hung || !strcmp(what, "failed");
	return oc->failed || !strcmp(what, "passed");
}

/* A finished run: its record matches this campaign's run and its results are intact. */
static bool job_finished(const struct campaign *c, const struct camp_job *j)
{
	char path[RUN_PATH_LEN];
	struct outcome oc;
	uint64_t h = 0;

	if (!outcome_read(c, j, &oc) || oc.key != j->key || !oc.has_results)
		return false;
	return !job_path(c, j, ".json", path, sizeof(path)) && !digest_path(path, &h) &&
	       h == oc.results;
}

/* ---- one run, in its child process ---------------------------------------- */

static void reason_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reason_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	if (n) {
		snprintf(buf + n, len - n, "; ");
		n = strlen(buf);
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* Why a run failed: the required invariants it broke, and the verifier's violations. */
static void judge(const struct campaign *c, const struct results *res, struct outcome *oc)
{
	oc->reason[0] = '\0';
	for (size_t i = 0; i < res->ninvariants; i++) {
		const struct invariant_result *inv = &res->invariants[i];

		if (inv->holds)
			continue;
		for (size_t k = 0; k < NINVARIANTS; k++)
			if (c->required[k] && !strcmp(inv->name, invariant_names[k]))
				reason_add(oc->reason, sizeof(oc->reason), "invariant %s broken",
					   inv->name);
	}
	if (res->nviolations) {
		const struct violation_result *v = &res->violations[0];

		reason_add(oc->reason, sizeof(oc->reason), "%zu violation%s: %s at event %llu (%s)%s",
			   res->nviolations, res->nviolations > 1 ? "s" : "", v->code,
			   (unsigned long long)v->event, v->detail,
			   res->nviolations > 1 ? " and more" : "");
	}
	oc->failed = oc->reason[0] != '\0';
}

/* Each event the run begins is progress its parent sees. */
static void run_event(const struct engine *e, uint64_t index, void *arg)
{
	(void)e;
	(void)index;
	watch_event(arg);
}

/*
 * Replay one run, write its results JSON and its outcome record, beating
 * @beat as it goes. Return: 0, or the errno (positive: it becomes the
 * child's exit status) of what could not be written.
 */
static int child_run(const struct campaign *c, const struct camp_job *j, struct watch_beat *beat)
{
	struct outcome oc = { .key = j->key };
	struct fault_plan plan = c->runs[j->run].plan;
	char json[RUN_PATH_LEN], faults[RUN_PATH_LEN];
	struct replay_opts ro = { .scn = &c->scn, .cache = true, .faults = &plan, .seed = j->seed,
				  .covers = c->covers, .before_event = run_event,
				  .before_event_arg = beat };
	struct replay_report *rep;
	struct results res;
	bool replayed;
	int rc = 0;

	watch_beat(beat); /* it has started */
	/* the campaign's seed replaces every rule's, as `gpuiso replay --seed` does */
	fault_plan_seed(&plan, j->seed);
	if (job_path(c, j, ".json", json, sizeof(json)) ||
	    job_path(c, j, ".faults.yaml", faults, sizeof(faults)))
		return ENAMETOOLONG;
	ro.trace = c->traces[j->trace].path;
	ro.scenario_path = c->has_scenario ? c->scenario : NULL;
	ro.faults_path = faults;
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return ENOMEM;
	replayed = !replay_run(&ro, &res, rep);
	watch_beat(beat); /* the replay has ended; the results follow */
	if (!replayed) {
		/* the trace could not be replayed: a failed run, with no results */
		oc.failed = true;
		if (snprintf(oc.reason, sizeof(oc.reason), "replay failed: %s", rep->error) < 0)
			oc.reason[0] = '\0'; /* a long message cut short still says why */
	} else {
		rc = results_write_json(&res, json);
		watch_beat(beat);
		if (!rc)
			rc = digest_path(json, &oc.results);
		oc.has_results = !rc;
		if (!rc)
			judge(c, &res, &oc);
	}
	one_line(oc.reason);
	results_fini(&res);
	free(rep);
	if (!rc)
		rc = outcome_write(c, j, &oc);
	return -rc;
}

/* ---- the children ---------------------------------------------------------- */

static void progress_line(struct progress *pg, const struct campaign *c, const struct camp_job *j,
			  const struct outcome *oc)
{
	pg->done++;
	if (!pg->f)
		return;
	fprintf(pg->f, "[%zu/%zu] %s %s s%llu", pg->done, c->njobs, c->runs[j->run].name,
		c->traces[j->trace].base, (unsigned long long)j->seed);
	if (c->reps > 1)
		fprintf(pg->f, " r%u", j->rep);
	if (!oc)
		fputs(": failed (no outcome recorded)", pg->f);
	else
		fprintf(pg->f, ": %s%s%s%s%s", oc->hung ? "hung" : oc->failed ? "failed" : "passed",
			j->resumed ? " (resumed)" : "", oc->failed ? " (" : "",
			oc->failed ? oc->reason : "", oc->failed ? ")" : "");
	fputc('\n', pg->f);
	fflush(pg->f);
}

/* The children and how they are watched. */
struct pool {
	struct slot *slots;
	struct pollfd *pfd;
	size_t n;
	struct watch watch;  /* slot i's run beats watch.beat[i] */
};

/* Start run @job in a child process of its own, in slot @i. */
static int spawn(const struct campaign *c, size_t job, struct pool *p, size_t i,
		 struct progress *pg)
{
	const struct camp_job *j = &c->jobs[job];
	char path[RUN_PATH_LEN];
	pid_t pid, self = getpid();
	int fds[2];

	/* what an earlier attempt left must not pass for this one's */
	if (!job_path(c, j, ".outcome", path, sizeof(path)))
		unlink(path);
	if (!job_path(c, j, ".json", path, sizeof(path)))
		unlink(path);
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	/* a child would write out what the parent has buffered once more */
	if (pg->f)
		fflush(pg->f);
	fflush(stdout);
	fflush(stderr);
	watch_start(&p->watch, i);
	pid = fork();
	if (pid < 0) {
		int rc = -errno;

		watch_stop(&p->watch, i);
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (!pid) {
		/* no run goes on without the campaign that waits for it */
		if (child_tie(self, "campaign-run"))
			_exit(ESRCH);
		close(fds[0]);
		for (size_t k = 0; k < p->n; k++)
			if (p->slots[k].pid)
				close(p->slots[k].fd);
		/* _exit: the parent's atexit handlers and buffers are not the child's */
		_exit(child_run(c, j, &p->watch.beat[i]));
	}
	close(fds[1]);
	p->slots[i] = (struct slot){ .pid = pid, .fd = fds[0], .job = job };
	return 0;
}

/* Why the parent killed a run, as its reason. */
static void hung_reason(const struct campaign *c, const struct pool *p, size_t i,
			struct outcome *oc)
{
	if (p->slots[i].killed == WATCH_OVERTIME)
		snprintf(oc->reason, sizeof(oc->reason),
			 "hung: still running after %u s (--run-timeout), killed", c->run_timeout_s);
	else
		snprintf(oc->reason, sizeof(oc->reason),
			 "hung: no progress for %u s (after %llu events), killed", p->watch.stall_s,
			 (unsigned long long)watch_events(&p->watch, i));
}

/* The child of slot @i ended with @status: record a hang or a crash for it, free the slot. */
static void reap(const struct campaign *c, struct pool *p, size_t i, int status,
		 struct progress *pg)
{
	struct slot *s = &p->slots[i];
	const struct camp_job *j = &c->jobs[s->job];
	struct outcome oc = { .key = j->key, .failed = true };

	close(s->fd);
	watch_stop(&p->watch, i);
	if (s->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		/* what it may have written meanwhile is not its outcome */
		oc.hung = true;
		hung_reason(c, p, i, &oc);
		outcome_write(c, j, &oc);
	} else if (WIFSIGNALED(status)) {
		snprintf(oc.reason, sizeof(oc.reason), "crashed: signal %d", WTERMSIG(status));
		outcome_write(c, j, &oc);
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		snprintf(oc.reason, sizeof(oc.reason), "could not record the run: %s",
			 strerror(WEXITSTATUS(status)));
		outcome_write(c, j, &oc);
	}
	progress_line(pg, c, j, outcome_read(c, j, &oc) && oc.key == j->key ? &oc : NULL);
	*s = (struct slot){ .pid = 0, .fd = -1 };
}

/* The next run to start at or after @from, or njobs. */
static size_t next_job(const struct campaign *c, size_t from)
{
	while (from < c->njobs && c->jobs[from].resumed)
		from++;
	return from;
}

/* Kill the runs that stopped moving or ran out of time; how long to wait before looking again. */
static int kill_hung(struct pool *p)
{
	int wait_ms = -1;

	for (size_t i = 0; i < p->n; i++) {
		enum watch_verdict v;

		if (!p->slots[i].pid || p->slots[i].killed)
			continue;
		v = watch_check(&p->watch, i, &wait_ms);
		if (v == WATCH_MOVING)
			continue;
		/* SIGKILL: a deadlocked or stopped run handles nothing, and a dead one is reaped below */
		kill(p->slots[i].pid, SIGKILL);
		p->slots[i].killed = v;
	}
	return wait_ms;
}

/* Wait until a child ends or one is found hung; reap those that ended. */
static size_t wait_children(const struct campaign *c, struct pool *p, struct progress *pg)
{
	int wait_ms = kill_hung(p), status;
	size_t reaped = 0;
	char buf[64];

	for (size_t i = 0; i < p->n; i++)
		p->pfd[i] = (struct pollfd){ .fd = p->slots[i].pid ? p->slots[i].fd : -1,
					     .events = POLLIN };
	if (poll(p->pfd, p->n, wait_ms) < 0) {
		if (errno == EINTR)
			return 0;
		/* no way to tell which ends first: look at each, then again a little later */
		for (size_t i = 0; i < p->n; i++) {
			if (p->slots[i].pid && waitpid(p->slots[i].pid, &status, WNOHANG) > 0) {
				reap(c, p, i, status, pg);
				reaped++;
			}
		}
		if (!reaped)
			poll(NULL, 0, 100);
		return reaped;
	}
	for (size_t i = 0; i < p->n; i++) {
		if (!p->slots[i].pid || !p->pfd[i].revents)
			continue;
		/* children write nothing: readable means ended */
		if (read(p->slots[i].fd, buf, sizeof(buf)) > 0)
			continue;
		while (waitpid(p->slots[i].pid, &status, 0) < 0 && errno == EINTR)
			;
		reap(c, p, i, status, pg);
		reaped++;
	}
	return reaped;
}

/* Run every run not resumed, at most @jobs at a time, each in its own child. */
static int run_pool(const struct campaign *c, unsigned int jobs, struct progress *pg, char *err,
		    size_t errlen)
{
	struct pool p = { .n = jobs };
	size_t next = next_job(c, 0), active = 0;
	int rc;

	rc = watch_init(&p.watch, jobs, c->stall_timeout_s, c->run_timeout_s);
	if (rc)
		return rc;
	p.slots = calloc(jobs, sizeof(*p.slots));
	p.pfd = calloc(jobs, sizeof(*p.pfd));
	if (!p.slots || !p.pfd) {
		rc = -ENOMEM;
		goto free_slots;
	}
	for (;;) {
		for (size_t i = 0; i < jobs && !rc && next < c->njobs; i++) {
			if (p.slots[i].pid)
				continue;
			rc = spawn(c, next, &p, i, pg);
			if (rc) {
				/* the runs under way still finish; the rest wait for a resume */
				snprintf(err, errlen, "campaign: cannot start run %s: %s", c->jobs[next].id,
					 strerror(-rc));
				break;
			}
			active++;
			next = next_job(c, next + 1);
		}
		if (!active)
			break;
		active -= wait_children(c, &p, pg);
	}
free_slots:
	free(p.pfd);
	free(p.slots);
	watch_fini(&p.watch);
	return rc;
}

/* ---- before and after ------------------------------------------------------ */

static int prepare_output(struct campaign *c, const char *out, char *err, size_t errlen)
{
	char runs[PATH_MAX + 8];
	int rc = path_mkdir_p(out);

	if (!rc && !realpath(out, c->out))
		rc = -errno;
	if (!rc && snprintf(runs, sizeof(runs), "%s/runs", c->out) >= (int)sizeof(runs))
		rc = -ENAMETOOLONG;
	if (!rc && mkdir(runs, 0755) && errno != EEXIST)
		rc = -errno;
	if (rc)
		snprintf(err, errlen, "campaign: %s: cannot create the output folder: %s", out,
			 strerror(-rc));
	return rc;
}

/* Write every run's faults file; find the runs an earlier invocation finished. */
static int prepare_runs(struct campaign *c, struct campaign_totals *t, struct progress *pg,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < c->njobs; i++) {
		struct camp_job *j = &c->jobs[i];
		struct outcome oc;
		int rc = write_faults_file(c, j, err, errlen);

		if (rc)
			return rc;
		j->resumed = job_finished(c, j);
		if (!j->resumed)
			continue;
		t->resumed++;
		progress_line(pg, c, j, outcome_read(c, j, &oc) ? &oc : NULL);
	}
	return 0;
}

/* The summary, rebuilt from the outcome records of every run. */
struct summary {
	const struct campaign *c;
	struct outcome *oc;  /* per run */
	char **reproduce;    /* per run: the command, for failed runs */
	unsigned int passed, failed, hung;
};

static void fill_failure(struct json *j, const struct summary *s, size_t i)
{
	const struct campaign *c = s->c;
	const struct camp_job *job = &c->jobs[i];
	char results[RUN_PATH_LEN];

	json_obj_begin(j, NULL);
	json_str(j, "run", c->runs[job->run].name);
	json_u64(j, "seed", job->seed);
	json_str(j, "outcome", s->oc[i].hung ? "hung" : "failed");
	json_str(j, "reason", s->oc[i].reason);
	json_str(j, "reproduce", s->reproduce[i]);
	json_str(j, "id", job->id);
	json_str(j, "trace", c->traces[job->trace].path);
	json_u64(j, "rep", job->rep);
	if (s->oc[i].has_results && !job_path(c, job, ".json", results, sizeof(results)))
		json_str(j, "results", results);
	else
		json_null(j, "results");
	json_obj_end(j);
}

static void fill_summary(struct json *j, const void *ctx)
{
	const struct summary *s = ctx;
	const struct campaign *c = s->c;
	char host[256];

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-campaign/1");
	json_str(j, "name", c->name);
	json_str(j, "host", host_name(host, sizeof(host)));
	json_obj_begin(j, "inputs");
	for (size_t i = 0; i < c->ntraces; i++)
		json_input(j, c->traces[i].path);
	if (c->has_scenario)
		json_input(j, c->scenario);
	json_obj_end(j);
	json_u64(j, "runs", c->njobs);
	json_u64(j, "passed", s->passed);
	json_u64(j, "failed", s->failed);
	json_u64(j, "hung", s->hung);
	json_str(j, "trace_covers", trace_covers_name(c->covers));
	json_arr_begin(j, "invariants");
	for (size_t i = 0; i < NINVARIANTS; i++)
		if (c->required[i])
			json_str(j, NULL, invariant_names[i]);
	json_arr_end(j);
	json_arr_begin(j, "failures");
	for (size_t i = 0; i < c->njobs; i++)
		if (s->oc[i].failed)
			fill_failure(j, s, i);
	json_arr_end(j);
	json_obj_end(j);
}

/* The human table: run, trace, seed, (rep,) outcome, reason. */
static void table_rows(const struct summary *s, FILE *f)
{
	const struct campaign *c = s->c;
	int wrun = 3, wtrace = 5, wseed = 4;
	char seed[24];

	for (size_t i = 0; i < c->nruns; i++)
		wrun = MAX(wrun, (int)strlen(c->runs[i].name));
	for (size_t i = 0; i < c->ntraces; i++)
		wtrace = MAX(wtrace, (int)strlen(c->traces[i].base));
	for (size_t i = 0; i < c->nseeds; i++)
		wseed = MAX(wseed, snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->seeds[i]));
	fprintf(f, "%-*s  %-*s  %-*s  %s%-7s  %s\n", wrun, "run", wtrace, "trace", wseed, "seed",
		c->reps > 1 ? "rep    " : "", "outcome", "reason");
	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];

		fprintf(f, "%-*s  %-*s  %-*llu  ", wrun, c->runs[j->run].name, wtrace,
			c->traces[j->trace].base, wseed, (unsigned long long)j->seed);
		if (c->reps > 1)
			fprintf(f, "%-5u  ", j->rep);
		if (s->oc[i].failed)
			fprintf(f, "%-7s  %s\n", s->oc[i].hung ? "hung" : "failed", s->oc[i].reason);
		else
			fputs("passed\n", f);
	}
}

static int write_table(const struct summary *s, const char *path)
{
	char *text = NULL;
	size_t len;
	FILE *f;
	int rc;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "campaign %s: %zu runs, %u passed, %u failed", s->c->name, s->c->njobs,
		s->passed, s->failed);
	if (s->hung)
		fprintf(f, " (%u hung)", s->hung);
	fputs("\n\n", f);
	table_rows(s, f);
	if (s->failed)
		fputs("\nreproduce:\n", f);
	for (size_t i = 0; i < s->c->njobs; i++)
		if (s->oc[i].failed)
			fprintf(f, "  %s\n", s->reproduce[i]);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	rc = atomic_file_write(path, text, len);
	free(text);
	return rc;
}

static int collect_outcomes(struct summary *s)
{
	const struct campaign *c = s->c;

	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];
		struct outcome *oc = &s->oc[i];

		if (!outcome_read(c, j, oc) || oc->key != j->key) {
			*oc = (struct outcome){ .failed = true };
			snprintf(oc->reason, sizeof(oc->reason), "no outcome recorded");
		}
		if (oc->failed) {
			int rc = reproduce_cmd(c, j, &s->reproduce[i]);

			if (rc)
				return rc;
			s->failed++;
			s->hung += oc->hung;
		} else {
			s->passed++;
		}
	}
	return 0;
}

static int write_summary(const struct campaign *c, struct campaign_totals *t, char *err,
			 size_t errlen)
{
	struct summary s = { .c = c };
	char path[PATH_MAX + 16];
	int rc = -ENOMEM;

	s.oc = calloc(c->njobs, sizeof(*s.oc));
	s.reproduce = calloc(c->njobs, sizeof(*s.reproduce));
	if (!s.oc || !s.reproduce)
		goto free_summary;
	rc = collect_outcomes(&s);
	if (rc)
		goto free_summary;
	t->runs = (unsigned int)c->njobs;
	t->passed = s.passed;
	t->failed = s.failed;
	t->hung = s.hung;
	snprintf(path, sizeof(path), "%s/summary.json", c->out);
	rc = json_write_file(path, fill_summary, &s);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/summary.txt", c->out);
		rc = write_table(&s, path);
	}
	if (rc)
		snprintf(err, errlen, "campaign: %s: cannot write: %s", path, strerror(-rc));
free_summary:
	for (size_t i = 0; s.reproduce && i < c->njobs; i++)
		free(s.reproduce[i]);
	free(s.reproduce);
	free(s.oc);
	return rc;
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

int campaign_run(const struct campaign_opts *o, struct campaign_totals *t, char *err,
		 size_t errlen)
{
	struct progress pg = { .f = o->progress };
	struct campaign *c;
	int rc;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	rc = campaign_load(o->file, c, err, errlen);
	if (rc)
		goto free_campaign;
	c->run_timeout_s = o->run_timeout_s;
	c->stall_timeout_s = o->stall_timeout_s;
	rc = prepare_output(c, o->out, err, errlen);
	if (!rc)
		rc = prepare_runs(c, t, &pg, err, errlen);
	if (!rc)
		rc = run_pool(c, o->jobs ? o->jobs : 1, &pg, err, errlen);
	if (!rc)
		rc = write_summary(c, t, err, errlen);
free_campaign:
	campaign_free(c);
	return rc;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/array.h"
#include "common/types.h"
#include "common/digest.h"
#include "common/yaml.h"
#include "runfile_internal.h"

/*
 * Reading a run file into a record (runfile.h): which kind it is, its tags,
 * its metrics and a campaign's or sweep's failing runs; the findings
 * (runfile_finding.c) and the benchmark it belongs to (runfile_identity.c)
 * are read by files of their own.
 */

struct schema {
	enum run_kind kind;
	const char *name; /* "gpuiso-results" */
	int version;      /* the newest this code reads */
};

static const struct schema schemas[] = {
	{ RUN_RESULTS, "gpuiso-results", 1 },
	{ RUN_BENCH, "gpuiso-bench", 1 },
	{ RUN_CAMPAIGN, "gpuiso-campaign", 1 },
	{ RUN_SWEEP, "gpuiso-sweep", 1 },
};

const char *run_kind_name(enum run_kind kind)
{
	static const char *const names[] = { "results", "bench", "campaign", "sweep" };

	return names[kind];
}

int run_kind_parse(const char *name, enum run_kind *kind)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(schemas); i++) {
		if (!strcmp(run_kind_name(schemas[i].kind), name)) {
			*kind = schemas[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

/* --- reading --- */

char *runfile_dup(struct runfile_reader *rd, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		rd->oom = true;
	return d;
}

struct fy_node *runfile_lookup(struct fy_node *map, const char *key)
{
	return map && fy_node_is_mapping(map) ? fy_node_mapping_lookup_by_string(map, key, -1) : NULL;
}

/*
 * The text of scalar @n, or NULL: a string's bytes as they were before
 * they were written (common/json.h: a path that is not UTF-8 reads back as
 * the same bytes).
 */
const char *runfile_scalar(struct runfile_reader *rd, struct fy_node *n)
{
	return yaml_text(rd->doc, n);
}

/* A string field of @map, or NULL (absent, null or not a string). */
const char *runfile_str_at(struct runfile_reader *rd, struct fy_node *map, const char *key)
{
	struct fy_node *n = runfile_lookup(map, key);

	if (!n || !fy_node_is_scalar(n) || fy_node_get_style(n) == FYNS_PLAIN)
		return NULL;
	return runfile_scalar(rd, n);
}

/* The text of any scalar field of @map (a number's digits too), or NULL. */
static const char *text_at(struct runfile_reader *rd, struct fy_node *map, const char *key)
{
	return runfile_scalar(rd, runfile_lookup(map, key));
}

static void add_metric(struct runfile_reader *rd, const char *name, double value, const char *unit)
{
	struct run_record *rec = rd->rec;
	struct run_metric *m;

	if (array_reserve(&rec->metrics, &rd->cap, rec->nmetrics, sizeof(*rec->metrics))) {
		rd->oom = true;
		return;
	}
	m = &rec->metrics[rec->nmetrics];
	m->name = runfile_dup(rd, name);
	if (!m->name)
		return;
	m->value = value;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	rec->nmetrics++;
}

/* A JSON number or boolean, as a double. */
static bool number_of(struct fy_node *n, double *v, bool *boolean)
{
	const char *s;
	char *end;

	if (!n || !fy_node_is_scalar(n) || fy_node_get_style(n) != FYNS_PLAIN)
		return false;
	s = fy_node_get_scalar0(n);
	if (!s)
		return false;
	*boolean = !strcmp(s, "true") || !strcmp(s, "false");
	if (*boolean) {
		*v = s[0] == 't';
		return true;
	}
	if (!strcmp(s, "null"))
		return false;
	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v);
}

bool runfile_date_ok(const char *s)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd"; /* d: a digit */
	struct tm tm = { 0 };
	const char *end;
	size_t i;

	/* the form first: strptime() skips white space and takes one-digit fields */
	for (i = 0; s && form[i]; i++)
		if (form[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != form[i])
			return false;
	end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (end != s + i)
		return false;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		for (end++; *end >= '0' && *end <= '9'; end++)
			;
	return !strcmp(end, "Z");
}

/* The unit of a results metric, from its name ("*_ns.overflow": values past a histogram's range). */
static const char *results_unit(const char *name, bool boolean)
{
	if (boolean)
		return "bool";
	size_t len = strlen(name);

	if (len > 9 && !strcmp(name + len - 9, ".overflow"))
		return "count";
	if (strstr(name, "_ns.") || (len > 3 && !strcmp(name + len - 3, "_ns")))
		return "ns";
	if (!strcmp(name, "power.bytes"))
		return "bytes";
	return "count";
}

/*
 * Every number and boolean below @n, named by its dotted path from @prefix;
 * a sequence counts as its length ("faults.violations" -> how many).
 */
static void flatten(struct runfile_reader *rd, struct fy_node *n, const char *prefix)
{
	char name[256];
	double v;
	bool boolean;

	if (number_of(n, &v, &boolean)) {
		add_metric(rd, prefix, v, results_unit(prefix, boolean));
	} else if (n && fy_node_is_scalar(n) && !fy_node_is_null(n) &&
		   strcmp(fy_node_get_scalar0(n) ? fy_node_get_scalar0(n) : "", "null")) {
		/* a metric is a finite number (or true/false, or null for none) */
		yaml_error(rd->doc, n, NULL, "%s: expected a finite number", prefix);
	} else if (n && fy_node_is_sequence(n)) {
		add_metric(rd, prefix, fy_node_sequence_item_count(n), "count");
	} else if (n && fy_node_is_mapping(n)) {
		void *it = NULL;
		struct fy_node_pair *p;

		while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
			const char *key = runfile_scalar(rd, fy_node_pair_key(p));

			if (!key)
				continue;
			snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
			flatten(rd, fy_node_pair_value(p), name);
		}
	}
}

/* gpuiso-bench/1: "metrics": {NAME: {"value": X, "unit": U}}. */
static void bench_metrics(struct runfile_reader *rd, struct fy_node *root)
{
	struct fy_node *metrics = runfile_lookup(root, "metrics");
	struct fy_node_pair *p;
	void *it = NULL;

	if (!metrics || !fy_node_is_mapping(metrics)) {
		yaml_error(rd->doc, metrics, root, "expected a \"metrics\" object");
		return;
	}
	while ((p = fy_node_mapping_iterate(metrics, &it)) != NULL) {
		const char *name = runfile_scalar(rd, fy_node_pair_key(p));
		struct fy_node *m = fy_node_pair_value(p);
		const char *unit = runfile_str_at(rd, m, "unit");
		double v;
		bool boolean;

		if (!name || !unit || !number_of(runfile_lookup(m, "value"), &v, &boolean) || boolean) {
			yaml_error(rd->doc, m, fy_node_pair_key(p),
				   "metrics.%s: expected {\"value\": NUMBER, \"unit\": TEXT}",
				   name ? name : "?");
			continue;
		}
		add_metric(rd, name, v, unit);
	}
}

static void results_metrics(struct runfile_reader *rd, struct fy_node *root)
{
	static const char *const dma_counts[] = { "blocked", "blocked_by", "exposed", "exposed_by" };
	static const char *const parts[] = { "events", "ops", "power", "invariants" };
	struct fy_node *faults = runfile_lookup(root, "faults");

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		flatten(rd, runfile_lookup(root, parts[i]), parts[i]);
	flatten(rd, runfile_lookup(faults, "injected"), "faults.injected");
	flatten(rd, runfile_lookup(faults, "violations"), "faults.violations");
	/* the counts; the records kept in full are not metrics */
	for (size_t i = 0; i < ARRAY_SIZE(dma_counts); i++) {
		char name[64];

		snprintf(name, sizeof(name), "faults.dma.%s", dma_counts[i]);
		flatten(rd, runfile_lookup(runfile_lookup(faults, "dma"), dma_counts[i]), name);
	}
}

static void campaign_metrics(struct runfile_reader *rd, struct fy_node *root)
{
	static const char *const parts[] = { "runs", "passed", "failed" };
	char name[64];

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(name, sizeof(name), "campaign.%s", parts[i]);
		flatten(rd, runfile_lookup(root, parts[i]), name);
	}
}

static void sweep_metrics(struct runfile_reader *rd, struct fy_node *root)
{
	flatten(rd, runfile_lookup(root, "points"), "sweep");
	flatten(rd, runfile_lookup(root, "failures"), "sweep.failures");
}

/*
 * The "failures" of a campaign ([{"id", "run", "reason", "reproduce"}]) or
 * of a sweep ([{"point", "nth", "outcome", "reproduce"}]), as they are
 * shown; not checked (the metrics count them).
 */
static void failures_of(struct runfile_reader *rd, struct fy_node *root, bool sweep)
{
	struct fy_node *fails = runfile_lookup(root, "failures"), *item;
	struct run_record *rec = rd->rec;
	void *it = NULL;
	int n = fails && fy_node_is_sequence(fails) ? fy_node_sequence_item_count(fails) : 0;

	if (n <= 0)
		return;
	rec->failures = calloc((size_t)n, sizeof(*rec->failures));
	if (!rec->failures) {
		rd->oom = true;
		return;
	}
	while ((item = fy_node_sequence_iterate(fails, &it)) != NULL) {
		struct run_failure *f = &rec->failures[rec->nfailures++];
		const char *point = text_at(rd, item, "point"), *nth = text_at(rd, item, "nth");

		if (sweep && asprintf(&f->what, "%s #%s", point ? point : "", nth ? nth : "") < 0) {
			f->what = NULL;
			rd->oom = true;
		} else if (!sweep) {
			f->what = runfile_dup(rd, text_at(rd, item, "id") ?: text_at(rd, item, "run"));
		}
		f->why = runfile_dup(rd, text_at(rd, item, sweep ? "outcome" : "reason"));
		f->reproduce = runfile_dup(rd, text_at(rd, item, "reproduce"));
	}
}

/* The schema field: which kind, or an error (foreign document, newer version). */
static int schema_of(struct runfile_reader *rd, struct fy_node *root, const struct schema **out)
{
	struct fy_node *n = runfile_lookup(root, "schema");
	const char *s = runfile_str_at(rd, root, "schema");

	if (!s) {
		yaml_error(rd->doc, n, root,
			   "not a gpuiso run file: no \"schema\" (expected gpuiso-results/1, gpuiso-bench/1, gpuiso-campaign/1 or gpuiso-sweep/1)");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++) {
		size_t len = strlen(schemas[i].name);
		char *end;
		long v;

		if (strncmp(s, schemas[i].name, len) || s[len] != '/')
			continue;
		v = strtol(s + len + 1, &end, 10);
		if (end == s + len + 1 || *end || v < 1)
			break;
		if (v > schemas[i].version) {
			yaml_error(rd->doc, n, root,
				   "schema %s is newer than this gpuiso reads (%s/%d): update gpuiso", s,
				   schemas[i].name, schemas[i].version);
			return -EPROTO;
		}
		*out = &schemas[i];
		return 0;
	}
	yaml_error(rd->doc, n, root, "not a gpuiso run file: unknown schema '%s'", s);
	return -EINVAL;
}

/* The whole of @f as a string; NULL when it cannot be read or held. */
static char *read_text(FILE *f)
{
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	do {
		if (array_reserve(&text, &cap, len + 4096, 1)) {
			free(text);
			return NULL;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		free(text);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

/* The file's modification time in ISO 8601 (UTC, to the second); its nanoseconds in *@nsec. */
static char *mtime_iso(const char *path, long *nsec)
{
	struct stat st;
	struct tm tm;
	char buf[32];

	if (stat(path, &st) || !gmtime_r(&st.st_mtime, &tm))
		return NULL;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	*nsec = st.st_mtim.tv_nsec;
	return strdup(buf);
}

/* Tags, identity and metrics by kind; the key and date too when read from @path. */
static void fill(struct runfile_reader *rd, struct fy_node *root, const struct schema *sc,
		 const char *path)
{
	struct run_record *rec = rd->rec;
	struct fy_node *run = runfile_lookup(root, "run");
	char key[128];
	struct digest d;
	long nsec;

	rec->kind = sc->kind;
	switch (sc->kind) {
	case RUN_RESULTS:
		if (!runfile_str_at(rd, run, "id") || !runfile_str_at(rd, run, "started")) {
			yaml_error(rd->doc, run, root, "run: expected an object with \"id\" and \"started\"");
			return;
		}
		snprintf(key, sizeof(key), "results/%s", runfile_str_at(rd, run, "id"));
		rec->key = runfile_dup(rd, key);
		if (!runfile_date_ok(runfile_str_at(rd, run, "started"))) {
			yaml_error(rd->doc, runfile_lookup(run, "started"), run,
				   "run.started: expected a UTC time as YYYY-MM-DDTHH:MM:SSZ");
			return;
		}
		rec->date = runfile_dup(rd, runfile_str_at(rd, run, "started"));
		rec->git_rev = runfile_dup(rd, runfile_str_at(rd, run, "git_rev"));
		rec->host = runfile_dup(rd, runfile_str_at(rd, run, "host"));
		rec->backend = runfile_dup(rd, runfile_str_at(rd, run, "backend"));
		rec->trace = runfile_dup(rd, runfile_str_at(rd, run, "trace"));
		rec->scenario = runfile_dup(rd, runfile_str_at(rd, run, "scenario"));
		runfile_input_digests(rd, runfile_lookup(run, "inputs"));
		runfile_code_of(rd, run);
		runfile_identify(rd, root, sc->kind);
		results_metrics(rd, root);
		return;
	case RUN_BENCH:
		rec->git_rev = runfile_dup(rd, runfile_str_at(rd, root, "git_rev"));
		rec->host = runfile_dup(rd, runfile_str_at(rd, root, "host"));
		runfile_code_of(rd, root);
		bench_metrics(rd, root);
		break;
	case RUN_CAMPAIGN:
		rec->git_rev = runfile_dup(rd, runfile_str_at(rd, root, "git_rev"));
		runfile_code_of(rd, root);
		rec->campaign = runfile_dup(rd, runfile_str_at(rd, root, "name"));
		rec->host = runfile_dup(rd, runfile_str_at(rd, root, "host"));
		campaign_metrics(rd, root);
		failures_of(rd, root, false);
		runfile_findings_of(rd, root, false);
		break;
	case RUN_SWEEP:
		rec->git_rev = runfile_dup(rd, runfile_str_at(rd, root, "git_rev"));
		runfile_code_of(rd, root);
		rec->trace = runfile_dup(rd, runfile_str_at(rd, root, "trace"));
		rec->scenario = runfile_dup(rd, runfile_str_at(rd, root, "scenario"));
		rec->host = runfile_dup(rd, runfile_str_at(rd, root, "host"));
		rec->baseline = runfile_dup(rd, runfile_str_at(rd, root, "baseline"));
		sweep_metrics(rd, root);
		failures_of(rd, root, true);
		runfile_findings_of(rd, root, true);
		break;
	}
	runfile_input_digests(rd, runfile_lookup(root, "inputs"));
	runfile_identify(rd, root, sc->kind);
	if (!path)
		return;
	/*
	 * No run id in these: the content and when the file was written, to the
	 * nanosecond, are the identity (the same summary written again, next
	 * night or the next second, is a new run).
	 */
	rec->date = mtime_iso(path, &nsec);
	if (!rec->date) {
		rd->oom = true;
		return;
	}
	digest_init(&d);
	digest_update(&d, rec->json, strlen(rec->json));
	snprintf(key, sizeof(key), "%s/%016llx/%s+%09ldns", run_kind_name(sc->kind),
		 (unsigned long long)digest_final(&d), rec->date, nsec);
	rec->key = runfile_dup(rd, key);
}

/*
 * Read @text (named @name in messages) into @rec, which takes the text;
 * @path, when not NULL, is the file it was read from (for the key and date
 * of kinds without a run id).
 */
static int parse(const char *name, char *text, const char *path, struct run_record *rec, char *err,
		 size_t errlen)
{
	struct runfile_reader rd = { .rec = rec };
	const struct schema *sc = NULL;
	struct fy_node *root;
	int rc, closed;

	*rec = (struct run_record){ .json = text };
	err[0] = '\0';
	rc = yaml_open_json_text(name, text, &rd.doc);
	if (rc == -ENOMEM) {
		runfile_free(rec);
		return rc;
	}
	root = rc ? NULL : yaml_root(rd.doc);
	if (!rc && (!root || !fy_node_is_mapping(root))) {
		yaml_error(rd.doc, root, NULL, "not a gpuiso run file: expected a JSON object");
		rc = -EINVAL;
	}
	if (!rc)
		rc = schema_of(&rd, root, &sc);
	if (!rc)
		fill(&rd, root, sc, path);
	if (rd.oom)
		yaml_nomem(rd.doc);
	closed = yaml_close(rd.doc, err, errlen);
	if (!rc)
		rc = closed;
	if (rc)
		runfile_free(rec);
	/* An empty file has no errors of its own to report. */
	if (rc == -EINVAL && !err[0])
		snprintf(err, errlen, "%s: error: empty file (expected a gpuiso run file)", name);
	return rc;
}

int runfile_read(const char *path, struct run_record *rec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *text;

	*rec = (struct run_record){ 0 };
	/* fopen() opens a folder for reading; reading it then fails with EISDIR */
	if (f && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		snprintf(err, errlen, "%s: error: cannot open: %s\n", path, strerror(errno));
		return -ENOENT;
	}
	text = read_text(f);
	fclose(f);
	if (!text) {
		snprintf(err, errlen, "%s: error: cannot read: %s\n", path, strerror(errno));
		return errno == ENOMEM ? -ENOMEM : -EIO;
	}
	return parse(path, text, path, rec, err, errlen);
}

int runfile_parse(const char *name, const char *json, struct run_record *rec, char *err,
		  size_t errlen)
{
	char *text = strdup(json);

	*rec = (struct run_record){ 0 };
	if (!text)
		return -ENOMEM;
	return parse(name, text, NULL, rec, err, errlen);
}

double runfile_value(const struct run_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->nmetrics; i++)
		if (!strcmp(rec->metrics[i].name, name))
			return rec->metrics[i].value;
	return NAN;
}

void runfile_free(struct run_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++)
		free(rec->metrics[i].name);
	free(rec->metrics);
	for (size_t i = 0; i < rec->nfailures; i++) {
		free(rec->failures[i].what);
		free(rec->failures[i].why);
		free(rec->failures[i].reproduce);
	}
	free(rec->failures);
	for (size_t i = 0; i < rec->nfindings; i++)
		run_finding_free(&rec->findings[i]);
	free(rec->findings);
	free(rec->baseline);
	free(rec->key);
	free(rec->git_rev);
	free(rec->date);
	free(rec->host);
	free(rec->backend);
	free(rec->trace);
	free(rec->scenario);
	free(rec->campaign);
	free(rec->benchmark);
	free(rec->inputs);
	free(rec->code);
	free(rec->json);
	*rec = (struct run_record){ 0 };
}

/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
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
#include "runfile.h"

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

struct reader {
	struct yaml_doc *doc;
	struct run_record *rec;
	size_t cap;
	bool oom;
};

static char *dup_or_oom(struct reader *rd, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		rd->oom = true;
	return d;
}

static struct fy_node *lookup(struct fy_node *map, const char *key)
{
	return map && fy_node_is_mapping(map) ? fy_node_mapping_lookup_by_string(map, key, -1) : NULL;
}

/*
 * The text of scalar @n, or NULL: a string's bytes as they were before
 * they were written (common/json.h: a path that is not UTF-8 reads back as
 * the same bytes).
 */
static const char *scalar(struct reader *rd, struct fy_node *n)
{
	return yaml_text(rd->doc, n);
}

/* A string field of @map, or NULL (absent, null or not a string). */
static const char *str_at(struct reader *rd, struct fy_node *map, const char *key)
{
	struct fy_node *n = lookup(map, key);

	if (!n || !fy_node_is_scalar(n) || fy_node_get_style(n) == FYNS_PLAIN)
		return NULL;
	return scalar(rd, n);
}

/* The text of any scalar field of @map (a number's digits too), or NULL. */
static const char *text_at(struct reader *rd, struct fy_node *map, const char *key)
{
	return scalar(rd, lookup(map, key));
}

static void add_metric(struct reader *rd, const char *name, double value, const char *unit)
{
	struct run_record *rec = rd->rec;
	struct run_metric *m;

	if (array_reserve(&rec->metrics, &rd->cap, rec->nmetrics, sizeof(*rec->metrics))) {
		rd->oom = true;
		return;
	}
	m = &rec->metrics[rec->nmetrics];
	m->name = dup_or_oom(rd, name);
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
static void flatten(struct reader *rd, struct fy_node *n, const char *prefix)
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
			const char *key = scalar(rd, fy_node_pair_key(p));

			if (!key)
				continue;
			snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
			flatten(rd, fy_node_pair_value(p), name);
		}
	}
}

/* gpuiso-bench/1: "metrics": {NAME: {"value": X, "unit": U}}. */
static void bench_metrics(struct reader *rd, struct fy_node *root)
{
	struct fy_node *metrics = lookup(root, "metrics");
	struct fy_node_pair *p;
	void *it = NULL;

	if (!metrics || !fy_node_is_mapping(metrics)) {
		yaml_error(rd->doc, metrics, root, "expected a \"metrics\" object");
		return;
	}
	while ((p = fy_node_mapping_iterate(metrics, &it)) != NULL) {
		const char *name = scalar(rd, fy_node_pair_key(p));
		struct fy_node *m = fy_node_pair_value(p);
		const char *unit = str_at(rd, m, "unit");
		double v;
		bool boolean;

		if (!name || !unit || !number_of(lookup(m, "value"), &v, &boolean) || boolean) {
			yaml_error(rd->doc, m, fy_node_pair_key(p),
				   "metrics.%s: expected {\"value\": NUMBER, \"unit\": TEXT}",
				   name ? name : "?");
			continue;
		}
		add_metric(rd, name, v, unit);
	}
}

static void results_metrics(struct reader *rd, struct fy_node *root)
{
	static const char *const dma_counts[] = { "blocked", "blocked_by", "exposed", "exposed_by" };
	static const char *const parts[] = { "events", "ops", "power", "invariants" };
	struct fy_node *faults = lookup(root, "faults");

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		flatten(rd, lookup(root, parts[i]), parts[i]);
	flatten(rd, lookup(faults, "injected"), "faults.injected");
	flatten(rd, lookup(faults, "violations"), "faults.violations");
	/* the counts; the records kept in full are not metrics */
	for (size_t i = 0; i < ARRAY_SIZE(dma_counts); i++) {
		char name[64];

		snprintf(name, sizeof(name), "faults.dma.%s", dma_counts[i]);
		flatten(rd, lookup(lookup(faults, "dma"), dma_counts[i]), name);
	}
}

static void campaign_metrics(struct reader *rd, struct fy_node *root)
{
	static const char *const parts[] = { "runs", "passed", "failed" };
	char name[64];

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(name, sizeof(name), "campaign.%s", parts[i]);
		flatten(rd, lookup(root, parts[i]), name);
	}
}

static void sweep_metrics(struct reader *rd, struct fy_node *root)
{
	flatten(rd, lookup(root, "points"), "sweep");
	flatten(rd, lookup(root, "failures"), "sweep.failures");
}

/*
 * The "failures" of a campaign ([{"id", "run", "reason", "reproduce"}]) or
 * of a sweep ([{"point", "nth", "outcome", "reproduce"}]), as they are
 * shown; not checked (the metrics count them).
 */
static void failures_of(struct reader *rd, struct fy_node *root, bool sweep)
{
	struct fy_node *fails = lookup(root, "failures"), *item;
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
			f->what = dup_or_oom(rd, text_at(rd, item, "id") ?: text_at(rd, item, "run"));
		}
		f->why = dup_or_oom(rd, text_at(rd, item, sweep ? "outcome" : "reason"));
		f->reproduce = dup_or_oom(rd, text_at(rd, item, "reproduce"));
	}
}

/* --- findings --- */

static bool is_null(struct fy_node *n)
{
	return n && fy_node_is_scalar(n) && fy_node_get_style(n) == FYNS_PLAIN &&
	       !strcmp(fy_node_get_scalar0(n) ? fy_node_get_scalar0(n) : "", "null");
}

/* A finding being read: its node, its name in messages ("findings[2]"). */
struct finding_reader {
	struct reader *rd;
	struct fy_node *item;
	char name[32];
	bool bad;
};

/*
 * The string @key of the finding, copied to *@out: NULL for null when
 * @nullable; reported (missing, null, not a string) otherwise.
 */
static void finding_str(struct finding_reader *fr, const char *key, bool nullable, char **out)
{
	struct fy_node *n = lookup(fr->item, key);
	const char *s = str_at(fr->rd, fr->item, key);

	*out = NULL;
	if (nullable && is_null(n))
		return;
	if (!s) {
		yaml_error(fr->rd->doc, n, fr->item, "%s.%s: %s, expected a string%s", fr->name, key,
			   n ? "wrong type" : "missing", nullable ? " or null" : "");
		fr->bad = true;
		return;
	}
	*out = dup_or_oom(fr->rd, s);
}

/* The integer @key of @map (named @name.@key), at least @min; reported otherwise. */
static bool finding_int(struct finding_reader *fr, struct fy_node *map, const char *name,
			const char *key, long long min, long long *out)
{
	struct fy_node *n = lookup(map, key);
	const char *s = n && fy_node_is_scalar(n) && fy_node_get_style(n) == FYNS_PLAIN
				? fy_node_get_scalar0(n) : NULL;
	char *end = NULL;

	if (s) {
		errno = 0;
		*out = strtoll(s, &end, 10);
	}
	if (!s || end == s || *end || errno || *out < min) {
		yaml_error(fr->rd->doc, n, map, "%s.%s: %s, expected an integer of at least %lld", name,
			   key, n ? "wrong value" : "missing", min);
		fr->bad = true;
		return false;
	}
	return true;
}

/* Whether @s is one of the words of @list (NULL-terminated). */
static bool one_of(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* Report that the finding's @key is not one of @list. */
static void finding_not_one_of(struct finding_reader *fr, const char *key, const char *const *list)
{
	char words[128] = "";

	for (size_t len = 0; *list; list++)
		len += snprintf(words + len, sizeof(words) - len, "%s%s", len ? ", " : "", *list);
	yaml_error(fr->rd->doc, lookup(fr->item, key), fr->item, "%s.%s: expected one of %s",
		   fr->name, key, words);
	fr->bad = true;
}

/* The broken invariants, ["a", "b"], as "a,b". */
static void finding_invariants(struct finding_reader *fr, struct run_finding *f)
{
	struct fy_node *inv = lookup(fr->item, "invariants"), *n;
	void *it = NULL;
	size_t len = 0;
	FILE *out;

	if (!inv || !fy_node_is_sequence(inv)) {
		yaml_error(fr->rd->doc, inv, fr->item, "%s.invariants: %s, expected a list of names",
			   fr->name, inv ? "wrong type" : "missing");
		fr->bad = true;
		return;
	}
	out = open_memstream(&f->invariants, &len);
	if (!out) {
		fr->rd->oom = true;
		return;
	}
	for (int i = 0; (n = fy_node_sequence_iterate(inv, &it)) != NULL; i++) {
		const char *name = n && fy_node_is_scalar(n) && fy_node_get_style(n) != FYNS_PLAIN
					   ? scalar(fr->rd, n) : NULL;

		if (!name || !*name || strpbrk(name, ", \n")) {
			yaml_error(fr->rd->doc, n, inv, "%s.invariants[%d]: expected an invariant's name",
				   fr->name, i);
			fr->bad = true;
			continue;
		}
		fprintf(out, "%s%s", i ? "," : "", name);
	}
	if (fclose(out)) {
		f->invariants = NULL;
		fr->rd->oom = true;
	}
}

/*
 * A sweep's "nth" of @map (named @name): {"min": FIRST, "max": LAST}, hits
 * from 1, into @min and @max; reported otherwise.
 */
static void nth_of(struct finding_reader *fr, struct fy_node *map, const char *name,
		   long long *min, long long *max)
{
	struct fy_node *nth = lookup(map, "nth");
	char nth_name[64];

	if (!nth || !fy_node_is_mapping(nth)) {
		yaml_error(fr->rd->doc, nth, map, "%s.nth: %s, expected {\"min\": N, \"max\": N}", name,
			   nth ? "wrong type" : "missing");
		fr->bad = true;
		return;
	}
	snprintf(nth_name, sizeof(nth_name), "%s.nth", name);
	if (finding_int(fr, nth, nth_name, "min", 1, min) &&
	    finding_int(fr, nth, nth_name, "max", 1, max) && *max < *min) {
		yaml_error(fr->rd->doc, lookup(nth, "max"), nth, "%s.max: %lld is below min (%lld)",
			   nth_name, *max, *min);
		fr->bad = true;
	}
}

/*
 * "contexts": the operations the finding's fault was injected in, each
 * [{"operation", "runs", "nth" (sweeps)}]. Summaries written before
 * contexts have none: nothing is known of them then.
 */
static void finding_contexts(struct finding_reader *fr, struct run_finding *f, bool sweep)
{
	struct fy_node *list = lookup(fr->item, "contexts"), *item;
	void *it = NULL;
	int n;

	if (!list)
		return;
	n = fy_node_is_sequence(list) ? fy_node_sequence_item_count(list) : -1;
	if (n < 1) {
		yaml_error(fr->rd->doc, list, fr->item, "%s.contexts: expected a list of "
			   "{\"operation\", \"runs\"%s}", fr->name, sweep ? ", \"nth\"" : "");
		fr->bad = true;
		return;
	}
	f->contexts = calloc((size_t)n, sizeof(*f->contexts));
	if (!f->contexts) {
		fr->rd->oom = true;
		return;
	}
	for (int i = 0; (item = fy_node_sequence_iterate(list, &it)) != NULL; i++) {
		struct run_context *c = &f->contexts[f->ncontexts++];
		const char *op = str_at(fr->rd, item, "operation");
		char name[64];

		snprintf(name, sizeof(name), "%s.contexts[%d]", fr->name, i);
		if (!fy_node_is_mapping(item) || !op) {
			yaml_error(fr->rd->doc, fy_node_is_mapping(item) ? lookup(item, "operation") : item,
				   item, "%s: expected {\"operation\": NAME, \"runs\": N%s}", name,
				   sweep ? ", \"nth\": {\"min\": N, \"max\": N}" : "");
			fr->bad = true;
			continue;
		}
		c->operation = dup_or_oom(fr->rd, op);
		finding_int(fr, item, name, "runs", 1, &c->runs);
		if (sweep)
			nth_of(fr, item, name, &c->nth_min, &c->nth_max);
	}
}

/* "trimmed": null, or {"trace": PATH, "events": N, "of": N}. */
static void finding_trimmed(struct finding_reader *fr, struct run_finding *f)
{
	struct fy_node *t = lookup(fr->item, "trimmed");
	const char *trace = str_at(fr->rd, t, "trace");
	char name[48];

	if (!t || is_null(t))
		return; /* absent or null: no trimmed trace */
	snprintf(name, sizeof(name), "%s.trimmed", fr->name);
	if (!fy_node_is_mapping(t) || !trace) {
		yaml_error(fr->rd->doc, fy_node_is_mapping(t) ? lookup(t, "trace") : t, t,
			   "%s: expected null or {\"trace\": PATH, \"events\": N, \"of\": N}", name);
		fr->bad = true;
		return;
	}
	if (finding_int(fr, t, name, "events", 0, &f->trimmed_events) &&
	    finding_int(fr, t, name, "of", 0, &f->trimmed_of) && f->trimmed_of < f->trimmed_events) {
		yaml_error(fr->rd->doc, lookup(t, "of"), t, "%s.of: %lld is below events (%lld)", name,
			   f->trimmed_of, f->trimmed_events);
		fr->bad = true;
	}
	f->trimmed = dup_or_oom(fr->rd, trace);
}

/* Whether @s is 16 lowercase hex digits. */
static bool signature_ok(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return n == 16 && !s[n];
}

void run_finding_free(struct run_finding *f)
{
	free(f->signature);
	free(f->key);
	free(f->title);
	free(f->blame);
	free(f->outcome);
	free(f->code);
	free(f->invariants);
	free(f->point);
	free(f->operation);
	free(f->reproduce);
	free(f->trimmed);
	for (size_t i = 0; i < f->ncontexts; i++)
		free(f->contexts[i].operation);
	free(f->contexts);
	*f = (struct run_finding){ 0 };
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

int run_finding_copy(struct run_finding *dst, const struct run_finding *src)
{
	bool oom = false;

	*dst = *src;
	dst->signature = dup_opt(src->signature, &oom);
	dst->key = dup_opt(src->key, &oom);
	dst->title = dup_opt(src->title, &oom);
	dst->blame = dup_opt(src->blame, &oom);
	dst->outcome = dup_opt(src->outcome, &oom);
	dst->code = dup_opt(src->code, &oom);
	dst->invariants = dup_opt(src->invariants, &oom);
	dst->point = dup_opt(src->point, &oom);
	dst->operation = dup_opt(src->operation, &oom);
	dst->reproduce = dup_opt(src->reproduce, &oom);
	dst->trimmed = dup_opt(src->trimmed, &oom);
	dst->contexts = NULL;
	dst->ncontexts = 0;
	if (src->ncontexts) {
		dst->contexts = calloc(src->ncontexts, sizeof(*dst->contexts));
		oom |= !dst->contexts;
	}
	for (size_t i = 0; dst->contexts && i < src->ncontexts; i++) {
		dst->contexts[i] = src->contexts[i];
		dst->contexts[i].operation = dup_opt(src->contexts[i].operation, &oom);
		dst->ncontexts++;
	}
	return oom ? -ENOMEM : 0;
}

/* One finding, checked; false when it was refused (reported) and left out. */
static bool finding_of(struct finding_reader *fr, struct run_finding *f, bool sweep)
{
	static const char *const blames[] = { "fault", "driver", "model", "none", NULL };
	static const char *const sweep_outcomes[] = { "reset", "violation", "crash", "hung", NULL };
	/* a campaign names a failure as a sweep does; failed: not replayed (or an older file) */
	static const char *const campaign_outcomes[] = { "reset", "violation", "failed", "hung",
							 NULL };
	const char *const *outcomes = sweep ? sweep_outcomes : campaign_outcomes;

	if (!fy_node_is_mapping(fr->item)) {
		yaml_error(fr->rd->doc, fr->item, NULL, "%s: expected an object", fr->name);
		return false;
	}
	finding_str(fr, "signature", false, &f->signature);
	if (f->signature && !signature_ok(f->signature)) {
		yaml_error(fr->rd->doc, lookup(fr->item, "signature"), fr->item,
			   "%s.signature: expected 16 lowercase hex digits, not '%s'", fr->name,
			   f->signature);
		fr->bad = true;
	}
	finding_str(fr, "key", false, &f->key);
	finding_str(fr, "title", false, &f->title);
	finding_str(fr, "blame", false, &f->blame);
	if (f->blame && !one_of(f->blame, blames))
		finding_not_one_of(fr, "blame", blames);
	finding_str(fr, "outcome", false, &f->outcome);
	if (f->outcome && !one_of(f->outcome, outcomes))
		finding_not_one_of(fr, "outcome", outcomes);
	finding_str(fr, "code", true, &f->code);
	finding_invariants(fr, f);
	finding_str(fr, "point", true, &f->point);
	finding_str(fr, "operation", true, &f->operation);
	finding_int(fr, fr->item, fr->name, "runs", 1, &f->runs);
	if (sweep)
		nth_of(fr, fr->item, fr->name, &f->nth_min, &f->nth_max);
	finding_contexts(fr, f, sweep);
	finding_str(fr, "reproduce", false, &f->reproduce);
	finding_trimmed(fr, f);
	return !fr->bad;
}

/*
 * The index in the file of the first finding of @list with @signature (the
 * record leaves refused ones out).
 */
static int first_with(struct reader *rd, struct fy_node *list, const char *signature)
{
	struct fy_node *item;
	void *it = NULL;
	int i = 0;

	while ((item = fy_node_sequence_iterate(list, &it)) != NULL) {
		const char *sig = str_at(rd, item, "signature");

		if (sig && !strcmp(sig, signature))
			return i;
		i++;
	}
	return -1;
}

/*
 * The "findings" of a campaign or sweep summary, checked (wrong types and
 * values are errors with where; keys this code does not know are left
 * alone, as everywhere in a run file). A summary without them was written
 * before findings: nothing is known of them.
 */
static void findings_of(struct reader *rd, struct fy_node *root, bool sweep)
{
	struct fy_node *list = lookup(root, "findings"), *item;
	struct run_record *rec = rd->rec;
	void *it = NULL;
	int n;

	if (!list)
		return;
	if (!fy_node_is_sequence(list)) {
		yaml_error(rd->doc, list, root, "findings: expected a list of findings");
		return;
	}
	rec->findings_recorded = true;
	n = fy_node_sequence_item_count(list);
	if (n <= 0)
		return;
	rec->findings = calloc((size_t)n, sizeof(*rec->findings));
	if (!rec->findings) {
		rd->oom = true;
		return;
	}
	for (int i = 0; (item = fy_node_sequence_iterate(list, &it)) != NULL; i++) {
		struct finding_reader fr = { .rd = rd, .item = item };
		struct run_finding *f = &rec->findings[rec->nfindings];
		size_t k;

		snprintf(fr.name, sizeof(fr.name), "findings[%d]", i);
		if (!finding_of(&fr, f, sweep)) {
			run_finding_free(f);
			continue;
		}
		for (k = 0; k < rec->nfindings && strcmp(rec->findings[k].signature, f->signature); k++)
			;
		if (k < rec->nfindings) {
			yaml_error(rd->doc, lookup(item, "signature"), item,
				   "%s.signature: %s is findings[%d]'s too: a summary lists a finding once",
				   fr.name, f->signature, first_with(rd, list, f->signature));
			run_finding_free(f);
			continue;
		}
		rec->nfindings++;
	}
}

/* The schema field: which kind, or an error (foreign document, newer version). */
static int schema_of(struct reader *rd, struct fy_node *root, const struct schema **out)
{
	struct fy_node *n = lookup(root, "schema");
	const char *s = str_at(rd, root, "schema");

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

/* What the benchmark was run with, as " KEY=VALUE" words appended to the identity. */
struct identity {
	struct reader *rd;
	FILE *f;
	char *text;
	size_t len;
};

static void identity_word(struct identity *id, const char *key, const char *value)
{
	if (value && *value)
		fprintf(id->f, " %s=%s", key, value);
}

/*
 * What the trace was taken to cover, when it is not the default: a trace
 * replayed as the adapters' whole life reports leaks a window does not, so
 * the two are two benchmarks. Runs without the field were windows.
 */
static void covers_word(struct identity *id, struct fy_node *node)
{
	const char *covers = str_at(id->rd, node, "trace_covers");

	if (covers && strcmp(covers, "window"))
		identity_word(id, "covers", covers);
}

/* The import maps a trace was replayed through, in order: through others, it is another benchmark. */
static void maps_words(struct identity *id, struct fy_node *node)
{
	struct fy_node *maps = lookup(node, "maps"), *m;
	void *it = NULL;

	while (maps && fy_node_is_sequence(maps) && (m = fy_node_sequence_iterate(maps, &it)))
		identity_word(id, "map", scalar(id->rd, m));
}

/* A results run's names: trace, scenario, backend, faults and seed, import maps, what the trace covers. */
static void results_identity(struct identity *id, struct fy_node *run)
{
	struct fy_node *seed = lookup(run, "seed");
	const char *seed_text = seed && fy_node_is_scalar(seed) ? fy_node_get_scalar0(seed) : NULL;

	identity_word(id, "trace", str_at(id->rd, run, "trace"));
	identity_word(id, "scenario", str_at(id->rd, run, "scenario"));
	identity_word(id, "backend", str_at(id->rd, run, "backend"));
	identity_word(id, "faults", str_at(id->rd, run, "faults"));
	/* the seed draws the faults: without a plan it changes nothing */
	if (str_at(id->rd, run, "faults") || (seed_text && strcmp(seed_text, "0")))
		identity_word(id, "seed", seed_text);
	maps_words(id, run);
	covers_word(id, run);
}

/*
 * The benchmark a run belongs to: its kind and the names it was run with,
 * then the host ("results trace=traces/desktop backend=sim host=ci1").
 */
static void identify(struct reader *rd, struct fy_node *root, enum run_kind kind)
{
	struct identity id = { .rd = rd };
	struct fy_node *run = lookup(root, "run");

	id.f = open_memstream(&id.text, &id.len);
	if (!id.f) {
		rd->oom = true;
		return;
	}
	fputs(run_kind_name(kind), id.f);
	switch (kind) {
	case RUN_RESULTS:
		results_identity(&id, run);
		break;
	case RUN_BENCH:
		identity_word(&id, "suite", str_at(rd, root, "suite"));
		break;
	case RUN_CAMPAIGN:
		identity_word(&id, "name", str_at(rd, root, "name"));
		break;
	case RUN_SWEEP:
		identity_word(&id, "trace", str_at(rd, root, "trace"));
		identity_word(&id, "scenario", str_at(rd, root, "scenario"));
		maps_words(&id, root);
		covers_word(&id, root);
		break;
	}
	identity_word(&id, "host", rd->rec->host);
	if (fclose(id.f)) {
		free(id.text);
		rd->oom = true;
		return;
	}
	rd->rec->benchmark = id.text;
}

/*
 * The digests of the input files, "PATH=DIGEST" a line, from an "inputs"
 * object ({PATH: DIGEST}); NULL when the file records none.
 */
static void input_digests(struct reader *rd, struct fy_node *inputs)
{
	struct fy_node_pair *p;
	void *it = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!inputs)
		return;
	if (!fy_node_is_mapping(inputs)) {
		yaml_error(rd->doc, inputs, NULL, "inputs: expected an object {PATH: DIGEST}");
		return;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		rd->oom = true;
		return;
	}
	while ((p = fy_node_mapping_iterate(inputs, &it)) != NULL) {
		const char *path = scalar(rd, fy_node_pair_key(p));
		struct fy_node *v = fy_node_pair_value(p);
		const char *digest = scalar(rd, v);

		if (!path || !digest || strchr(path, '\n') || strchr(digest, '\n')) {
			yaml_error(rd->doc, v, inputs, "inputs: expected {PATH: DIGEST} of strings");
			break;
		}
		fprintf(f, "%s=%s\n", path, digest);
	}
	if (fclose(f))
		rd->oom = true;
	else if (len)
		rd->rec->inputs = text;
	else
		free(text);
}

/*
 * The code that ran, "TREE BUILD", from @map's "code" and "build"; none
 * when unknown (two builds outside git need not be the same code).
 */
static void code_of(struct reader *rd, struct fy_node *map)
{
	const char *code = str_at(rd, map, "code"), *build = str_at(rd, map, "build");

	if (!code || !strcmp(code, "unknown"))
		return;
	if (asprintf(&rd->rec->code, "%s %s", code, build ? build : "?") < 0) {
		rd->rec->code = NULL;
		rd->oom = true;
	}
}

/* Tags, identity and metrics by kind; the key and date too when read from @path. */
static void fill(struct reader *rd, struct fy_node *root, const struct schema *sc, const char *path)
{
	struct run_record *rec = rd->rec;
	struct fy_node *run = lookup(root, "run");
	char key[128];
	struct digest d;
	long nsec;

	rec->kind = sc->kind;
	switch (sc->kind) {
	case RUN_RESULTS:
		if (!str_at(rd, run, "id") || !str_at(rd, run, "started")) {
			yaml_error(rd->doc, run, root, "run: expected an object with \"id\" and \"started\"");
			return;
		}
		snprintf(key, sizeof(key), "results/%s", str_at(rd, run, "id"));
		rec->key = dup_or_oom(rd, key);
		if (!runfile_date_ok(str_at(rd, run, "started"))) {
			yaml_error(rd->doc, lookup(run, "started"), run,
				   "run.started: expected a UTC time as YYYY-MM-DDTHH:MM:SSZ");
			return;
		}
		rec->date = dup_or_oom(rd, str_at(rd, run, "started"));
		rec->git_rev = dup_or_oom(rd, str_at(rd, run, "git_rev"));
		rec->host = dup_or_oom(rd, str_at(rd, run, "host"));
		rec->backend = dup_or_oom(rd, str_at(rd, run, "backend"));
		rec->trace = dup_or_oom(rd, str_at(rd, run, "trace"));
		rec->scenario = dup_or_oom(rd, str_at(rd, run, "scenario"));
		input_digests(rd, lookup(run, "inputs"));
		code_of(rd, run);
		identify(rd, root, sc->kind);
		results_metrics(rd, root);
		return;
	case RUN_BENCH:
		rec->git_rev = dup_or_oom(rd, str_at(rd, root, "git_rev"));
		rec->host = dup_or_oom(rd, str_at(rd, root, "host"));
		code_of(rd, root);
		bench_metrics(rd, root);
		break;
	case RUN_CAMPAIGN:
		rec->git_rev = dup_or_oom(rd, str_at(rd, root, "git_rev"));
		code_of(rd, root);
		rec->campaign = dup_or_oom(rd, str_at(rd, root, "name"));
		rec->host = dup_or_oom(rd, str_at(rd, root, "host"));
		campaign_metrics(rd, root);
		failures_of(rd, root, false);
		findings_of(rd, root, false);
		break;
	case RUN_SWEEP:
		rec->git_rev = dup_or_oom(rd, str_at(rd, root, "git_rev"));
		code_of(rd, root);
		rec->trace = dup_or_oom(rd, str_at(rd, root, "trace"));
		rec->scenario = dup_or_oom(rd, str_at(rd, root, "scenario"));
		rec->host = dup_or_oom(rd, str_at(rd, root, "host"));
		rec->baseline = dup_or_oom(rd, str_at(rd, root, "baseline"));
		sweep_metrics(rd, root);
		failures_of(rd, root, true);
		findings_of(rd, root, true);
		break;
	}
	input_digests(rd, lookup(root, "inputs"));
	identify(rd, root, sc->kind);
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
	rec->key = dup_or_oom(rd, key);
}

/*
 * Read @text (named @name in messages) into @rec, which takes the text;
 * @path, when not NULL, is the file it was read from (for the key and date
 * of kinds without a run id).
 */
static int parse(const char *name, char *text, const char *path, struct run_record *rec, char *err,
		 size_t errlen)
{
	struct reader rd = { .rec = rec };
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

static int set_add_file(struct runfile_set *set, const char *path, char *err, size_t errlen)
{
	int rc;

	if (array_reserve(&set->r, &set->cap, set->n, sizeof(*set->r)))
		return -ENOMEM;
	rc = runfile_read(path, &set->r[set->n], err, errlen);
	if (!rc)
		set->n++;
	if (set->progress)
		progress_show(set->progress, set->n);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int runfile_read_path(const char *path, struct runfile_set *set, char *err, size_t errlen)
{
	struct dirent **names = NULL;
	char **paths = NULL;
	struct stat st;
	int n, rc = 0;
	size_t np = 0;

	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode))
		return set_add_file(set, path, err, errlen);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	paths = calloc((size_t)n + 1, sizeof(*paths));
	for (int i = 0; paths && i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *full;

		if (name[0] == '.' ||
		    (names[i]->d_type != DT_DIR && (len < 5 || strcmp(name + len - 5, ".json"))))
			continue;
		if (asprintf(&full, "%s/%s", path, name) < 0) {
			rc = -ENOMEM;
			break;
		}
		paths[np++] = full;
	}
	if (!paths)
		rc = -ENOMEM;
	else
		qsort(paths, np, sizeof(*paths), cmp_str);
	for (size_t i = 0; !rc && i < np; i++)
		rc = runfile_read_path(paths[i], set, err, errlen);
	for (size_t i = 0; i < np; i++)
		free(paths[i]);
	free(paths);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

void runfile_set_free(struct runfile_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		runfile_free(&set->r[i]);
	free(set->r);
	*set = (struct runfile_set){ 0 };
}

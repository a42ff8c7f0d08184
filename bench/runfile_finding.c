/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yaml.h"
#include "runfile_internal.h"

/*
 * The findings of a campaign or sweep summary: its failing runs grouped by
 * what broke, each checked field by field (errors say where), and the
 * copies and frees of a finding.
 */

static bool is_null(struct fy_node *n)
{
	return n && fy_node_is_scalar(n) && fy_node_get_style(n) == FYNS_PLAIN &&
	       !strcmp(fy_node_get_scalar0(n) ? fy_node_get_scalar0(n) : "", "null");
}

/* A finding being read: its node, its name in messages ("findings[2]"). */
struct finding_reader {
	struct runfile_reader *rd;
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
	struct fy_node *n = runfile_lookup(fr->item, key);
	const char *s = runfile_str_at(fr->rd, fr->item, key);

	*out = NULL;
	if (nullable && is_null(n))
		return;
	if (!s) {
		yaml_error(fr->rd->doc, n, fr->item, "%s.%s: %s, expected a string%s", fr->name, key,
			   n ? "wrong type" : "missing", nullable ? " or null" : "");
		fr->bad = true;
		return;
	}
	*out = runfile_dup(fr->rd, s);
}

/* The integer @key of @map (named @name.@key), at least @min; reported otherwise. */
static bool finding_int(struct finding_reader *fr, struct fy_node *map, const char *name,
			const char *key, long long min, long long *out)
{
	struct fy_node *n = runfile_lookup(map, key);
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
	yaml_error(fr->rd->doc, runfile_lookup(fr->item, key), fr->item, "%s.%s: expected one of %s",
		   fr->name, key, words);
	fr->bad = true;
}

/* The broken invariants, ["a", "b"], as "a,b". */
static void finding_invariants(struct finding_reader *fr, struct run_finding *f)
{
	struct fy_node *inv = runfile_lookup(fr->item, "invariants"), *n;
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
					   ? runfile_scalar(fr->rd, n) : NULL;

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
	struct fy_node *nth = runfile_lookup(map, "nth");
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
		yaml_error(fr->rd->doc, runfile_lookup(nth, "max"), nth,
			   "%s.max: %lld is below min (%lld)", nth_name, *max, *min);
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
	struct fy_node *list = runfile_lookup(fr->item, "contexts"), *item;
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
		const char *op = runfile_str_at(fr->rd, item, "operation");
		char name[64];

		snprintf(name, sizeof(name), "%s.contexts[%d]", fr->name, i);
		if (!fy_node_is_mapping(item) || !op) {
			yaml_error(fr->rd->doc,
				   fy_node_is_mapping(item) ? runfile_lookup(item, "operation") : item, item,
				   "%s: expected {\"operation\": NAME, \"runs\": N%s}", name,
				   sweep ? ", \"nth\": {\"min\": N, \"max\": N}" : "");
			fr->bad = true;
			continue;
		}
		c->operation = runfile_dup(fr->rd, op);
		finding_int(fr, item, name, "runs", 1, &c->runs);
		if (sweep)
			nth_of(fr, item, name, &c->nth_min, &c->nth_max);
	}
}

/* "trimmed": null, or {"trace": PATH, "events": N, "of": N}. */
static void finding_trimmed(struct finding_reader *fr, struct run_finding *f)
{
	struct fy_node *t = runfile_lookup(fr->item, "trimmed");
	const char *trace = runfile_str_at(fr->rd, t, "trace");
	char name[48];

	if (!t || is_null(t))
		return; /* absent or null: no trimmed trace */
	snprintf(name, sizeof(name), "%s.trimmed", fr->name);
	if (!fy_node_is_mapping(t) || !trace) {
		yaml_error(fr->rd->doc, fy_node_is_mapping(t) ? runfile_lookup(t, "trace") : t, t,
			   "%s: expected null or {\"trace\": PATH, \"events\": N, \"of\": N}", name);
		fr->bad = true;
		return;
	}
	if (finding_int(fr, t, name, "events", 0, &f->trimmed_events) &&
	    finding_int(fr, t, name, "of", 0, &f->trimmed_of) && f->trimmed_of < f->trimmed_events) {
		yaml_error(fr->rd->doc, runfile_lookup(t, "of"), t, "%s.of: %lld is below events (%lld)",
			   name, f->trimmed_of, f->trimmed_events);
		fr->bad = true;
	}
	f->trimmed = runfile_dup(fr->rd, trace);
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
		yaml_error(fr->rd->doc, runfile_lookup(fr->item, "signature"), fr->item,
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
static int first_with(struct runfile_reader *rd, struct fy_node *list, const char *signature)
{
	struct fy_node *item;
	void *it = NULL;
	int i = 0;

	while ((item = fy_node_sequence_iterate(list, &it)) != NULL) {
		const char *sig = runfile_str_at(rd, item, "signature");

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
void runfile_findings_of(struct runfile_reader *rd, struct fy_node *root, bool sweep)
{
	struct fy_node *list = runfile_lookup(root, "findings"), *item;
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
			yaml_error(rd->doc, runfile_lookup(item, "signature"), item,
				   "%s.signature: %s is findings[%d]'s too: a summary lists a finding once",
				   fr.name, f->signature, first_with(rd, list, f->signature));
			run_finding_free(f);
			continue;
		}
		rec->nfindings++;
	}
}

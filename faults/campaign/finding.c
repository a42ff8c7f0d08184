/* SPDX-License-Identifier: MIT */
/* Findings: failing runs grouped by what broke (finding.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/digest.h"
#include "faults/campaign/finding.h"

static const char *const finding_blames[] = {
	[FINDING_BLAME_FAULT] = "fault",
	[FINDING_BLAME_DRIVER] = "driver",
	[FINDING_BLAME_MODEL] = "model",
};

/* The model_sound bit of verdict.broken. */
static uint32_t model_sound_bit(void)
{
	for (unsigned int i = 0; verdict_invariant_name(i); i++)
		if (!strcmp(verdict_invariant_name(i), "model_sound"))
			return 1u << i;
	return 0;
}

/*
 * Who broke it: gpuiso itself when a run died, hung or met an impossible
 * state; the driver for a rule of its own; else the OS side, which is the
 * injected fault's consequence when one was injected, and the model's own
 * failing when none was.
 */
static enum finding_blame blame_of(const struct finding_run *r)
{
	const struct verdict *v = r->verdict;

	if (!v || (v->broken & model_sound_bit()))
		return FINDING_BLAME_MODEL;
	if (v->kept && !v->findings[0].by_os)
		return FINDING_BLAME_DRIVER;
	return r->point ? FINDING_BLAME_FAULT : FINDING_BLAME_MODEL;
}

/* "no_leaks, forward_progress" */
static void broken_list(char *buf, size_t len, uint32_t broken)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; verdict_invariant_name(i) && n < len; i++)
		if (broken & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      verdict_invariant_name(i));
}

/* What the run shows: its first code (and where), else what broke, else its outcome. */
static void what_of(const struct finding_run *r, char *buf, size_t len)
{
	const struct verdict *v = r->verdict;
	char inv[100];

	if (v && v->kept) {
		snprintf(buf, len, "%s%s", v->findings[0].code,
			 v->findings[0].at_teardown ? " at teardown" : "");
	} else if (v && v->broken) {
		broken_list(inv, sizeof(inv), v->broken);
		snprintf(buf, len, "%s broken", inv);
	} else if (!strcmp(r->outcome, "reset")) {
		snprintf(buf, len, "adapter reset");
	} else {
		snprintf(buf, len, "%s", r->outcome);
	}
}

/* The operations by name, then "start" (NULL). */
static int op_cmp(const char *a, const char *b)
{
	return !a || !b ? (a == NULL) - (b == NULL) : strcmp(a, b);
}

/*
 * The title: the point and the contexts it was injected in (the first
 * three by name, and how many more), then what broke.
 */
static void finding_title(struct finding *f, bool unrecorded)
{
	size_t n = 0, len = sizeof(f->title);

	if (!f->point) {
		snprintf(f->title, len, "%s \u2192 %s",
			 unrecorded ? "injection not recorded" : "no fault injected", f->what);
		return;
	}
	n = (size_t)snprintf(f->title, len, "%s %s ", f->point,
			     f->nctx == 1 && !f->ctx[0].op ? "at" : "during");
	for (size_t i = 0; i < f->nctx && i < 3 && n < len; i++)
		n += (size_t)snprintf(f->title + n, len - n, "%s%s", i ? ", " : "",
				      f->ctx[i].op ? f->ctx[i].op : "start");
	if (f->nctx > 3 && n < len)
		n += (size_t)snprintf(f->title + n, len - n, " and %zu more", f->nctx - 3);
	if (n < len)
		snprintf(f->title + n, len - n, " \u2192 %s", f->what);
}

static void finding_init(struct finding *f, const struct finding_run *r, const char *what,
			 uint64_t signature, const char *key)
{
	memset(f, 0, sizeof(*f));
	f->signature = signature;
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->what, sizeof(f->what), "%s", what);
	f->blame = blame_of(r);
	f->outcome = r->outcome;
	if (r->verdict && r->verdict->kept)
		snprintf(f->code, sizeof(f->code), "%s", r->verdict->findings[0].code);
	f->broken = r->verdict ? r->verdict->broken : 0;
	f->point = r->point;
	f->op = r->op;
	f->nth_min = UINT64_MAX;
}

/* The context of @op in @f, added in name order if new; NULL when there is no room. */
static struct finding_context *finding_context(struct finding *f, const char *op)
{
	size_t i = 0;

	while (i < f->nctx && op_cmp(f->ctx[i].op, op) < 0)
		i++;
	if (i < f->nctx && !op_cmp(f->ctx[i].op, op))
		return &f->ctx[i];
	if (f->nctx == FINDING_MAX_CONTEXTS)
		return NULL;
	memmove(&f->ctx[i + 1], &f->ctx[i], (f->nctx - i) * sizeof(f->ctx[0]));
	f->ctx[i] = (struct finding_context){ .op = op, .nth_min = UINT64_MAX };
	f->nctx++;
	return &f->ctx[i];
}

int finding_add(struct finding_set *set, const struct finding_run *r, uint64_t nth, size_t run)
{
	char what[128], key[sizeof(((struct finding *)0)->key)];
	struct finding_context *ctx;
	struct finding *f = NULL;
	size_t had;
	uint64_t sig;

	what_of(r, what, sizeof(what));
	snprintf(key, sizeof(key), "%s|%s|%s", r->unrecorded ? "?" : r->point ? r->point : "-",
		 r->outcome, what);
	sig = digest_fnv1a_str(DIGEST_FNV_BASIS, key);
	for (size_t i = 0; i < set->n && !f; i++)
		if (set->v[i].signature == sig && !strcmp(set->v[i].key, key))
			f = &set->v[i];
	if (!f) {
		if (array_reserve(&set->v, &set->cap, set->n, sizeof(*set->v)))
			return -ENOMEM;
		f = &set->v[set->n++];
		finding_init(f, r, what, sig, key);
	}
	f->runs++;
	if (nth < f->nth_min || f->runs == 1) {
		f->nth_min = nth;
		f->first = run;
		f->op = r->op;
	}
	if (nth > f->nth_max)
		f->nth_max = nth;
	had = f->nctx;
	ctx = finding_context(f, r->op);
	if (ctx) {
		ctx->runs++;
		ctx->nth_min = GPUISO_MIN(ctx->nth_min, nth);
		ctx->nth_max = GPUISO_MAX(ctx->nth_max, nth);
	}
	if (f->nctx != had || f->runs == 1)
		finding_title(f, r->unrecorded);
	return 0;
}

int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	static const int rank[] = { [FINDING_BLAME_MODEL] = 0, [FINDING_BLAME_DRIVER] = 1,
				    [FINDING_BLAME_FAULT] = 2 };

	if (rank[x->blame] != rank[y->blame])
		return rank[x->blame] - rank[y->blame];
	if (x->runs != y->runs)
		return x->runs > y->runs ? -1 : 1;
	return strcmp(x->key, y->key);
}

void finding_set_free(struct finding_set *set)
{
	free(set->v);
	*set = (struct finding_set){ 0 };
}

const char *finding_blame_name(enum finding_blame b)
{
	return finding_blames[b];
}

static void broken_json(struct json *j, const char *key, uint32_t broken)
{
	json_arr_begin(j, key);
	for (unsigned int i = 0; verdict_invariant_name(i); i++)
		if (broken & (1u << i))
			json_str(j, NULL, verdict_invariant_name(i));
	json_arr_end(j);
}

/* "nth": {"min", "max"}: the hits failed. */
static void nth_json(struct json *j, uint64_t min, uint64_t max)
{
	json_obj_begin(j, "nth");
	json_u64(j, "min", min);
	json_u64(j, "max", max);
	json_obj_end(j);
}

void finding_json(struct json *j, const struct finding *f, bool with_nth, const char *reproduce,
		  const struct finding_trim *trim, const char *full)
{
	char sig[17];

	snprintf(sig, sizeof(sig), "%016llx", (unsigned long long)f->signature);
	json_obj_begin(j, NULL);
	json_str(j, "signature", sig);
	json_str(j, "key", f->key);
	json_str(j, "title", f->title);
	json_str(j, "blame", finding_blame_name(f->blame));
	json_str(j, "outcome", f->outcome);
	if (f->code[0])
		json_str(j, "code", f->code);
	else
		json_null(j, "code");
	broken_json(j, "invariants", f->broken);
	json_str(j, "point", f->point);
	json_str(j, "operation", f->op);
	json_u64(j, "runs", f->runs);
	if (with_nth)
		nth_json(j, f->nth_min, f->nth_max);
	json_arr_begin(j, "contexts");
	for (size_t i = 0; i < f->nctx; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "operation", f->ctx[i].op ? f->ctx[i].op : "start");
		json_u64(j, "runs", f->ctx[i].runs);
		if (with_nth)
			nth_json(j, f->ctx[i].nth_min, f->ctx[i].nth_max);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_str(j, "reproduce", reproduce);
	if (trim) {
		json_obj_begin(j, "trimmed");
		json_str(j, "trace", trim->trace);
		json_u64(j, "events", trim->events);
		json_u64(j, "of", trim->of);
		json_str(j, "reproduce_whole", full);
		json_obj_end(j);
	} else {
		json_null(j, "trimmed");
	}
	json_obj_end(j);
}

const char *finding_section(const struct finding_set *set, size_t i)
{
	bool fault = set->v[i].blame == FINDING_BLAME_FAULT;

	if (i && (set->v[i - 1].blame == FINDING_BLAME_FAULT) == fault)
		return NULL;
	return fault ? "expected: what the injected faults cause (blame: fault)" :
		       "actionable: gpuiso's own failures and the driver's broken rules (blame: model, "
		       "driver)";
}

void finding_contexts_text(FILE *f, const struct finding *fd, bool with_nth)
{
	if (fd->nctx < 2)
		return;
	fputs("   in", f);
	for (size_t i = 0; i < fd->nctx; i++) {
		const struct finding_context *c = &fd->ctx[i];

		fprintf(f, "%s %s (%llu run%s", i ? "," : "", c->op ? c->op : "start",
			(unsigned long long)c->runs, c->runs == 1 ? "" : "s");
		if (with_nth)
			fprintf(f, ", hits %llu..%llu", (unsigned long long)c->nth_min,
				(unsigned long long)c->nth_max);
		fputc(')', f);
	}
	fputc('\n', f);
}

void finding_verdict_json(struct json *j, const struct verdict *v)
{
	json_arr_begin(j, "findings");
	for (uint32_t i = 0; i < v->kept; i++) {
		const struct violation_result *f = &v->findings[i];

		json_obj_begin(j, NULL);
		json_str(j, "code", f->code);
		json_u64(j, "event", f->event);
		json_u64(j, "ts_ns", f->ts_ns);
		json_bool(j, "at_teardown", f->at_teardown);
		json_str(j, "party", f->by_os ? "os" : "driver");
		json_str(j, "detail", f->detail);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_u64(j, "findings_total", v->nfindings);
	broken_json(j, "invariants_broken", v->broken);
}

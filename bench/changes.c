/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "changes.h"
#include "common/json.h"
#include "common/types.h"

char *change_label(const struct series *sr, const struct history_change *c, char *buf, size_t len)
{
	if (sr->exact)
		snprintf(buf, len, "exact");
	else if (isnan(c->ci_lo))
		snprintf(buf, len, "t-test p=%.2g", c->p);
	else
		snprintf(buf, len, "t-test p=%.2g, CI %+.1f%%..%+.1f%%", c->p, 100 * c->ci_lo,
			 100 * c->ci_hi);
	return buf;
}

const char *change_cause(const struct series *sr, const struct history_change *c)
{
	if (!c->machine)
		return NULL;
	return sr->exact ? "same code and inputs: NOT DETERMINISTIC"
			 : "same code and inputs: the machine's, no alarm";
}

static const char *last_good(const struct series *sr, const struct history_change *c)
{
	return sr->revs[c->at - 1].rev;
}

void changes_print(const struct history *h, FILE *f)
{
	const char *benchmark = NULL;
	size_t changes = 0, acked = 0, unjudged = 0, varies = 0;
	int w = 6;

	for (size_t i = 0; i < h->n; i++)
		if (h->s[i].nchanges)
			w = GPUISO_MAX(w, (int)strlen(h->s[i].metric));
	for (size_t i = 0; i < h->n; i++) {
		const struct series *sr = &h->s[i];

		unjudged += sr->unjudged[0] != '\0';
		varies += sr->varies;
		for (size_t k = 0; k < sr->nchanges; k++) {
			const struct history_change *c = &sr->changes[k];
			const struct history_rev *r = &sr->revs[c->at];
			char test[96];

			if (!benchmark || strcmp(benchmark, sr->benchmark)) {
				benchmark = sr->benchmark;
				fprintf(f, "%s%s\n", changes ? "\n" : "", benchmark);
				fprintf(f, "  %-*s  %-12s  %-12s  %-20s  %12s  %12s  %8s  %-10s  %s\n", w,
					"metric", "last good", "first bad", "date", "before", "after",
					"change", "verdict", "test");
			}
			changes++;
			acked += c->ack_note != NULL;
			fprintf(f, "  %-*s  %-12.12s  %-12.12s  %-20s  %12.6g  %12.6g  %+7.1f%%  %-10s  %s",
				w, sr->metric, last_good(sr, c), r->rev, r->date, c->before, c->after,
				100 * c->change, compare_verdict_name(c->verdict),
				change_label(sr, c, test, sizeof(test)));
			if (r->changed)
				fprintf(f, "; input changed: %s", r->changed);
			if (c->machine)
				fprintf(f, "; %s", change_cause(sr, c));
			if (c->ack_note)
				fprintf(f, "; acknowledged: %s", c->ack_note);
			else if (sr->alarm && k + 1 == sr->nchanges)
				fprintf(f, "; ALARM");
			fputc('\n', f);
		}
	}
	fprintf(f, "%zu change%s, %zu acknowledged; %zu alarm%s (series whose last change made them "
		   "worse, unacknowledged)", changes, changes == 1 ? "" : "s", acked,
		history_alarms(h), history_alarms(h) == 1 ? "" : "s");
	if (unjudged)
		fprintf(f, "; %zu measured series not judged (maxima, or too few operations a run)",
			unjudged);
	if (varies)
		fprintf(f, "; %zu exact series VARY between runs of one revision (not deterministic)",
			varies);
	fputc('\n', f);
}

size_t changes_at(const struct history *h, const char *rev, FILE *f)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++) {
		const struct series *sr = &h->s[i];

		for (size_t k = 0; k < sr->nchanges; k++) {
			if (strcmp(sr->revs[sr->changes[k].at].rev, rev))
				continue;
			fprintf(f, "  %s  %s  %+.1f%%\n", sr->benchmark, sr->metric,
				100 * sr->changes[k].change);
			n++;
		}
	}
	return n;
}

static void change_json(struct json *j, const struct series *sr, size_t k)
{
	const struct history_change *c = &sr->changes[k];
	const struct history_rev *r = &sr->revs[c->at];

	json_obj_begin(j, NULL);
	json_str(j, "benchmark", sr->benchmark);
	json_str(j, "metric", sr->metric);
	json_str(j, "unit", sr->unit);
	json_str(j, "class", sr->exact ? "exact" : "measured");
	json_str(j, "last_good", last_good(sr, c));
	json_str(j, "revision", r->rev);
	json_str(j, "date", r->date);
	json_double(j, "before", c->before);
	json_double(j, "after", c->after);
	json_double(j, "change", c->change);
	if (isnan(c->ci_lo)) {
		json_null(j, "ci");
	} else {
		json_arr_begin(j, "ci");
		json_double(j, NULL, c->ci_lo);
		json_double(j, NULL, c->ci_hi);
		json_arr_end(j);
	}
	if (sr->exact)
		json_str(j, "p", "exact");
	else
		json_double(j, "p", c->p);
	json_str(j, "verdict", compare_verdict_name(c->verdict));
	json_bool(j, "acknowledged", c->ack_note != NULL);
	json_str(j, "note", c->ack_note);
	json_str(j, "input_changed", r->changed);
	json_bool(j, "same_code_and_inputs", c->machine);
	json_bool(j, "alarm", sr->alarm && k + 1 == sr->nchanges);
	json_obj_end(j);
}

static void fill(struct json *j, const void *ctx)
{
	const struct history *h = ctx;

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-changes/1");
	json_u64(j, "alarms", history_alarms(h));
	json_arr_begin(j, "changes");
	for (size_t i = 0; i < h->n; i++)
		for (size_t k = 0; k < h->s[i].nchanges; k++)
			change_json(j, &h->s[i], k);
	json_arr_end(j);
	json_obj_end(j);
}

int changes_write_json(const struct history *h, const char *path)
{
	return json_write_file(path, fill, h);
}

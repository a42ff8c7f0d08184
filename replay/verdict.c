/* SPDX-License-Identifier: MIT */
/* A run's verdict (verdict.h): its outcome and first findings. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/replay.h"
#include "replay/verdict.h"

/* engine_finish()'s invariants, in its order: bit i of verdict.broken is the i-th. */
static const char *const verdict_invariants[] = {
	"no_leaks", "no_stale_mappings", "no_dma_to_unmapped", "baseline_restored",
	"vram_restored", "forward_progress", "model_sound",
};

#define VERDICT_NINVARIANTS (sizeof(verdict_invariants) / sizeof(verdict_invariants[0]))

static const char *const verdict_outcomes[VERDICT_NOUTCOMES] = {
	[VERDICT_RECOVERED] = "recovered",
	[VERDICT_RESET] = "reset",
	[VERDICT_VIOLATION] = "violation",
};

/* A blocked or exposing DMA as a finding: its code names the cause, its own signature. */
static struct violation_result dma_finding(const struct dma_record *r, bool blocked)
{
	struct violation_result f = { .event = r->event, .ts_ns = r->ts_ns, .by_os = !blocked };
	size_t i;

	snprintf(f.code, sizeof(f.code), "DMA_%s_%s", blocked ? "BLOCKED" : "EXPOSED", r->what);
	for (i = 4; f.code[i]; i++)
		f.code[i] = (char)toupper((unsigned char)f.code[i]);
	snprintf(f.detail, sizeof(f.detail), "adapter %u phys %u %s at %#llx: %s", r->adapter,
		 r->phys, r->write ? "write" : "read", (unsigned long long)r->address, r->what);
	if (r->has_by)
		snprintf(f.detail + strlen(f.detail), sizeof(f.detail) - strlen(f.detail),
			 " (event %llu, %s)", (unsigned long long)r->by_event, r->by_op);
	return f;
}

void verdict_of(const struct results *res, struct verdict *v)
{
	const struct dma_result *d = &res->dma;
	size_t vi = 0, bi = 0, xi = 0;

	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < res->ninvariants; i++) {
		if (res->invariants[i].holds)
			continue;
		for (unsigned int k = 0; k < VERDICT_NINVARIANTS; k++)
			if (!strcmp(res->invariants[i].name, verdict_invariants[k]))
				v->broken |= 1u << k;
	}
	v->nfindings = res->nviolations + d->blocked + d->exposed;
	/* the first findings by event: violations, then blocked DMA, then exposures at one event */
	while (v->kept < VERDICT_MAX_FINDINGS) {
		const struct violation_result *x = vi < res->nviolations ? &res->violations[vi] : NULL;
		const struct dma_record *b = bi < d->nblocked_kept ? &d->blocked_first[bi] : NULL;
		const struct dma_record *e = xi < d->nexposed_kept ? &d->exposed_first[xi] : NULL;

		uint64_t at = !x ? 0 : x->at_teardown ? UINT64_MAX : x->event;

		if (x && (!b || at <= b->event) && (!e || at <= e->event))
			v->findings[v->kept++] = res->violations[vi++];
		else if (b && (!e || b->event <= e->event))
			v->findings[v->kept++] = dma_finding(&d->blocked_first[bi++], true);
		else if (e)
			v->findings[v->kept++] = dma_finding(&d->exposed_first[xi++], false);
		else
			break;
	}
	if (replay_findings(res))
		v->outcome = VERDICT_VIOLATION;
	else
		v->outcome = res->power.reset ? VERDICT_RESET : VERDICT_RECOVERED;
}

const char *verdict_outcome_name(enum verdict_outcome o)
{
	return (unsigned int)o < VERDICT_NOUTCOMES ? verdict_outcomes[o] : NULL;
}

const char *verdict_invariant_name(unsigned int i)
{
	return i < VERDICT_NINVARIANTS ? verdict_invariants[i] : NULL;
}

bool verdict_same(const struct verdict *a, const struct verdict *b)
{
	if (a->outcome != b->outcome || a->broken != b->broken || !a->kept != !b->kept)
		return false;
	return !a->kept || (!strcmp(a->findings[0].code, b->findings[0].code) &&
			    a->findings[0].at_teardown == b->findings[0].at_teardown);
}

/* A copy of @s on one line (line breaks become spaces): lines are what the text form reads. */
static void one_line(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
	for (; *dst; dst++)
		if (*dst == '\n' || *dst == '\r')
			*dst = ' ';
}

void verdict_lines_write(FILE *f, const struct verdict *v)
{
	char detail[sizeof(v->findings[0].detail)], code[sizeof(v->findings[0].code)];
	const char *sep = "";

	fprintf(f, "verdict %s %llu ", verdict_outcome_name(v->outcome),
		(unsigned long long)v->nfindings);
	for (unsigned int i = 0; verdict_invariant_name(i); i++)
		if (v->broken & (1u << i)) {
			fprintf(f, "%s%s", sep, verdict_invariant_name(i));
			sep = ",";
		}
	fprintf(f, "%s\n", *sep ? "" : "-");
	for (uint32_t i = 0; i < v->kept; i++) {
		const struct violation_result *x = &v->findings[i];

		/* the detail goes last, the rest of its line: it may hold anything but a line break */
		one_line(code, sizeof(code), x->code);
		one_line(detail, sizeof(detail), x->detail);
		fprintf(f, "finding %s %llu %llu %s %s %s\n", code, (unsigned long long)x->event,
			(unsigned long long)x->ts_ns, x->at_teardown ? "teardown" : "during",
			x->by_os ? "os" : "driver", detail);
	}
}

/* The bits of verdict.broken named by "-" or "no_leaks,forward_progress". */
static bool broken_parse(char *list, uint32_t *broken)
{
	char *save = NULL;

	*broken = 0;
	if (!strcmp(list, "-"))
		return true;
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		unsigned int i = 0;

		while (verdict_invariant_name(i) && strcmp(verdict_invariant_name(i), name))
			i++;
		if (!verdict_invariant_name(i))
			return false;
		*broken |= 1u << i;
	}
	return true;
}

/* "OUTCOME TOTAL BROKEN", after "verdict ". */
static int verdict_parse(const char *val, struct verdict *v)
{
	char outcome[16], broken[256];
	unsigned long long total;
	int n = -1, o = 0;

	if (sscanf(val, "%15s %llu %255s%n", outcome, &total, broken, &n) != 3 || val[n])
		return -EINVAL;
	while (o < VERDICT_NOUTCOMES && strcmp(verdict_outcomes[o], outcome))
		o++;
	memset(v, 0, sizeof(*v));
	if (o == VERDICT_NOUTCOMES || !broken_parse(broken, &v->broken))
		return -EINVAL;
	v->outcome = o;
	v->nfindings = total;
	return 1;
}

/* "CODE EVENT TS during|teardown os|driver DETAIL", after "finding ". */
static int finding_parse(const char *val, struct verdict *v)
{
	struct violation_result *x = &v->findings[v->kept];
	char where[16], party[16];
	unsigned long long event, ts;
	int n = -1;

	if (v->kept == VERDICT_MAX_FINDINGS ||
	    sscanf(val, "%31s %llu %llu %15s %15s%n", x->code, &event, &ts, where, party, &n) != 5 ||
	    (val[n] && val[n] != ' '))
		return -EINVAL;
	if ((strcmp(where, "during") && strcmp(where, "teardown")) ||
	    (strcmp(party, "os") && strcmp(party, "driver")))
		return -EINVAL;
	x->event = event;
	x->ts_ns = ts;
	x->at_teardown = !strcmp(where, "teardown");
	x->by_os = !strcmp(party, "os");
	snprintf(x->detail, sizeof(x->detail), "%s", val[n] ? val + n + 1 : "");
	v->kept++;
	return 1;
}

int verdict_line_read(const char *line, struct verdict *v)
{
	if (!strncmp(line, "verdict ", 8))
		return verdict_parse(line + 8, v);
	if (!strncmp(line, "finding ", 8))
		return finding_parse(line + 8, v);
	return 0;
}

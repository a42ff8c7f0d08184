/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include "clock.h"
#include "progress.h"

#define BAR_WIDTH 30

void progress_begin(struct progress *p, FILE *f, const char *what, const char *unit,
		    uint64_t total)
{
	*p = (struct progress){ .f = f, .what = what, .unit = unit, .total = total };
	if (!f)
		return;
	p->tty = isatty(fileno(f));
	p->interval_s = p->tty ? PROGRESS_BAR_S : PROGRESS_LINE_S;
	p->t0 = clock_mono_s();
	/* short work shows nothing: the first report comes after two intervals on a terminal */
	p->next_s = p->t0 + (p->tty ? 2 * p->interval_s : p->interval_s);
}

void progress_show(struct progress *p, uint64_t done)
{
	double now, secs;
	unsigned long long rate;

	if (!p->f)
		return;
	now = clock_mono_s();
	if (now < p->next_s)
		return;
	p->next_s = now + p->interval_s;
	secs = now - p->t0;
	rate = secs > 0 ? (unsigned long long)((double)done / secs) : 0;
	if (!p->tty) {
		fprintf(p->f, "%s: %llu", p->what, (unsigned long long)done);
		if (p->total)
			fprintf(p->f, "/%llu", (unsigned long long)p->total);
		fprintf(p->f, " %s in %.0f s (%llu/s)%s%s\n", p->unit, secs, rate,
			p->note[0] ? ": " : "", p->note);
		fflush(p->f);
		return;
	}
	fprintf(p->f, "\r%s ", p->what);
	if (p->total) {
		unsigned int fill = done >= p->total ? BAR_WIDTH :
				    (unsigned int)(done * BAR_WIDTH / p->total);

		fputc('[', p->f);
		for (unsigned int i = 0; i < BAR_WIDTH; i++)
			fputc(i < fill ? '#' : '.', p->f);
		fprintf(p->f, "] %3u%% %llu/%llu", done >= p->total ? 100 : (unsigned int)(done * 100 / p->total),
			(unsigned long long)done, (unsigned long long)p->total);
	} else {
		fprintf(p->f, "%llu", (unsigned long long)done);
	}
	fprintf(p->f, " %s, %.0f s, %llu/s%s%s\033[K", p->unit, secs, rate, p->note[0] ? ", " : "",
		p->note);
	fflush(p->f);
	p->drawn = true;
}

void progress_end(struct progress *p)
{
	if (p->f && p->drawn) {
		fputs("\r\033[K", p->f);
		fflush(p->f);
	}
	p->drawn = false;
	p->f = NULL;
}

/* SPDX-License-Identifier: MIT */
/* The command that replays one run (command.h). */
#include <errno.h>
#include <stdlib.h>

#include "common/shell.h"
#include "replay/command.h"

/* " OPTION WORD", the word quoted for the shell. */
static int option(FILE *f, const char *name, const char *word)
{
	return fprintf(f, " %s ", name) < 0 ? -EIO : shell_word(f, word);
}

int replay_command_write(FILE *f, const struct replay_command *c)
{
	char nth[96];
	int rc = shell_word(f, c->program ? c->program : "gpuiso");

	if (!rc)
		rc = fputs(" replay ", f) < 0 ? -EIO : shell_word(f, c->trace);

	for (size_t i = 0; !rc && i < c->nmaps; i++)
		rc = option(f, "--map", c->maps[i]);
	if (!rc && c->scenario)
		rc = option(f, "--scenario", c->scenario);
	if (!rc && c->faults)
		rc = option(f, "--faults", c->faults);
	if (!rc && c->seeded && fprintf(f, " --seed %llu", (unsigned long long)c->seed) < 0)
		rc = -EIO;
	if (!rc && c->covers != COVERS_WINDOW &&
	    fprintf(f, " --trace-covers %s", trace_covers_name(c->covers)) < 0)
		rc = -EIO;
	if (!rc && c->fail) {
		snprintf(nth, sizeof(nth), "%s:%llu", fp_point_name(c->point),
			 (unsigned long long)c->nth);
		rc = option(f, "--fail-nth", nth);
	}
	return rc;
}

int replay_command(const struct replay_command *c, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	int rc;

	if (!f) {
		*out = NULL;
		return -ENOMEM;
	}
	rc = replay_command_write(f, c);
	if (fclose(f) || rc) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

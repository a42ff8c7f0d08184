/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/yaml.h"
#include "runfile_internal.h"

/*
 * What a run file says a run was: the benchmark it belongs to (its kind,
 * the names it was run with, its host), the digests of its input files
 * and the code that ran.
 */

/* What the benchmark was run with, as " KEY=VALUE" words appended to the identity. */
struct identity {
	struct runfile_reader *rd;
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
	const char *covers = runfile_str_at(id->rd, node, "trace_covers");

	if (covers && strcmp(covers, "window"))
		identity_word(id, "covers", covers);
}

/* The import maps a trace was replayed through, in order: through others, it is another benchmark. */
static void maps_words(struct identity *id, struct fy_node *node)
{
	struct fy_node *maps = runfile_lookup(node, "maps"), *m;
	void *it = NULL;

	while (maps && fy_node_is_sequence(maps) && (m = fy_node_sequence_iterate(maps, &it)))
		identity_word(id, "map", runfile_scalar(id->rd, m));
}

/* A results run's names: trace, scenario, backend, faults and seed, import maps, what the trace covers. */
static void results_identity(struct identity *id, struct fy_node *run)
{
	struct fy_node *seed = runfile_lookup(run, "seed");
	const char *seed_text = seed && fy_node_is_scalar(seed) ? fy_node_get_scalar0(seed) : NULL;

	identity_word(id, "trace", runfile_str_at(id->rd, run, "trace"));
	identity_word(id, "scenario", runfile_str_at(id->rd, run, "scenario"));
	identity_word(id, "backend", runfile_str_at(id->rd, run, "backend"));
	identity_word(id, "faults", runfile_str_at(id->rd, run, "faults"));
	/* the seed draws the faults: without a plan it changes nothing */
	if (runfile_str_at(id->rd, run, "faults") || (seed_text && strcmp(seed_text, "0")))
		identity_word(id, "seed", seed_text);
	maps_words(id, run);
	covers_word(id, run);
}

/*
 * The benchmark a run belongs to: its kind and the names it was run with,
 * then the host ("results trace=traces/desktop backend=sim host=ci1").
 */
void runfile_identify(struct runfile_reader *rd, struct fy_node *root, enum run_kind kind)
{
	struct identity id = { .rd = rd };
	struct fy_node *run = runfile_lookup(root, "run");

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
		identity_word(&id, "suite", runfile_str_at(rd, root, "suite"));
		break;
	case RUN_CAMPAIGN:
		identity_word(&id, "name", runfile_str_at(rd, root, "name"));
		break;
	case RUN_SWEEP:
		identity_word(&id, "trace", runfile_str_at(rd, root, "trace"));
		identity_word(&id, "scenario", runfile_str_at(rd, root, "scenario"));
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
void runfile_input_digests(struct runfile_reader *rd, struct fy_node *inputs)
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
		const char *path = runfile_scalar(rd, fy_node_pair_key(p));
		struct fy_node *v = fy_node_pair_value(p);
		const char *digest = runfile_scalar(rd, v);

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
void runfile_code_of(struct runfile_reader *rd, struct fy_node *map)
{
	const char *code = runfile_str_at(rd, map, "code"), *build = runfile_str_at(rd, map, "build");

	if (!code || !strcmp(code, "unknown"))
		return;
	if (asprintf(&rd->rec->code, "%s %s", code, build ? build : "?") < 0) {
		rd->rec->code = NULL;
		rd->oom = true;
	}
}

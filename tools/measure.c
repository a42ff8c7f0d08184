/* SPDX-License-Identifier: MIT */
/*
 * The measurement commands: the results store, comparisons, change points
 * over history and the dashboard. Each parses its options and calls bench/.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/compare.h"
#include "common/array.h"
#include "bench/dash.h"
#include "bench/store.h"
#include "cli.h"

/* --- reading run files --- */

struct files {
	struct run_record *r;
	size_t n, cap;
};

static int exit_for(int rc)
{
	return rc == -ENOMEM || rc == -EIO ? EXIT_ENV : EXIT_INPUT;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end != s && !*end && isfinite(*out) ? 0 : -EINVAL;
}

/* A significance level: 0 < P < 1. */
static int parse_alpha(const char *s, double *out)
{
	return parse_double(s, out) || *out <= 0 || *out >= 1 ? -EINVAL : 0;
}

/* Open an existing store for command @cmd; 0, or the exit code after saying why. */
static int open_store(const char *cmd, const char *path, struct store **s)
{
	char err[1024];
	int rc = store_open(path, false, s, err, sizeof(err));

	if (!rc)
		return 0;
	fprintf(stderr, "gpuiso: %s: %s\n", cmd, err);
	return exit_for(rc);
}

static int files_add(struct files *fs, const char *path)
{
	char err[2048];
	int rc;

	if (array_reserve(&fs->r, &fs->cap, fs->n, sizeof(*fs->r)))
		return -ENOMEM;
	rc = runfile_read(path, &fs->r[fs->n], err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: %s", err);
		if (!err[0] || err[strlen(err) - 1] != '\n')
			fputc('\n', stderr);
		return rc;
	}
	fs->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every *.json below a folder, in name order. */
static int files_add_path(struct files *fs, const char *path)
{
	struct dirent **names = NULL;
	char **paths = NULL;
	struct stat st;
	int n, rc = 0;
	size_t np = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "gpuiso: %s: %s\n", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode))
		return files_add(fs, path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "gpuiso: %s: %s\n", path, strerror(errno));
		return -ENOENT;
	}
	paths = calloc((size_t)n + 1, sizeof(*paths));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *full;

		if (!paths || name[0] == '.' ||
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
	if (paths)
		qsort(paths, np, sizeof(*paths), cmp_str);
	for (size_t i = 0; !rc && i < np; i++) {
		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode))
			rc = files_add_path(fs, paths[i]);
		else
			rc = files_add(fs, paths[i]);
	}
	for (size_t i = 0; i < np; i++)
		free(paths[i]);
	free(paths);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static void files_free(struct files *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		runfile_free(&fs->r[i]);
	free(fs->r);
	*fs = (struct files){ 0 };
}

static int set_tag(char **tag, const char *value, bool force)
{
	char *copy;

	if (!value || (*tag && !force))
		return 0;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(*tag);
	*tag = copy;
	return 0;
}

/* --- store add / list --- */

const char store_add_usage[] =
	"gpuiso store add DB FILE|DIR... [--rev REV] [--campaign NAME] [--date ISO8601] [-v]\n"
	"  adds results, bench, campaign and sweep JSON (every *.json below a DIR) in one\n"
	"  transaction; a run already stored is left as it is. --rev and --date replace the\n"
	"  files' own; --campaign tags runs that have none.";

int cmd_store_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' }, { "campaign", required_argument, NULL, 'c' },
		{ "date", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *rev = NULL, *campaign = NULL, *date = NULL;
	struct files fs = { 0 };
	struct store *s = NULL;
	char err[1024];
	size_t added = 0;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'r')
			rev = optarg;
		else if (opt == 'c')
			campaign = optarg;
		else if (opt == 'd' && !runfile_date_ok(optarg))
			return usage_error(store_add_usage,
					   "--date takes a UTC time as YYYY-MM-DDTHH:MM:SSZ, not '%s'", optarg);
		else if (opt == 'd')
			date = optarg;
		else if (common_opt(opt, store_add_usage, &rc))
			return rc;
	}
	if (argc - optind < 2)
		return usage_error(store_add_usage, "%s", "a store and at least one file, please");
	/* every file is read and checked before the store is touched */
	for (int i = optind + 1; i < argc; i++) {
		rc = files_add_path(&fs, argv[i]);
		if (rc) {
			files_free(&fs);
			return exit_for(rc);
		}
	}
	for (size_t i = 0; i < fs.n; i++) {
		rc = set_tag(&fs.r[i].git_rev, rev, true) ?: set_tag(&fs.r[i].date, date, true)
			?: set_tag(&fs.r[i].campaign, campaign, false);
		if (rc) {
			files_free(&fs);
			return EXIT_ENV;
		}
	}
	rc = store_open(argv[optind], true, &s, err, sizeof(err));
	if (!rc)
		rc = store_add(s, fs.r, fs.n, &added, err, sizeof(err));
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: store add: %s\n", err);
		files_free(&fs);
		return rc == -ENOMEM ? EXIT_ENV : EXIT_INPUT;
	}
	printf("%zu run%s added, %zu already stored\n", added, added == 1 ? "" : "s", fs.n - added);
	files_free(&fs);
	return EXIT_OK;
}

const char store_list_usage[] = "gpuiso store list DB [-v]";

/* The widths of the columns whose values vary in length (host, backend). */
struct list_widths {
	int host, backend;
};

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static int list_measure(const struct store_run *r, void *ctx)
{
	struct list_widths *w = ctx;

	if ((int)strlen(or_dash(r->host)) > w->host)
		w->host = (int)strlen(or_dash(r->host));
	if ((int)strlen(or_dash(r->backend)) > w->backend)
		w->backend = (int)strlen(or_dash(r->backend));
	return 0;
}

static int list_one(const struct store_run *r, void *ctx)
{
	const struct list_widths *w = ctx;

	printf("%5lld  %-20s  %-8s  %-12.12s  %-*s  %-*s  %7lld  %s\n", r->id, r->date, r->kind,
	       or_dash(r->git_rev), w->host, or_dash(r->host), w->backend, or_dash(r->backend),
	       r->nmetrics, r->campaign ? r->campaign : or_dash(r->trace));
	return 0;
}

int cmd_store_list(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct list_widths w = { (int)strlen("host"), (int)strlen("backend") };
	struct store *s;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1)
		if (common_opt(opt, store_list_usage, &rc))
			return rc;
	if (argc - optind != 1)
		return usage_error(store_list_usage, "%s", "one store, please");
	rc = open_store("store list", argv[optind], &s);
	if (rc)
		return rc;
	rc = store_runs(s, list_measure, &w);
	if (!rc) {
		printf("%5s  %-20s  %-8s  %-12s  %-*s  %-*s  %7s  %s\n", "id", "date", "kind", "revision",
		       w.host, "host", w.backend, "backend", "metrics", "campaign or trace");
		rc = store_runs(s, list_one, &w);
	}
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: store list: %s\n", strerror(-rc));
		return exit_for(rc);
	}
	return EXIT_OK;
}

/* --- compare --- */

const char compare_usage[] =
	"gpuiso compare BEFORE AFTER [--threshold PCT] [--alpha P] [--metric GLOB] [--all] [-v]\n"
	"gpuiso compare --db DB REV_BEFORE REV_AFTER [...]\n"
	"  BEFORE and AFTER are run files or folders of them (repeated samples), or with --db\n"
	"  git revisions in a store. With two or more samples on both sides a change is\n"
	"  significant when the Mann-Whitney U test gives p < P (0.05); else when it exceeds\n"
	"  PCT percent (10). Exits 1 when a metric got significantly worse.";

struct rev_ctx {
	struct store *s;
	const char *rev;
	struct sample_set *set;
};

static int rev_metric(const char *name, const char *unit, void *ctx)
{
	struct rev_ctx *c = ctx;
	double *v = NULL;
	size_t n = 0;
	int rc = store_rev_values(c->s, c->rev, name, &v, &n);

	for (size_t i = 0; !rc && i < n; i++)
		rc = sample_set_add(c->set, name, unit, v[i]);
	free(v);
	return rc;
}

/* One side of a comparison: files and folders, or a revision of a store. */
static int side_samples(struct store *s, const char *what, struct sample_set *set)
{
	struct files fs = { 0 };
	int rc;

	if (s) {
		char rev[128], err[512];
		struct rev_ctx c = { s, rev, set };

		rc = store_rev_resolve(s, what, rev, sizeof(rev), err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpuiso: compare: %s\n", err);
			return rc;
		}
		return store_metric_names(s, rev_metric, &c);
	}
	rc = files_add_path(&fs, what);
	for (size_t i = 0; !rc && i < fs.n; i++)
		rc = sample_set_add_run(set, &fs.r[i]);
	if (!rc && !fs.n) {
		fprintf(stderr, "gpuiso: compare: %s: no run file in it\n", what);
		rc = -ENOENT;
	}
	files_free(&fs);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },	    { "threshold", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },  { "metric", required_argument, NULL, 'm' },
		{ "all", no_argument, NULL, 'A' },	    { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct sample_set before = { 0 }, after = { 0 };
	struct compare_row *rows = NULL;
	const char *db = NULL;
	struct store *s = NULL;
	size_t nrows = 0, regressions;
	double pct;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 't':
			if (parse_double(optarg, &pct) || pct < 0)
				return usage_error(compare_usage, "bad --threshold '%s' (a percentage)", optarg);
			o.threshold = pct / 100;
			break;
		case 'a':
			if (parse_alpha(optarg, &o.alpha))
				return usage_error(compare_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
			break;
		case 'm':
			o.glob = optarg;
			break;
		case 'A':
			o.all = true;
			break;
		default:
			if (common_opt(opt, compare_usage, &rc))
				return rc;
		}
	}
	if (argc - optind != 2)
		return usage_error(compare_usage, "%s", "two sides to compare, please");
	if (db) {
		rc = open_store("compare", db, &s);
		if (rc)
			return rc;
	}
	rc = side_samples(s, argv[optind], &before);
	if (!rc)
		rc = side_samples(s, argv[optind + 1], &after);
	if (!rc)
		rc = compare_sets(&before, &after, &o, &rows, &nrows);
	if (!rc && o.glob && !nrows) {
		/* a mistyped glob must not pass a gate as "no regression" */
		fprintf(stderr, "gpuiso: compare: --metric '%s' matches no metric of either side\n",
			o.glob);
		rc = -EINVAL;
	}
	if (!rc) {
		regressions = compare_print(rows, nrows, &o, stdout);
		rc = regressions ? EXIT_FINDINGS : EXIT_OK;
	} else {
		rc = exit_for(rc);
	}
	free(rows);
	sample_set_free(&before);
	sample_set_free(&after);
	store_close(s);
	return rc;
}

/* --- changes over history --- */

static int glob_match(const char *name, const char *unit, void *ctx)
{
	(void)unit;
	return !fnmatch(ctx, name, 0); /* 1 stops the walk: found */
}

static bool any_metric_matches(struct store *s, const char *glob)
{
	return store_metric_names(s, glob_match, (void *)glob) == 1;
}

const char changes_usage[] =
	"gpuiso changes DB [--metric GLOB] [--alpha P] [-v]\n"
	"  change points in each stored metric's history (E-divisive means, kept when a t-test\n"
	"  between the two sides gives p < P, 0.01): where the level changed, from what to what.\n"
	"  Exits 1 when the last change of a metric made it worse.";

int cmd_changes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct history_change *ch = NULL;
	const char *glob = NULL;
	double alpha = 0.01;
	struct store *s;
	size_t n = 0, worse = 0;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'm')
			glob = optarg;
		else if (opt == 'a') {
			if (parse_alpha(optarg, &alpha))
				return usage_error(changes_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
		} else if (common_opt(opt, changes_usage, &rc)) {
			return rc;
		}
	}
	if (argc - optind != 1)
		return usage_error(changes_usage, "%s", "one store, please");
	rc = open_store("changes", argv[optind], &s);
	if (rc)
		return rc;
	rc = store_changes(s, glob, alpha, &ch, &n);
	if (!rc && glob && !any_metric_matches(s, glob)) {
		/* a mistyped glob must not pass a gate as "no change" */
		fprintf(stderr, "gpuiso: changes: --metric '%s' matches no stored metric\n", glob);
		free(ch);
		store_close(s);
		return EXIT_INPUT;
	}
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: changes: %s\n", strerror(-rc));
		return exit_for(rc);
	}
	printf("%-40s  %-12s  %-20s  %12s  %12s  %8s  %8s  %s\n", "metric", "revision", "date",
	       "before", "after", "change", "p", "verdict");
	for (size_t i = 0; i < n; i++) {
		const struct history_change *h = &ch[i];
		bool last = i + 1 == n || strcmp(ch[i + 1].metric, h->metric);

		worse += last && h->verdict == V_REGRESSED;
		printf("%-40s  %-12.12s  %-20s  %12.6g  %12.6g  %+7.1f%%  %8.2g  %s\n", h->metric,
		       h->rev, h->date, h->cp.before, h->cp.after, 100 * h->change, h->cp.p,
		       verdict_name(h->verdict));
	}
	printf("%zu change%s, %zu metric%s worse since the last one\n", n, n == 1 ? "" : "s", worse,
	       worse == 1 ? "" : "s");
	free(ch);
	return worse ? EXIT_FINDINGS : EXIT_OK;
}

/* --- dashboard --- */

const char dash_usage[] = "gpuiso dash DB -o SITE [--alpha P] [-v]\n"
			  "  writes a static HTML dashboard of the store into SITE (index.html first)";

int cmd_dash(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct dash_opts o = { .alpha = 0.01 };
	const char *site = NULL;
	struct store *s;
	char err[1024];
	size_t pages = 0;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "ho:v", opts, NULL)) != -1) {
		if (opt == 'o')
			site = optarg;
		else if (opt == 'a') {
			if (parse_alpha(optarg, &o.alpha))
				return usage_error(dash_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
		} else if (common_opt(opt, dash_usage, &rc)) {
			return rc;
		}
	}
	if (argc - optind != 1 || !site)
		return usage_error(dash_usage, "%s", "a store and -o SITE, please");
	rc = open_store("dash", argv[optind], &s);
	if (rc)
		return rc;
	rc = dash_write(s, site, &o, &pages, err, sizeof(err));
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: dash: %s\n", err);
		/* the site cannot be written where asked: the machine's say, as for other outputs */
		return rc == -EINVAL ? EXIT_INPUT : EXIT_ENV;
	}
	printf("%zu pages in %s/index.html\n", pages, site);
	return EXIT_OK;
}

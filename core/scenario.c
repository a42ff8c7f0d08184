/* SPDX-License-Identifier: MIT */
/*
 * Scenario YAML reader (docs/scenario-format.md).
 *
 * The file is built into a libfyaml document, then walked by hand: every
 * mapping is checked against the keys it may hold, every scalar is parsed
 * with the strict parsers of common/units.h. Errors do not stop the walk, so
 * one run reports as many problems as it can, each as
 * "FILE:LINE:COL: error: MESSAGE" with a 1-based position, sorted by
 * position.
 *
 * Only what makes the file meaningless is an error here (wrong keys, types,
 * numbers, a memory map that contradicts itself). What a real driver or
 * machine could report and the model must judge (an unaligned save size,
 * reserved ranges over RAM, missing caps, ...) is loaded as given.
 */
#include "scenario.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/units.h"

#define NAME_LEN 160

/* One error, kept until the end so the report can be sorted by position. */
struct err {
	int line;
	int col;
	unsigned int seq; /* report order, to keep the sort stable */
	char *text;       /* the whole line, with its newline */
};

/* Load context: where errors go and how many there were. */
struct ld {
	const char *path;
	struct err *errs;
	size_t nerr;
	size_t cap;
	bool oom;
};

/* A known key of a mapping: its key and value nodes (NULL when absent). */
struct field {
	struct fy_node *key;
	struct fy_node *val;
	char name[NAME_LEN]; /* dotted path for messages: "adapters[0].caps.map_aperture2" */
};

struct pos {
	int line; /* 1-based */
	int col;
};

/* ---- errors ------------------------------------------------------------ */

static void err_add(struct ld *ld, int line, int col, const char *text)
{
	struct err *e;

	if (ld->nerr == ld->cap) {
		size_t cap = ld->cap ? 2 * ld->cap : 16;

		e = realloc(ld->errs, cap * sizeof(*e));
		if (!e) {
			ld->oom = true;
			return;
		}
		ld->errs = e;
		ld->cap = cap;
	}
	e = &ld->errs[ld->nerr];
	e->text = strdup(text);
	if (!e->text) {
		ld->oom = true;
		return;
	}
	e->line = line;
	e->col = col;
	e->seq = (unsigned int)ld->nerr;
	ld->nerr++;
}

static int err_cmp(const void *a, const void *b)
{
	const struct err *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Write the errors, in file order, as whole lines into @buf; a line that
 * does not fit ends the report (cut short only if it is the first).
 */
static void err_flush(struct ld *ld, char *buf, size_t len)
{
	size_t i, used = 0;

	if (ld->nerr > 1)
		qsort(ld->errs, ld->nerr, sizeof(*ld->errs), err_cmp);
	for (i = 0; buf && len && i < ld->nerr; i++) {
		size_t n = strlen(ld->errs[i].text);

		if (used + n + 1 > len) {
			if (used == 0) {
				memcpy(buf, ld->errs[i].text, len - 1);
				buf[len - 1] = '\0';
			}
			break;
		}
		memcpy(buf + used, ld->errs[i].text, n + 1);
		used += n;
	}
	for (i = 0; i < ld->nerr; i++)
		free(ld->errs[i].text);
	free(ld->errs);
	ld->errs = NULL;
	ld->nerr = ld->cap = 0;
}

static void verr_pos(struct ld *ld, int line, int col, const char *fmt, va_list ap)
{
	char msg[512], out[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (snprintf(out, sizeof(out), "%s:%d:%d: error: %s\n", ld->path, line, col, msg) >=
	    (int)sizeof(out))
		out[sizeof(out) - 2] = '\n'; /* cut short, but still one line */
	err_add(ld, line, col, out);
}

static void err_pos(struct ld *ld, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err_pos(struct ld *ld, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_pos(ld, line, col, fmt, ap);
	va_end(ap);
}

static void discard_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

/* A diagnostic object that collects instead of printing. */
static struct fy_diag *diag_collecting(void)
{
	struct fy_diag_cfg cfg;
	struct fy_diag *diag;

	fy_diag_cfg_default(&cfg);
	cfg.fp = NULL;
	cfg.output_fn = discard_output;
	cfg.colorize = false;
	cfg.level = FYET_ERROR;
	diag = fy_diag_create(&cfg);
	if (diag)
		fy_diag_set_collect_errors(diag, true);
	return diag;
}

/*
 * Where @n starts. Scalars carry a token with a start mark. libfyaml 0.7.12
 * has no public start mark for collections, but its node reports compute
 * one: report into a private collecting diag and read the position back.
 * That fails for a block collection whose last value is empty, so fall
 * back to the first child.
 */
static bool node_pos(struct fy_node *n, struct pos *p)
{
	struct fy_diag_error *e;
	struct fy_diag *diag;
	void *it = NULL;
	bool ok = false;

	if (!n)
		return false;
	if (fy_node_is_scalar(n)) {
		struct fy_token *t = fy_node_get_scalar_token(n);
		const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

		if (!m)
			return false;
		p->line = m->line + 1;
		p->col = m->column + 1;
		return true;
	}
	diag = diag_collecting();
	if (diag) {
		fy_diag_node_report(diag, n, FYET_ERROR, "here");
		e = fy_diag_errors_iterate(diag, &it);
		if (e && e->line > 0 && e->column > 0) {
			p->line = e->line;
			p->col = e->column;
			ok = true;
		}
		fy_diag_destroy(diag);
	}
	if (ok)
		return true;
	it = NULL;
	if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pair = fy_node_mapping_iterate(n, &it);

		return pair && node_pos(fy_node_pair_key(pair), p);
	}
	return node_pos(fy_node_sequence_iterate(n, &it), p);
}

/* Report at @n, or at @fallback when @n has no position (an empty value). */
static void err_at(struct ld *ld, struct fy_node *n, struct fy_node *fallback, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err_at(struct ld *ld, struct fy_node *n, struct fy_node *fallback, const char *fmt, ...)
{
	struct pos p = { 1, 1 };
	va_list ap;

	if (!node_pos(n, &p))
		node_pos(fallback, &p);
	va_start(ap, fmt);
	verr_pos(ld, p.line, p.col, fmt, ap);
	va_end(ap);
}

/* Report about a field: "NAME: MESSAGE" at its value (or key). */
static void err_field(struct ld *ld, const struct field *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_field(struct ld *ld, const struct field *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_at(ld, f->val, f->key, "%s: %s", f->name, msg);
}

/* ---- scalars ----------------------------------------------------------- */

static bool node_is_null(struct fy_node *n)
{
	const char *s;

	if (!n)
		return true;
	if (!fy_node_is_scalar(n))
		return false;
	if (!fy_node_get_scalar_token(n))
		return true;
	if (fy_node_get_style(n) != FYNS_PLAIN)
		return false;
	s = fy_node_get_scalar0(n);
	return !s || !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static const char *node_kind(struct fy_node *n)
{
	if (node_is_null(n))
		return "null";
	if (fy_node_is_mapping(n))
		return "a mapping";
	if (fy_node_is_sequence(n))
		return "a sequence";
	return "a scalar";
}

/* The text of a scalar field, or NULL after reporting a wrong type. */
static const char *field_text(struct ld *ld, const struct field *f, const char *what)
{
	const char *s;

	if (!fy_node_is_scalar(f->val) || node_is_null(f->val)) {
		err_field(ld, f, "expected %s, got %s", what, node_kind(f->val));
		return NULL;
	}
	s = fy_node_get_scalar0(f->val);
	if (!s) {
		ld->oom = true;
		return NULL;
	}
	return s;
}

static bool get_u64(struct ld *ld, const struct field *f, uint64_t *out)
{
	const char *s = field_text(ld, f, "an integer");
	int ret;

	if (!s)
		return false;
	ret = parse_u64(s, out);
	if (ret == -ERANGE)
		err_field(ld, f, "integer '%s' does not fit in 64 bits", s);
	else if (ret)
		err_field(ld, f, "invalid integer '%s' (expected decimal or 0x hex)", s);
	return ret == 0;
}

static bool get_u32(struct ld *ld, const struct field *f, uint32_t *out)
{
	uint64_t v;

	if (!get_u64(ld, f, &v))
		return false;
	if (v > UINT32_MAX) {
		err_field(ld, f, "%s is larger than %u", fy_node_get_scalar0(f->val), UINT32_MAX);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

static bool get_size(struct ld *ld, const struct field *f, uint64_t *out)
{
	const char *s = field_text(ld, f, "a size");
	int ret;

	if (!s)
		return false;
	ret = parse_size(s, out);
	if (ret == -ERANGE)
		err_field(ld, f, "size '%s' does not fit in 64 bits", s);
	else if (ret)
		err_field(ld, f,
			  "invalid size '%s' (expected an integer, 0x hex, or an integer with B, KiB, MiB, GiB or TiB)",
			  s);
	return ret == 0;
}

static bool get_bool(struct ld *ld, const struct field *f, bool *out)
{
	const char *s = field_text(ld, f, "true or false");

	if (!s)
		return false;
	if (!strcmp(s, "true")) {
		*out = true;
	} else if (!strcmp(s, "false")) {
		*out = false;
	} else {
		err_field(ld, f, "expected true or false, got '%s'", s);
		return false;
	}
	return true;
}

/* ---- mappings and sequences -------------------------------------------- */

/*
 * Names for messages. They are bounded (NAME_LEN); a name cut short still
 * points the reader at the right place, so truncation is accepted.
 */
static void join_name(char *dst, const char *ctx, const char *key)
{
	int n;

	if (ctx && *ctx)
		n = snprintf(dst, NAME_LEN, "%s.%s", ctx, key);
	else
		n = snprintf(dst, NAME_LEN, "%s", key);
	if (n < 0)
		dst[0] = '\0';
}

static void index_name(char *dst, const char *base, size_t index)
{
	if (snprintf(dst, NAME_LEN, "%s[%zu]", base, index) < 0)
		dst[0] = '\0';
}

/*
 * Match the keys of mapping @map against @names, filling @fields[i] for
 * each key present. @owner is the key node whose value @map is (NULL for
 * the root and sequence items): it positions errors about @map as a whole.
 * Return: false if @map is not a mapping (reported); unknown keys are
 * reported but do not fail the mapping.
 */
static bool map_fields(struct ld *ld, struct fy_node *map, struct fy_node *owner, const char *ctx,
		       const char *const *names, size_t nnames, struct field *fields)
{
	struct fy_node_pair *pair;
	void *it = NULL;
	size_t i;

	for (i = 0; i < nnames; i++) {
		fields[i].key = NULL;
		fields[i].val = NULL;
		join_name(fields[i].name, ctx, names[i]);
	}
	if (!fy_node_is_mapping(map) || node_is_null(map)) {
		err_at(ld, map, owner, "%s: expected a mapping, got %s", *ctx ? ctx : "top level",
		       node_kind(map));
		return false;
	}
	while ((pair = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(pair);
		const char *ks = NULL;

		if (k && fy_node_is_scalar(k) && !node_is_null(k))
			ks = fy_node_get_scalar0(k);
		if (!ks) {
			err_at(ld, k, map, "%s: keys must be plain strings, got %s",
			       *ctx ? ctx : "top level", node_kind(k));
			continue;
		}
		for (i = 0; i < nnames; i++)
			if (!strcmp(ks, names[i]))
				break;
		if (i == nnames) {
			char list[512];
			size_t j, off = 0;

			list[0] = '\0';
			for (j = 0; j < nnames && off < sizeof(list); j++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							j ? ", " : "", names[j]);
			err_at(ld, k, map, "%s: unknown key '%s' (expected one of: %s)",
			       *ctx ? ctx : "top level", ks, list);
			continue;
		}
		fields[i].key = k;
		fields[i].val = fy_node_pair_value(pair);
	}
	return true;
}

/* Report a missing required key of the mapping @map (value of @owner). */
static void err_missing(struct ld *ld, struct fy_node *map, struct fy_node *owner, const char *ctx,
			const char *key)
{
	err_at(ld, owner ? owner : map, map, "%s: missing required key '%s'",
	       *ctx ? ctx : "top level", key);
}

/* Check a sequence field; return its item count, or -1 (reported). */
static int seq_len(struct ld *ld, const struct field *f)
{
	int n;

	if (!fy_node_is_sequence(f->val)) {
		err_field(ld, f, "expected a sequence, got %s", node_kind(f->val));
		return -1;
	}
	n = fy_node_sequence_item_count(f->val);
	return n < 0 ? -1 : n;
}

/* ---- ranges: {base, size} ---------------------------------------------- */

enum { RF_BASE, RF_SIZE, RF_N };
static const char *const range_keys[RF_N] = { "base", "size" };

/*
 * One {base, size} item. @strict adds the checks that apply to RAM ranges
 * (non-zero, 4 KiB aligned); hardware-reserved ranges are the model's to
 * judge. A range wrapping past 2^64 is meaningless either way.
 */
static bool parse_range(struct ld *ld, struct fy_node *item, const char *ctx, bool strict,
			struct range_extent *out)
{
	struct field f[RF_N];
	bool ok = true;

	if (!map_fields(ld, item, NULL, ctx, range_keys, RF_N, f))
		return false;
	if (!f[RF_BASE].key) {
		err_missing(ld, item, NULL, ctx, "base");
		ok = false;
	} else if (!get_u64(ld, &f[RF_BASE], &out->base)) {
		ok = false;
	}
	if (!f[RF_SIZE].key) {
		err_missing(ld, item, NULL, ctx, "size");
		ok = false;
	} else if (!get_size(ld, &f[RF_SIZE], &out->size)) {
		ok = false;
	}
	if (!ok)
		return false;
	if (out->size && out->base + (out->size - 1) < out->base) {
		err_at(ld, item, NULL, "%s: range base 0x%llx size 0x%llx wraps past the end of the address space",
		       ctx, (unsigned long long)out->base, (unsigned long long)out->size);
		return false;
	}
	if (!strict)
		return true;
	if (!out->size) {
		err_field(ld, &f[RF_SIZE], "size must not be zero");
		ok = false;
	} else if (!ALIGNED(out->size, PAGE_SIZE)) {
		err_field(ld, &f[RF_SIZE], "size 0x%llx is not a multiple of 4KiB",
			  (unsigned long long)out->size);
		ok = false;
	}
	if (!ALIGNED(out->base, PAGE_SIZE)) {
		err_field(ld, &f[RF_BASE], "base 0x%llx is not 4KiB aligned",
			  (unsigned long long)out->base);
		ok = false;
	}
	return ok;
}

/* ---- system ------------------------------------------------------------ */

enum { SF_MEMORY, SF_HPA, SF_MAP, SF_COMMIT, SF_LOCKABLE, SF_N };
static const char *const system_keys[SF_N] = {
	"memory", "highest_physical_address", "os_memory_map", "commit_limit", "lockable_limit",
};

struct map_item {
	struct range_extent r;
	size_t index;          /* position in the file */
	struct fy_node *node;
};

static int map_item_cmp(const void *a, const void *b)
{
	const struct map_item *x = a, *y = b;

	if (x->r.base != y->r.base)
		return x->r.base < y->r.base ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * os_memory_map: the ranges, sorted by base, disjoint. Return: true if
 * every range was valid (the caller may then check the sum).
 */
static bool parse_memory_map(struct ld *ld, const struct field *f, struct scn_system *sys)
{
	struct map_item *items;
	char ctx[NAME_LEN];
	int n = seq_len(ld, f);
	struct fy_node *item;
	void *it = NULL;
	size_t i, k = 0;
	bool ok = true;

	if (n < 0)
		return false;
	if (n == 0) {
		err_field(ld, f, "must list at least one range");
		return false;
	}
	items = calloc((size_t)n, sizeof(*items));
	if (!items) {
		ld->oom = true;
		return false;
	}
	while ((item = fy_node_sequence_iterate(f->val, &it))) {
		index_name(ctx, f->name, k);
		if (parse_range(ld, item, ctx, true, &items[k].r)) {
			items[k].index = k;
			items[k].node = item;
		} else {
			ok = false;
			items[k].node = NULL;
		}
		k++;
	}
	if (!ok)
		goto out;
	qsort(items, k, sizeof(*items), map_item_cmp);
	for (i = 1; i < k; i++) {
		struct map_item *a = &items[i - 1], *b = &items[i];
		struct map_item *later = a->index > b->index ? a : b;
		struct map_item *earlier = later == a ? b : a;

		if (a->r.base + a->r.size > b->r.base || (a->r.base + a->r.size == 0)) {
			err_at(ld, later->node, f->key,
			       "%s[%zu]: range [0x%llx, 0x%llx) overlaps %s[%zu] [0x%llx, 0x%llx)",
			       f->name, later->index, (unsigned long long)later->r.base,
			       (unsigned long long)(later->r.base + later->r.size), f->name,
			       earlier->index, (unsigned long long)earlier->r.base,
			       (unsigned long long)(earlier->r.base + earlier->r.size));
			ok = false;
		}
	}
	if (!ok)
		goto out;
	sys->os_memory_map = calloc(k, sizeof(*sys->os_memory_map));
	if (!sys->os_memory_map) {
		ld->oom = true;
		ok = false;
		goto out;
	}
	for (i = 0; i < k; i++)
		sys->os_memory_map[i] = items[i].r;
	sys->nmap = k;
out:
	free(items);
	return ok;
}

static void parse_system(struct ld *ld, struct fy_node *map, struct fy_node *owner,
			 struct scn_system *sys)
{
	struct field f[SF_N];
	bool mem_ok = false, map_ok = false, hpa_ok = false;
	uint64_t top = 0, sum = 0;
	char a[24], b[24];
	size_t i;

	if (!map_fields(ld, map, owner, "system", system_keys, SF_N, f))
		return;
	if (!f[SF_MEMORY].key) {
		err_missing(ld, map, owner, "system", "memory");
	} else if (get_size(ld, &f[SF_MEMORY], &sys->memory)) {
		mem_ok = sys->memory && ALIGNED(sys->memory, PAGE_SIZE);
		if (!mem_ok)
			err_field(ld, &f[SF_MEMORY], "must be a non-zero multiple of 4KiB, got %s",
				  fy_node_get_scalar0(f[SF_MEMORY].val));
	}
	if (f[SF_MAP].key) {
		map_ok = parse_memory_map(ld, &f[SF_MAP], sys);
		for (i = 0; map_ok && i < sys->nmap; i++) {
			/* Disjoint ranges can still add up to exactly 2^64. */
			if (sum + sys->os_memory_map[i].size < sum)
				sum = UINT64_MAX;
			else
				sum += sys->os_memory_map[i].size;
		}
		if (map_ok && mem_ok && sum != sys->memory) {
			err_field(ld, &f[SF_MEMORY],
				  "%s does not match the sum of os_memory_map sizes (%s)",
				  format_size(sys->memory, a, sizeof(a)), format_size(sum, b, sizeof(b)));
		}
	} else if (mem_ok) {
		sys->os_memory_map = calloc(1, sizeof(*sys->os_memory_map));
		if (!sys->os_memory_map) {
			ld->oom = true;
		} else {
			sys->os_memory_map[0] = (struct range_extent){ 0, sys->memory };
			sys->nmap = 1;
			map_ok = true;
		}
	}
	if (map_ok && sys->nmap) {
		const struct range_extent *last = &sys->os_memory_map[sys->nmap - 1];

		top = last->base + last->size - 1;
	}
	if (f[SF_HPA].key) {
		hpa_ok = get_u64(ld, &f[SF_HPA], &sys->highest_physical_address);
		if (hpa_ok && map_ok && sys->highest_physical_address < top)
			err_field(ld, &f[SF_HPA], "0x%llx is below the top of os_memory_map (0x%llx)",
				  (unsigned long long)sys->highest_physical_address,
				  (unsigned long long)top);
	} else {
		sys->highest_physical_address = top;
	}
	sys->commit_limit = sys->memory;
	sys->lockable_limit = sys->memory;
	if (f[SF_COMMIT].key)
		get_size(ld, &f[SF_COMMIT], &sys->commit_limit);
	if (f[SF_LOCKABLE].key)
		get_size(ld, &f[SF_LOCKABLE], &sys->lockable_limit);
}

/* ---- registry ---------------------------------------------------------- */

enum { GF_FLAGS, GF_STAGING, GF_N };
static const char *const registry_keys[GF_N] = { "iommu_flags", "secure_vm_staging" };

#define IOMMU_FLAGS_ALL 0x1Fu

static void parse_registry(struct ld *ld, struct fy_node *map, struct fy_node *owner,
			   struct scn_registry *reg)
{
	struct field f[GF_N];
	uint64_t v;

	if (!map_fields(ld, map, owner, "registry", registry_keys, GF_N, f))
		return;
	if (f[GF_FLAGS].key && get_u64(ld, &f[GF_FLAGS], &v)) {
		if (v & ~(uint64_t)IOMMU_FLAGS_ALL)
			err_field(ld, &f[GF_FLAGS], "0x%llx sets unknown bits (valid bits: 0x%02X)",
				  (unsigned long long)v, IOMMU_FLAGS_ALL);
		else
			reg->iommu_flags = (uint32_t)v;
	}
	if (f[GF_STAGING].key)
		get_bool(ld, &f[GF_STAGING], &reg->secure_vm_staging);
}

/* ---- adapters ---------------------------------------------------------- */

enum { CF_SECURE, CF_AP2, CF_LINEAR, CF_HVA, CF_DMAREMAP, CF_N };
static const char *const caps_keys[CF_N] = {
	"iommu_secure_mode", "map_aperture2", "iommu_linear_remap", "highest_visible_address",
	"dma_remapping_compatible",
};

static void parse_caps(struct ld *ld, const struct field *owner, struct scn_caps *caps)
{
	struct field f[CF_N];

	if (!map_fields(ld, owner->val, owner->key, owner->name, caps_keys, CF_N, f))
		return;
	if (f[CF_SECURE].key)
		get_bool(ld, &f[CF_SECURE], &caps->iommu_secure_mode);
	if (f[CF_AP2].key)
		get_bool(ld, &f[CF_AP2], &caps->map_aperture2);
	if (f[CF_LINEAR].key)
		get_bool(ld, &f[CF_LINEAR], &caps->iommu_linear_remap);
	if (f[CF_HVA].key)
		caps->has_physical_caps = get_u64(ld, &f[CF_HVA], &caps->highest_visible_address);
	if (f[CF_DMAREMAP].key)
		get_u32(ld, &f[CF_DMAREMAP], &caps->dma_remapping_compatible);
}

enum { PF_VRAM, PF_SAVE, PF_RESERVED, PF_POPULATED, PF_N };
static const char *const phys_keys[PF_N] = {
	"vram", "fb_save_size", "reserved", "populated_from_system",
};

static void parse_phys(struct ld *ld, struct fy_node *item, const char *ctx, struct scn_phys *ph)
{
	struct field f[PF_N];
	char rctx[NAME_LEN];
	struct fy_node *r;
	void *it = NULL;
	size_t k = 0;
	int n;

	if (!map_fields(ld, item, NULL, ctx, phys_keys, PF_N, f))
		return;
	if (!f[PF_VRAM].key)
		err_missing(ld, item, NULL, ctx, "vram");
	else
		get_size(ld, &f[PF_VRAM], &ph->vram);
	if (f[PF_SAVE].key)
		get_size(ld, &f[PF_SAVE], &ph->fb_save_size);
	if (f[PF_POPULATED].key)
		get_size(ld, &f[PF_POPULATED], &ph->populated_from_system);
	if (!f[PF_RESERVED].key)
		return;
	n = seq_len(ld, &f[PF_RESERVED]);
	if (n <= 0)
		return;
	ph->reserved = calloc((size_t)n, sizeof(*ph->reserved));
	if (!ph->reserved) {
		ld->oom = true;
		return;
	}
	while ((r = fy_node_sequence_iterate(f[PF_RESERVED].val, &it))) {
		index_name(rctx, f[PF_RESERVED].name, k);
		/* Kept in file order, unaligned or over RAM if so written: the model judges. */
		if (parse_range(ld, r, rctx, false, &ph->reserved[ph->nreserved]))
			ph->nreserved++;
		k++;
	}
}

enum { AF_NAME, AF_INTEGRATED, AF_CAPS, AF_SAVEMODE, AF_SMALLBUF, AF_PHYS, AF_N };
static const char *const adapter_keys[AF_N] = {
	"name", "integrated", "caps", "fb_save_mode", "small_buffer", "physical",
};

/* Return: the adapter's name node if it has a usable name, else NULL. */
static struct fy_node *parse_adapter(struct ld *ld, struct fy_node *item, const char *ctx,
				     struct scn_adapter *ad)
{
	struct fy_node *name_node = NULL;
	struct field f[AF_N];
	char pctx[NAME_LEN];
	struct fy_node *p;
	void *it = NULL;
	const char *s;
	size_t k = 0;
	int n;

	ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
	ad->small_buffer = PAGE_SIZE;
	if (!map_fields(ld, item, NULL, ctx, adapter_keys, AF_N, f))
		return NULL;
	if (!f[AF_NAME].key) {
		err_missing(ld, item, NULL, ctx, "name");
	} else if ((s = field_text(ld, &f[AF_NAME], "a string"))) {
		if (!*s) {
			err_field(ld, &f[AF_NAME], "must not be empty");
		} else {
			ad->name = strdup(s);
			if (!ad->name)
				ld->oom = true;
			else
				name_node = f[AF_NAME].val;
		}
	}
	if (f[AF_INTEGRATED].key)
		get_bool(ld, &f[AF_INTEGRATED], &ad->integrated);
	if (f[AF_CAPS].key)
		parse_caps(ld, &f[AF_CAPS], &ad->caps);
	if (f[AF_SAVEMODE].key && (s = field_text(ld, &f[AF_SAVEMODE], "per-adapter or shared"))) {
		if (!strcmp(s, "per-adapter"))
			ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
		else if (!strcmp(s, "shared"))
			ad->fb_save_mode = FB_SAVE_SHARED;
		else
			err_field(ld, &f[AF_SAVEMODE], "expected per-adapter or shared, got '%s'", s);
	}
	if (f[AF_SMALLBUF].key)
		get_size(ld, &f[AF_SMALLBUF], &ad->small_buffer);
	if (!f[AF_PHYS].key) {
		err_missing(ld, item, NULL, ctx, "physical");
		return name_node;
	}
	n = seq_len(ld, &f[AF_PHYS]);
	if (n < 0)
		return name_node;
	if (n == 0) {
		err_field(ld, &f[AF_PHYS], "must list at least one physical adapter");
		return name_node;
	}
	ad->phys = calloc((size_t)n, sizeof(*ad->phys));
	if (!ad->phys) {
		ld->oom = true;
		return name_node;
	}
	ad->nphys = (size_t)n;
	while (k < ad->nphys && (p = fy_node_sequence_iterate(f[AF_PHYS].val, &it))) {
		index_name(pctx, f[AF_PHYS].name, k);
		parse_phys(ld, p, pctx, &ad->phys[k]);
		k++;
	}
	return name_node;
}

static void parse_adapters(struct ld *ld, const struct field *f, struct scenario *scn)
{
	struct fy_node **names;
	char ctx[NAME_LEN];
	struct fy_node *item;
	void *it = NULL;
	size_t k = 0, j;
	int n = seq_len(ld, f);

	if (n < 0)
		return;
	if (n == 0) {
		err_field(ld, f, "must list at least one adapter");
		return;
	}
	scn->adapters = calloc((size_t)n, sizeof(*scn->adapters));
	names = calloc((size_t)n, sizeof(*names));
	if (!scn->adapters || !names) {
		ld->oom = true;
		free(names);
		return;
	}
	scn->nadapters = (size_t)n;
	while (k < scn->nadapters && (item = fy_node_sequence_iterate(f->val, &it))) {
		index_name(ctx, "adapters", k);
		names[k] = parse_adapter(ld, item, ctx, &scn->adapters[k]);
		for (j = 0; names[k] && j < k; j++) {
			struct pos first = { 0, 0 };

			if (!names[j] || strcmp(scn->adapters[j].name, scn->adapters[k].name))
				continue;
			node_pos(names[j], &first);
			err_at(ld, names[k], item,
			       "%s.name: duplicate adapter name '%s' (first used at %d:%d)", ctx,
			       scn->adapters[k].name, first.line, first.col);
			break;
		}
		k++;
	}
	free(names);
}

/* ---- cost model -------------------------------------------------------- */

static const struct {
	const char *key;
	size_t off;
	bool nonzero; /* a divisor */
} cost_fields[] = {
	{ "clock_mhz", offsetof(struct sim_cost_model, clock_mhz), true },
	{ "pte_write", offsetof(struct sim_cost_model, pte_write), false },
	{ "pt_walk_level", offsetof(struct sim_cost_model, pt_walk_level), false },
	{ "iotlb_hit", offsetof(struct sim_cost_model, iotlb_hit), false },
	{ "iotlb_miss", offsetof(struct sim_cost_model, iotlb_miss), false },
	{ "iotlb_invalidate", offsetof(struct sim_cost_model, iotlb_invalidate), false },
	{ "dma_setup", offsetof(struct sim_cost_model, dma_setup), false },
	{ "bytes_per_cycle", offsetof(struct sim_cost_model, bytes_per_cycle), true },
};

#define NCOST ARRAY_SIZE(cost_fields)

static void parse_cost(struct ld *ld, struct fy_node *map, struct fy_node *owner,
		       struct sim_cost_model *cost)
{
	const char *names[NCOST];
	struct field f[NCOST];
	uint32_t v;
	size_t i;

	for (i = 0; i < NCOST; i++)
		names[i] = cost_fields[i].key;
	if (!map_fields(ld, map, owner, "cost_model", names, NCOST, f))
		return;
	for (i = 0; i < NCOST; i++) {
		if (!f[i].key || !get_u32(ld, &f[i], &v))
			continue;
		if (cost_fields[i].nonzero && !v) {
			err_field(ld, &f[i], "must not be zero");
			continue;
		}
		memcpy((char *)cost + cost_fields[i].off, &v, sizeof(v));
	}
}

/* ---- top level --------------------------------------------------------- */

enum { TF_SYSTEM, TF_REGISTRY, TF_ADAPTERS, TF_COST, TF_N };
static const char *const top_keys[TF_N] = { "system", "registry", "adapters", "cost_model" };

static void parse_root(struct ld *ld, struct fy_node *root, struct scenario *scn)
{
	struct field f[TF_N];

	if (!root) {
		err_pos(ld, 1, 1, "empty document: expected a mapping with 'system' and 'adapters'");
		return;
	}
	if (!map_fields(ld, root, NULL, "", top_keys, TF_N, f))
		return;
	if (!f[TF_SYSTEM].key)
		err_missing(ld, root, NULL, "", "system");
	else
		parse_system(ld, f[TF_SYSTEM].val, f[TF_SYSTEM].key, &scn->system);
	if (f[TF_REGISTRY].key)
		parse_registry(ld, f[TF_REGISTRY].val, f[TF_REGISTRY].key, &scn->registry);
	if (!f[TF_ADAPTERS].key)
		err_missing(ld, root, NULL, "", "adapters");
	else
		parse_adapters(ld, &f[TF_ADAPTERS], scn);
	if (f[TF_COST].key)
		parse_cost(ld, f[TF_COST].val, f[TF_COST].key, &scn->cost);
}

/* Copy the parser's collected diagnostics into the error buffer. */
static void take_parse_errors(struct ld *ld, struct fy_diag *diag)
{
	struct fy_diag_error *e;
	void *it = NULL;

	while ((e = fy_diag_errors_iterate(diag, &it))) {
		if (e->type < FYET_ERROR)
			continue;
		err_pos(ld, e->line > 0 ? e->line : 1, e->column > 0 ? e->column : 1, "%s",
			e->msg ? e->msg : "YAML syntax error");
	}
}

/* Can @path be read as a file? Return: 0 or -ENOENT (reported). */
static int check_readable(struct ld *ld, const char *path)
{
	char line[1024];
	struct stat st;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		snprintf(line, sizeof(line), "%s: error: cannot open: %s\n", path, strerror(errno));
		err_add(ld, 0, 0, line);
		return -ENOENT;
	}
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		snprintf(line, sizeof(line), "%s: error: cannot open: %s\n", path, strerror(EISDIR));
		err_add(ld, 0, 0, line);
		return -ENOENT;
	}
	fclose(fp);
	return 0;
}

int scenario_load(const char *path, struct scenario *scn, char *errbuf, size_t errlen)
{
	struct ld ld = { .path = path };
	struct fy_parse_cfg cfg = { 0 };
	struct fy_document *fyd = NULL;
	struct fy_diag *diag = NULL;
	int ret;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	memset(scn, 0, sizeof(*scn));
	sim_cost_default(&scn->cost);
	if (!path)
		return -EINVAL;
	scn->path = strdup(path);
	if (!scn->path)
		return -ENOMEM;
	ret = check_readable(&ld, path);
	if (ret)
		goto out;

	diag = diag_collecting();
	if (!diag) {
		ret = -ENOMEM;
		goto out;
	}
	/* Aliases are resolved so that "*name" reads like the anchored node. */
	cfg.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_RESOLVE_DOCUMENT;
	cfg.diag = diag;
	fyd = fy_document_build_from_file(&cfg, path);
	if (!fyd || fy_diag_got_error(diag)) {
		take_parse_errors(&ld, diag);
		/* libfyaml builds no document, silently, from an empty file. */
		if (!ld.nerr)
			err_pos(&ld, 1, 1,
				"empty document: expected a mapping with 'system' and 'adapters'");
	} else {
		parse_root(&ld, fy_document_root(fyd), scn);
	}
	ret = ld.oom ? -ENOMEM : ld.nerr ? -EINVAL : 0;
out:
	if (fyd)
		fy_document_destroy(fyd);
	if (diag)
		fy_diag_destroy(diag);
	err_flush(&ld, errbuf, errlen);
	return ret;
}

int scenario_defaults(struct scenario *scn)
{
	struct scn_adapter *ad;

	memset(scn, 0, sizeof(*scn));
	sim_cost_default(&scn->cost);

	/* 64 GiB: 2 GiB below the 32-bit MMIO hole, the rest above 4 GiB. */
	scn->system.os_memory_map = calloc(2, sizeof(*scn->system.os_memory_map));
	scn->adapters = calloc(1, sizeof(*scn->adapters));
	if (!scn->system.os_memory_map || !scn->adapters)
		goto nomem;
	scn->system.memory = 64 * SZ_1G;
	scn->system.os_memory_map[0] = (struct range_extent){ 0, 2 * SZ_1G };
	scn->system.os_memory_map[1] = (struct range_extent){ 0x100000000ull, 62 * SZ_1G };
	scn->system.nmap = 2;
	scn->system.highest_physical_address = 0x100000000ull + 62 * SZ_1G - 1;
	scn->system.commit_limit = 48 * SZ_1G;
	scn->system.lockable_limit = 16 * SZ_1G;

	scn->registry.iommu_flags =
		IOMMU_FLAG_ENABLED | IOMMU_FLAG_ENABLE_MAPPINGS | IOMMU_FLAG_ENABLE_ATTACH;
	scn->registry.secure_vm_staging = false;

	scn->nadapters = 1;
	ad = &scn->adapters[0];
	ad->name = strdup("gpu0");
	ad->phys = calloc(1, sizeof(*ad->phys));
	if (!ad->name || !ad->phys)
		goto nomem;
	ad->integrated = false;
	ad->caps = (struct scn_caps){
		.iommu_secure_mode = true,
		.map_aperture2 = true,
		.iommu_linear_remap = true,
		.has_physical_caps = true,
		.highest_visible_address = 0xFFFFFFFFFFull,
		.dma_remapping_compatible = 3,
	};
	ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
	ad->small_buffer = 4096;
	ad->nphys = 1;
	ad->phys[0].vram = 8 * SZ_1G;
	ad->phys[0].fb_save_size = 64ull << 20;
	ad->phys[0].reserved = calloc(1, sizeof(*ad->phys[0].reserved));
	if (!ad->phys[0].reserved)
		goto nomem;
	ad->phys[0].reserved[0] = (struct range_extent){ 0xC0000000ull, 16ull << 20 };
	ad->phys[0].nreserved = 1;
	ad->phys[0].populated_from_system = 0;
	return 0;
nomem:
	scenario_free(scn);
	return -ENOMEM;
}

void scenario_free(struct scenario *scn)
{
	size_t i, j;

	if (!scn)
		return;
	free(scn->path);
	free(scn->system.os_memory_map);
	for (i = 0; scn->adapters && i < scn->nadapters; i++) {
		struct scn_adapter *ad = &scn->adapters[i];

		free(ad->name);
		for (j = 0; ad->phys && j < ad->nphys; j++)
			free(ad->phys[j].reserved);
		free(ad->phys);
	}
	free(scn->adapters);
	memset(scn, 0, sizeof(*scn));
}

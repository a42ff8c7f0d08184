/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "import"
#include "common/array.h"
#include "common/digest.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/units.h"
#include "common/yaml.h"
#include "import.h"

#define OP_PRESSURE WL_NKINDS /* a rule's op beyond the catalogue: memory pressure */
#define MAX_RULE_EVENTS 4
#define MAX_SETS WL_NSLOTS
#define MAX_WHERE 4
#define MAX_KEYS 4

/* An operand: a constant, or the value of a bound payload field. */
struct operand {
	int field; /* index in the group's names, or -1 for a constant */
	uint64_t c;
};

/* A value: a, a << b, or a * b. */
struct value {
	struct operand a, b;
	char op; /* 0, '<' or '*' */
};

struct rule {
	char *events[MAX_RULE_EVENTS];
	size_t nevents;
	uint32_t op;                 /* enum wl_kind, or OP_PRESSURE */
	int keys[MAX_KEYS];          /* field indexes: together they name the object */
	size_t nkeys;                /* 0: the rule acts on no object */
	int ref;                     /* field index, or -1 */
	struct { enum wl_slot slot; struct value v; } sets[MAX_SETS];
	size_t nsets;
	struct { int field; char *str; bool negate; } where[MAX_WHERE];
	size_t nwhere;
	struct value pressure;       /* bytes added (or removed, with sub) */
	bool sub;
	bool spans;                  /* a destroy that ends what lies in [key, key + span) */
	struct value span;
	char *names[CTF_MAX_FIELDS]; /* payload fields the rule reads */
	unsigned int nnames;
	char at[256];                /* "FILE:LINE:COL (rules[N])", for warnings */
	size_t file;                 /* which of the map files, from 0 */
	bool bound;                  /* some event class of the trace took the rule */
	unsigned int warned;         /* a bit per name: said once that events lack it */
};

/* A rule of a group, and where each field it reads is in the group's binding. */
struct member {
	size_t rule;
	unsigned char at[CTF_MAX_FIELDS];
};

/*
 * The rules of one map file that name one event class, in their order: an
 * event of the class goes to the first whose filter it passes. The first
 * file naming a class owns it; a later file's group of it takes nothing.
 */
struct group {
	const char *event;                 /* the class (a rule's string) */
	size_t file;
	struct member *members;
	size_t nmembers, members_cap;
	const char *names[CTF_MAX_FIELDS]; /* the fields its rules read (theirs) */
	unsigned int nnames;
};

struct import_map {
	struct rule *rules;
	size_t nrules, rules_cap;
	struct group *groups;        /* in the order the rules first name them */
	size_t ngroups, groups_cap;
	uint64_t adapter;            /* default adapter */
	uint64_t memory_base;        /* what pressure rules subtract from */
	/* while translating */
	struct u64map objects;       /* foreign key -> trace id << 8 | kind */
	uint64_t next_id;
	uint64_t outstanding;        /* bytes the pressure rules hold */
	uint64_t unmatched_ends;     /* ends of objects created before the trace began */
	/*
	 * With a `span` rule: the objects whose key is an address, by that
	 * address, with the bytes of their extent not yet ended, so that one
	 * event can end what it covers; and the ends it made that did not fit
	 * in import_event()'s two (import_next() hands them out).
	 */
	bool spans;
	struct span_obj *extents;
	size_t nextents, extents_cap;
	struct wl_event *queue;
	size_t nqueue, queue_cap, queue_head;
	const char *unmatched_event; /* the class of the last event found unmatched */
	const char *unmatched_why;   /* and why */
};

/* An object with an extent: [start, end) at its key, @left bytes of it still mapped. */
struct span_obj {
	uint64_t start, end, left;
};

/* --- loading --- */

static int field_index(struct rule *r, const char *name)
{
	for (unsigned int i = 0; i < r->nnames; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	if (r->nnames == CTF_MAX_FIELDS)
		return -ENOSPC;
	r->names[r->nnames] = strdup(name);
	return r->names[r->nnames] ? (int)r->nnames++ : -ENOMEM;
}

static bool is_name_char(char c)
{
	return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/*
 * A payload field's name: letters, digits, '_' and '.', not starting with a
 * digit ("size", "lengths.sum"), optionally ending in an element index
 * "[I]" ("dma_addrs[0]"): I in decimal, without leading zeros, as the
 * readers spell an array's elements (docs/import-maps.md).
 */
static bool is_name(const char *s)
{
	const char *p = s, *index;

	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	while (*p && is_name_char(*p))
		p++;
	if (!*p)
		return true;
	if (*p != '[' || p == s)
		return false;
	for (index = ++p; *p >= '0' && *p <= '9'; p++)
		;
	return p > index && p - index <= 9 && !(p - index > 1 && *index == '0') && p[0] == ']' &&
	       !p[1];
}

/* A payload field's name, as `key`, `ref` and `where` give them: its index. */
static int field_name_index(struct yaml_doc *d, struct rule *r, const struct yaml_field *f,
			    const char *s)
{
	int i;

	if (!is_name(s)) {
		yaml_field_error(d, f, "'%s' is not a payload field name", s);
		return -EINVAL;
	}
	i = field_index(r, s);
	if (i == -ENOSPC)
		yaml_field_error(d, f, "a rule reads at most %d payload fields", CTF_MAX_FIELDS);
	else if (i < 0)
		yaml_nomem(d);
	return i;
}

static int parse_operand(struct rule *r, const char *s, struct operand *o)
{
	if (!parse_size(s, &o->c)) {
		o->field = -1;
		return 0;
	}
	if (!is_name(s))
		return -EINVAL;
	o->field = field_index(r, s);
	return o->field < 0 ? o->field : 0;
}

/* "size", "4096", "4KiB", "4096 << order", "pages * 4096" */
static int parse_value(struct rule *r, const char *text, struct value *v)
{
	char a[64], op[4], b[64], rest[2];
	int n = sscanf(text, "%63s %3s %63s %1s", a, op, b, rest);

	memset(v, 0, sizeof(*v));
	if (n == 1)
		return parse_operand(r, a, &v->a);
	if (n != 3 || (strcmp(op, "<<") && strcmp(op, "*")))
		return -EINVAL;
	v->op = op[0];
	if (parse_operand(r, a, &v->a) || parse_operand(r, b, &v->b))
		return -EINVAL;
	return 0;
}

static int slot_of(uint32_t op, const char *name)
{
	const struct wl_desc *d = &wl_catalogue[op];

	for (unsigned int i = 0; i < d->nfields; i++)
		if (!strcmp(d->fields[i].name, name))
			return d->fields[i].slot;
	return -ENOENT;
}

static void load_value(struct yaml_doc *d, struct rule *r, const struct yaml_field *f,
		       struct value *v)
{
	const char *text = yaml_str(d, f, "a string");

	if (text && parse_value(r, text, v))
		yaml_field_error(d, f, "'%s' is not a value (a number, a size, a field name, 'A << B' or 'A * B')",
				 text);
}

static void load_events(struct yaml_doc *d, struct rule *r, struct yaml_field *f)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	size_t index = 0;
	void *it = NULL;

	if (fy_node_is_scalar(f->val)) {
		const char *s = yaml_str(d, f, "a string");

		if (s && !*s)
			yaml_field_error(d, f, "an event name cannot be empty");
		else if (s && !(r->events[r->nevents++] = strdup(s)))
			yaml_nomem(d);
		return;
	}
	while ((item.val = yaml_items(d, f, &it, &index, name))) {
		item.key = f->key;
		snprintf(item.name, sizeof(item.name), "%s", name);
		if (r->nevents == MAX_RULE_EVENTS) {
			yaml_field_error(d, &item, "at most %d event names per rule", MAX_RULE_EVENTS);
			return;
		}
		const char *s = yaml_str(d, &item, "an event name");

		if (s && !*s)
			yaml_field_error(d, &item, "an event name cannot be empty");
		else if (s && !(r->events[r->nevents++] = strdup(s)))
			yaml_nomem(d);
	}
	if (!r->nevents && !yaml_failed(d))
		yaml_field_error(d, f, "a rule needs at least one event name");
}

/* "rules[2].fields.bytes" for messages; a name cut short still points the right way. */
static void field_name(char *dst, const char *rule, const char *part, const char *key)
{
	if (snprintf(dst, YAML_NAME_LEN, "%s.%s.%s", rule, part, key ? key : "?") < 0)
		dst[0] = '\0';
}

static void load_where(struct yaml_doc *d, struct rule *r, const char *name, struct yaml_field *w);

/* key: FIELD, or [FIELD, ...]: the fields whose values together name the object. */
static void load_key(struct yaml_doc *d, struct rule *r, struct yaml_field *f)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item;
	size_t index = 0;
	void *it = NULL;
	const char *s;
	int field;

	if (!fy_node_is_sequence(f->val)) {
		if ((s = yaml_str(d, f, "a field name or a list of them")) &&
		    (field = field_name_index(d, r, f, s)) >= 0)
			r->keys[r->nkeys++] = field;
		return;
	}
	while ((item.val = yaml_items(d, f, &it, &index, name))) {
		item.key = f->key;
		snprintf(item.name, sizeof(item.name), "%s", name);
		if (r->nkeys == MAX_KEYS) {
			yaml_field_error(d, &item, "a key is at most %d fields", MAX_KEYS);
			return;
		}
		if ((s = yaml_str(d, &item, "a field name")) &&
		    (field = field_name_index(d, r, &item, s)) >= 0)
			r->keys[r->nkeys++] = field;
	}
	if (!r->nkeys && !yaml_failed(d))
		yaml_field_error(d, f, "a key needs at least one field");
}

static void load_rule(struct yaml_doc *d, struct fy_node *node, const char *name, struct rule *r)
{
	static const char *const keys[] = { "event", "op", "key", "ref", "fields", "where", "add",
					     "sub", "span" };
	enum { EVENT, OP, KEY, REF, FIELDS, WHERE, ADD, SUB, SPAN, NKEYS };
	struct yaml_field f[NKEYS];
	const char *s;

	bool object, refers, sized = false;
	const char *size;
	int line, col;

	r->ref = -1;
	if (!yaml_fields(d, node, NULL, name, keys, NKEYS, f))
		return;
	if (!yaml_pos(node, &line, &col))
		line = col = 0;
	snprintf(r->at, sizeof(r->at), "%s:%d:%d (%s)", yaml_path(d), line, col, name);
	if (!f[EVENT].val || !f[OP].val) {
		yaml_error(d, node, NULL, "%s: a rule needs 'event' and 'op'", name);
		return;
	}
	load_events(d, r, &f[EVENT]);
	s = yaml_str(d, &f[OP], "an operation");
	if (!s)
		return;
	if (!strcmp(s, "pressure")) {
		r->op = OP_PRESSURE;
		for (int k = KEY; k <= SPAN; k++)
			if (f[k].val && k != WHERE && k != ADD && k != SUB)
				yaml_field_error(d, &f[k], "a pressure rule takes 'add' or 'sub', not '%s'",
						 keys[k]);
		if (!f[ADD].val == !f[SUB].val) {
			yaml_field_error(d, &f[OP], "a pressure rule needs exactly one of 'add' and 'sub'");
			return;
		}
		r->sub = f[SUB].val != NULL;
		load_value(d, r, r->sub ? &f[SUB] : &f[ADD], &r->pressure);
		load_where(d, r, name, &f[WHERE]);
		return;
	}
	if (wl_kind_lookup(s) < 0) {
		yaml_field_error(d, &f[OP], "'%s' is not a workload event or 'pressure'", s);
		return;
	}
	r->op = (uint32_t)wl_kind_lookup(s);
	object = wl_creates(r->op) || wl_destroys(r->op) || wl_uses(r->op);
	refers = wl_refers(r->op);
	for (int k = ADD; k <= SUB; k++)
		if (f[k].val)
			yaml_field_error(d, &f[k], "'%s' is for pressure rules", keys[k]);
	if (f[KEY].val && !object)
		yaml_field_error(d, &f[KEY], "'%s' acts on no object: 'key' does not apply",
				 wl_catalogue[r->op].name);
	else if (f[KEY].val)
		load_key(d, r, &f[KEY]);
	if (f[REF].val && !refers)
		yaml_field_error(d, &f[REF], "'%s' refers to no other object: 'ref' does not apply",
				 wl_catalogue[r->op].name);
	else if (f[REF].val && (s = yaml_str(d, &f[REF], "a field name")))
		r->ref = field_name_index(d, r, &f[REF], s);
	if (object && !f[KEY].val)
		yaml_field_error(d, &f[OP], "'%s' acts on an object: the rule needs 'key'",
				 wl_catalogue[r->op].name);
	if (refers && !f[REF].val)
		yaml_field_error(d, &f[OP], "'%s' refers to another object: the rule needs 'ref'",
				 wl_catalogue[r->op].name);
	if (f[FIELDS].val && fy_node_is_mapping(f[FIELDS].val)) {
		struct fy_node_pair *pair;
		void *it = NULL;

		while ((pair = fy_node_mapping_iterate(f[FIELDS].val, &it))) {
			struct yaml_field kv = { .key = fy_node_pair_key(pair),
						 .val = fy_node_pair_value(pair) };
			const char *fname = fy_node_get_scalar0(kv.key);
			int slot = fname ? slot_of(r->op, fname) : -ENOENT;

			field_name(kv.name, name, "fields", fname);
			if (slot == WL_ADAPTER) {
				yaml_field_error(d, &kv, "the adapter is the map's (import.adapter), not a rule's");
				continue;
			}
			if (slot < 0 || slot == WL_ID || slot == WL_REF) {
				yaml_field_error(d, &kv, "'%s' has no settable field '%s'",
						 wl_catalogue[r->op].name, fname ? fname : "?");
				continue;
			}
			sized |= slot == WL_BYTES;
			r->sets[r->nsets].slot = (enum wl_slot)slot;
			load_value(d, r, &kv, &r->sets[r->nsets++].v);
		}
	} else if (f[FIELDS].val) {
		yaml_field_error(d, &f[FIELDS], "expected a mapping of workload field to value");
	}
	/* a size left at zero would have the model refuse every event of the rule */
	size = slot_of(r->op, "bytes") == WL_BYTES ? "bytes" :
	       slot_of(r->op, "pages") == WL_BYTES ? "pages" : NULL;
	if (size && !sized && !yaml_failed(d))
		yaml_field_error(d, &f[OP], "'%s' needs its size: fields: {%s: ...}",
				 wl_catalogue[r->op].name, size);
	if (f[SPAN].val && !wl_destroys(r->op))
		yaml_field_error(d, &f[SPAN], "'%s' ends no object: 'span' is for a free or an unmap",
				 wl_catalogue[r->op].name);
	else if (f[SPAN].val && r->nkeys != 1)
		yaml_field_error(d, &f[SPAN], "'span' ends what lies at [key, key + span): the key "
				 "is one field, an address");
	else if (f[SPAN].val) {
		r->spans = true;
		load_value(d, r, &f[SPAN], &r->span);
	}
	load_where(d, r, name, &f[WHERE]);
}

/*
 * A condition's {not: VALUE}: @kv becomes the field of VALUE (named
 * "rules[N].where.FIELD.not"). Return: false after reporting.
 */
static bool load_not(struct yaml_doc *d, struct yaml_field *kv, const char *name,
		     const char *fname)
{
	static const char *const keys[] = { "not" };
	struct yaml_field not;
	char ctx[YAML_NAME_LEN];

	field_name(ctx, name, "where", fname);
	if (!yaml_fields(d, kv->val, kv->key, ctx, keys, 1, &not))
		return false;
	if (!not.val) {
		/* a mapping of other keys was reported (unknown key) by yaml_fields() */
		if (!fy_node_mapping_item_count(kv->val))
			yaml_field_error(d, kv, "expected a value or {not: VALUE}");
		return false;
	}
	kv->val = not.val;
	snprintf(kv->name, sizeof(kv->name), "%s", not.name);
	return true;
}

static void load_where(struct yaml_doc *d, struct rule *r, const char *name, struct yaml_field *w)
{
	if (w->val && fy_node_is_mapping(w->val)) {
		struct fy_node_pair *pair;
		void *it = NULL;

		while ((pair = fy_node_mapping_iterate(w->val, &it))) {
			struct yaml_field kv = { .key = fy_node_pair_key(pair),
						 .val = fy_node_pair_value(pair) };
			const char *fname = fy_node_get_scalar0(kv.key), *want;
			bool negate;
			int field;

			field_name(kv.name, name, "where", fname);
			if (r->nwhere == MAX_WHERE) {
				yaml_field_error(d, &kv, "at most %d conditions per rule", MAX_WHERE);
				return;
			}
			negate = fy_node_is_mapping(kv.val);
			if (negate && !load_not(d, &kv, name, fname))
				continue;
			want = yaml_str(d, &kv, "a value or {not: VALUE}");
			if (!fname || !want || (field = field_name_index(d, r, &kv, fname)) < 0)
				continue;
			r->where[r->nwhere].field = field;
			r->where[r->nwhere].negate = negate;
			if (!(r->where[r->nwhere++].str = strdup(want)))
				yaml_nomem(d);
		}
	} else if (w->val) {
		yaml_field_error(d, w, "expected a mapping of payload field to value");
	}
}

/* Rule @ri (just loaded from @node) joins the group of each class it names. */
static void group_rule(struct yaml_doc *d, struct import_map *m, size_t ri, struct fy_node *node)
{
	struct rule *r = &m->rules[ri];

	for (size_t e = 0; e < r->nevents; e++) {
		struct group *g = NULL;
		struct member *mb;

		for (size_t i = 0; i < m->ngroups && !g; i++)
			if (m->groups[i].file == r->file && !strcmp(m->groups[i].event, r->events[e]))
				g = &m->groups[i];
		if (!g) {
			if (array_reserve(&m->groups, &m->groups_cap, m->ngroups, sizeof(*m->groups))) {
				yaml_nomem(d);
				return;
			}
			g = &m->groups[m->ngroups++];
			*g = (struct group){ .event = r->events[e], .file = r->file };
		}
		if (g->nmembers && g->members[g->nmembers - 1].rule == ri)
			continue; /* the rule names the class twice */
		if (array_reserve(&g->members, &g->members_cap, g->nmembers, sizeof(*g->members))) {
			yaml_nomem(d);
			return;
		}
		mb = &g->members[g->nmembers++];
		mb->rule = ri;
		for (unsigned int f = 0; f < r->nnames; f++) {
			unsigned int k = 0;

			while (k < g->nnames && strcmp(g->names[k], r->names[f]))
				k++;
			if (k == CTF_MAX_FIELDS) {
				yaml_error(d, node, NULL,
					   "the rules of this map naming '%s' read more than %d payload fields together",
					   r->events[e], CTF_MAX_FIELDS);
				return;
			}
			if (k == g->nnames)
				g->names[g->nnames++] = r->names[f];
			mb->at[f] = (unsigned char)k;
		}
	}
}

static void load_file(struct yaml_doc *d, struct import_map *m, size_t file)
{
	static const char *const top_keys[] = { "import", "rules" };
	static const char *const import_keys[] = { "adapter", "memory_base" };
	struct yaml_field top[2], imp[2];
	char name[YAML_NAME_LEN];
	size_t index = 0;
	void *it = NULL;
	struct fy_node *node;

	if (!yaml_fields(d, yaml_root(d), NULL, "", top_keys, 2, top))
		return;
	if (top[0].val && yaml_fields(d, top[0].val, top[0].key, "import", import_keys, 2, imp)) {
		if (imp[0].val)
			yaml_u64(d, &imp[0], &m->adapter);
		if (imp[1].val)
			yaml_size(d, &imp[1], &m->memory_base);
	}
	if (!top[1].val) {
		yaml_error(d, yaml_root(d), NULL, "an import map needs 'rules'");
		return;
	}
	while ((node = yaml_items(d, &top[1], &it, &index, name))) {
		if (array_reserve(&m->rules, &m->rules_cap, m->nrules, sizeof(*m->rules))) {
			yaml_nomem(d);
			return;
		}
		memset(&m->rules[m->nrules], 0, sizeof(*m->rules));
		m->rules[m->nrules].file = file;
		load_rule(d, node, name, &m->rules[m->nrules++]);
		if (!yaml_failed(d))
			group_rule(d, m, m->nrules - 1, node);
	}
}

int import_map_load(const char *const *paths, size_t n, struct import_map **out, char *err,
		    size_t errlen)
{
	struct import_map *m = calloc(1, sizeof(*m));
	int rc = 0;

	if (!m)
		return -ENOMEM;
	m->memory_base = 16ull << 30;
	for (size_t i = 0; i < n && !rc; i++) {
		struct yaml_doc *d;

		rc = yaml_open(paths[i], &d);
		if (rc == -ENOMEM)
			break;
		if (!rc)
			load_file(d, m, i);
		/* the document holds what went wrong, a file that cannot be opened too */
		if (yaml_close(d, err, errlen) && !rc)
			rc = -EINVAL;
	}
	if (!rc)
		rc = u64map_init(&m->objects);
	if (rc) {
		import_map_free(m);
		return rc;
	}
	for (size_t i = 0; i < m->nrules; i++)
		m->spans |= m->rules[i].spans;
	*out = m;
	return 0;
}

void import_map_free(struct import_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nrules; i++) {
		struct rule *r = &m->rules[i];

		for (size_t j = 0; j < r->nevents; j++)
			free(r->events[j]);
		for (size_t j = 0; j < r->nnames; j++)
			free(r->names[j]);
		for (size_t j = 0; j < r->nwhere; j++)
			free(r->where[j].str);
	}
	for (size_t i = 0; i < m->ngroups; i++)
		free(m->groups[i].members);
	free(m->groups);
	free(m->rules);
	u64map_fini(&m->objects);
	free(m->extents);
	free(m->queue);
	free(m);
}

/* --- translating --- */

/* The group that owns a class: the first (of the first map file) naming it. */
static const struct group *owner(const struct import_map *m, const char *event)
{
	for (size_t i = 0; i < m->ngroups; i++)
		if (!strcmp(m->groups[i].event, event))
			return &m->groups[i];
	return NULL;
}

/* A class binds the fields its group's rules read. */
int import_bind(void *ctx, const char *event_name, struct ctf_binding *b)
{
	struct import_map *m = ctx;
	const struct group *g = owner(m, event_name);

	b->tag = -1;
	if (!g)
		return 0;
	b->tag = (int)(g - m->groups);
	b->n = g->nnames;
	for (unsigned int k = 0; k < b->n; k++)
		b->names[k] = g->names[k];
	for (size_t i = 0; i < g->nmembers; i++)
		m->rules[g->members[i].rule].bound = true;
	return 0;
}

int import_check_defined(const struct import_map *m, char *err, size_t errlen)
{
	size_t nfiles = 0;

	for (size_t i = 0; i < m->nrules; i++)
		nfiles = m->rules[i].file + 1 > nfiles ? m->rules[i].file + 1 : nfiles;
	for (size_t f = 0; f < nfiles; f++) {
		const struct rule *first = NULL;
		bool fits = false;

		for (size_t i = 0; i < m->nrules && !fits; i++) {
			const struct rule *r = &m->rules[i];

			if (r->file != f)
				continue;
			first = first ? first : r;
			fits = r->bound;
			/* a class an earlier map owns is defined, only taken by that map */
			for (size_t j = 0; j < r->nevents && !fits; j++) {
				const struct group *g = owner(m, r->events[j]);

				fits = g && g->file != f;
			}
		}
		if (first && !fits) {
			snprintf(err, errlen, "%s: the trace defines none of the event classes this "
				 "map's rules name ('%s'%s): a map for other events, or they were not "
				 "recorded", first->at, first->events[0],
				 m->nrules > 1 ? ", ..." : "");
			return -EINVAL;
		}
	}
	return 0;
}

uint64_t import_unmatched_ends(const struct import_map *m)
{
	return m->unmatched_ends;
}

void import_warn_unbound(const struct import_map *m)
{
	bool any = false;

	for (size_t i = 0; i < m->nrules; i++)
		any |= m->rules[i].bound;
	/* a map names events a trace may not have (calloc): only none at all is suspect */
	for (size_t i = 0; i < m->nrules; i++) {
		const struct rule *r = &m->rules[i];
		const struct group *g = NULL;

		if (r->bound)
			continue;
		for (size_t j = 0; j < r->nevents && !g; j++)
			if ((g = owner(m, r->events[j])) && g->file == r->file)
				g = NULL;
		if (g)
			log_msg(any ? LOG_INFO : LOG_ERROR, any ? LOG_PREFIX : LOG_PREFIX ": warning",
				"%s: '%s' belongs to an earlier map's rules (%s): the rule takes none of its events",
				r->at, g->event, m->rules[g->members[0].rule].at);
		else
			log_msg(any ? LOG_INFO : LOG_ERROR, any ? LOG_PREFIX : LOG_PREFIX ": warning",
				"%s: the trace has no event class '%s'%s: the rule took no event",
				r->at, r->events[0],
				r->nevents > 1 ? " (nor the others the rule names)" : "");
	}
}

/*
 * Whether field @f of the rule's event is there (as an integer unless
 * @str_ok); the first time it is not, say so: a misspelt name in a map
 * would otherwise only show as counts.
 */
static bool has(struct rule *r, int f, const struct ctf_value *vals, bool str_ok)
{
	if (vals[f].present && (str_ok || !vals[f].is_str))
		return true;
	if (!(r->warned & 1u << f)) {
		r->warned |= 1u << f;
		log_warn("%s: the rule's events have no %spayload field '%s': not used",
			 r->at, str_ok ? "" : "integer ", r->names[f]);
	}
	return false;
}

static uint64_t operand(const struct operand *o, const struct ctf_value *vals)
{
	return o->field < 0 ? o->c : vals[o->field].u;
}

static bool present(struct rule *r, const struct value *v, const struct ctf_value *vals)
{
	return (v->a.field < 0 || has(r, v->a.field, vals, false)) &&
	       (!v->op || v->b.field < 0 || has(r, v->b.field, vals, false));
}

static uint64_t evaluate(const struct value *v, const struct ctf_value *vals)
{
	uint64_t a = operand(&v->a, vals), b = v->op ? operand(&v->b, vals) : 0;

	if (v->op == '<')
		return b < 64 ? a << b : 0;
	return v->op == '*' ? a * b : a;
}

/* Foreign keys may be strings (a device name): fold those to a number. */
static uint64_t key_of(const struct ctf_value *v)
{
	if (!v->is_str)
		return v->u;
	return digest_fnv1a(DIGEST_FNV_BASIS, v->s, strlen(v->s));
}

/*
 * The key of rule @r's event: one field's value as key_of() gives it (so a
 * `ref` of one field finds it), or the fields of a longer key folded into
 * one number, each with its kind (a string "7" is not the integer 7).
 */
static uint64_t rule_key(const struct rule *r, const struct ctf_value *vals)
{
	uint64_t h = DIGEST_FNV_BASIS;

	if (r->nkeys == 1)
		return key_of(&vals[r->keys[0]]);
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct ctf_value *v = &vals[r->keys[i]];

		h = digest_fnv1a_word(h, v->is_str);
		h = v->is_str ? digest_fnv1a_str(h, v->s) : digest_fnv1a_word(h, v->u);
	}
	return h;
}

static bool matches(struct rule *r, const struct ctf_value *vals)
{
	for (size_t i = 0; i < r->nwhere; i++) {
		const struct ctf_value *v = &vals[r->where[i].field];
		uint64_t want;

		bool equal;

		if (!has(r, r->where[i].field, vals, true))
			return false;
		equal = v->is_str ? !strcmp(v->s, r->where[i].str)
				  : !parse_u64(r->where[i].str, &want) && want == v->u;
		if (equal == r->where[i].negate)
			return false;
	}
	return true;
}

/* --- extents: what a `span` rule ends --- */

/* The first extent that ends after @at (extents never overlap: keys are addresses). */
static size_t extent_find(const struct import_map *m, uint64_t at)
{
	size_t lo = 0, hi = m->nextents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->extents[mid].end <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An object created at @key, of @bytes: its extent from then on. */
static int extent_add(struct import_map *m, uint64_t key, uint64_t bytes)
{
	size_t i = extent_find(m, key);

	if (!bytes || key + bytes < key)
		return 0; /* no extent to end by address: ended by its key only */
	if (array_reserve(&m->extents, &m->extents_cap, m->nextents, sizeof(*m->extents)))
		return -ENOMEM;
	memmove(m->extents + i + 1, m->extents + i, (m->nextents - i) * sizeof(*m->extents));
	m->extents[i] = (struct span_obj){ key, key + bytes, bytes };
	m->nextents++;
	return 0;
}

static void extent_del(struct import_map *m, uint64_t key)
{
	size_t i = extent_find(m, key);

	if (i < m->nextents && m->extents[i].start == key) {
		memmove(m->extents + i, m->extents + i + 1, (m->nextents - i - 1) * sizeof(*m->extents));
		m->nextents--;
	}
}

static int queue_push(struct import_map *m, const struct wl_event *e)
{
	if (m->queue_head == m->nqueue)
		m->queue_head = m->nqueue = 0;
	if (array_reserve(&m->queue, &m->queue_cap, m->nqueue, sizeof(*m->queue)))
		return -ENOMEM;
	m->queue[m->nqueue++] = *e;
	return 0;
}

bool import_next(struct import_map *m, struct wl_event *e)
{
	if (m->queue_head == m->nqueue)
		return false;
	*e = m->queue[m->queue_head++];
	return true;
}

/* An event of a rule's that makes nothing: why, for import_unmatched_why(). */
static enum import_outcome unmatched(struct import_map *m, const char *why)
{
	m->unmatched_why = why;
	return IMPORT_UNMATCHED;
}

/*
 * A span rule's event: [key, key + span) is unmapped. Each object whose
 * extent it finishes ends (its destroy, in address order); one it covers
 * in part stays, with less of it mapped. Return: the outcome.
 */
static enum import_outcome translate_span(struct import_map *m, struct rule *r, uint64_t ts,
					  uint64_t key, const struct ctf_value *values,
					  struct wl_event *out, size_t *nout)
{
	uint64_t span, end;
	bool touched = false;
	size_t i;

	if (!present(r, &r->span, values))
		return unmatched(m, "a field its rule reads is missing");
	span = evaluate(&r->span, values);
	end = key + span < key ? UINT64_MAX : key + span;
	for (i = extent_find(m, key); i < m->nextents && m->extents[i].start < end;) {
		struct span_obj *x = &m->extents[i];
		uint64_t from = x->start > key ? x->start : key, to = x->end < end ? x->end : end;
		uint64_t *obj = u64map_get(&m->objects, x->start);
		struct wl_event e;

		touched = true;
		x->left -= to - from > x->left ? x->left : to - from;
		if (x->left || !obj) {
			i++;
			continue;
		}
		e = (struct wl_event){ .ts = ts, .kind = (uint32_t)wl_destroy_of((uint32_t)(*obj & 0xff)) };
		e.v[WL_ADAPTER] = m->adapter;
		e.v[WL_ID] = *obj >> 8;
		u64map_del(&m->objects, x->start);
		memmove(x, x + 1, (m->nextents - i - 1) * sizeof(*x));
		m->nextents--;
		if (*nout < 2)
			out[(*nout)++] = e;
		else if (queue_push(m, &e))
			return unmatched(m, "out of memory");
	}
	m->unmatched_ends += !touched; /* an unmap of what was mapped before the trace */
	return touched ? IMPORT_USED : unmatched(m, "its range covers no object the map made");
}

/* What rule @r makes of an event that passed its filter. */
static enum import_outcome translate(struct import_map *m, struct rule *r, uint64_t ts,
				     const struct ctf_value *values, struct wl_event *out, size_t *nout)
{
	struct wl_event *e = &out[0];
	uint64_t key = 0, *obj = NULL;

	*nout = 0;
	if (r->op == OP_PRESSURE) {
		uint64_t bytes;

		if (!present(r, &r->pressure, values))
			return unmatched(m, "a field its rule reads is missing");
		bytes = evaluate(&r->pressure, values);
		m->outstanding = r->sub ? (m->outstanding > bytes ? m->outstanding - bytes : 0)
					: m->outstanding + bytes;
		*e = (struct wl_event){ .ts = ts, .kind = WL_MEMORY };
		e->v[WL_OFFSET] = e->v[WL_BYTES] =
			m->memory_base > m->outstanding ? m->memory_base - m->outstanding : 0;
		*nout = 1;
		return IMPORT_USED;
	}
	if (r->nkeys) {
		for (size_t i = 0; i < r->nkeys; i++)
			if (!has(r, r->keys[i], values, true))
				return unmatched(m, "a field its rule reads is missing");
		key = rule_key(r, values);
		if (r->spans)
			return translate_span(m, r, ts, key, values, out, nout);
		obj = u64map_get(&m->objects, key);
	}
	if ((wl_destroys(r->op) || wl_uses(r->op)) && !obj) {
		m->unmatched_ends += wl_destroys(r->op);
		return unmatched(m, "no object was made under its key (its creation is not in the trace)");
	}
	if (wl_creates(r->op) && obj) {
		/* the key is reused without its free (lost event): end the old object first */
		*e = (struct wl_event){ .ts = ts, .kind = (uint32_t)wl_destroy_of((uint32_t)(*obj & 0xff)) };
		e->v[WL_ADAPTER] = m->adapter;
		e->v[WL_ID] = *obj >> 8;
		if (m->spans)
			extent_del(m, key);
		e++;
		(*nout)++;
	}
	*e = (struct wl_event){ .ts = ts, .kind = r->op };
	e->v[WL_ADAPTER] = m->adapter;
	if (r->ref >= 0) {
		uint64_t *target = has(r, r->ref, values, true) ?
			u64map_get(&m->objects, key_of(&values[r->ref])) : NULL;

		if (!target) {
			*nout = 0;
			return unmatched(m, "the object it refers to was never made");
		}
		e->v[WL_REF] = *target >> 8;
	}
	for (size_t i = 0; i < r->nsets; i++) {
		if (!present(r, &r->sets[i].v, values)) {
			*nout = 0;
			return unmatched(m, "a field its rule reads is missing");
		}
		e->v[r->sets[i].slot] = evaluate(&r->sets[i].v, values);
	}
	if (wl_creates(r->op)) {
		e->v[WL_ID] = ++m->next_id;
		if (u64map_put(&m->objects, key, e->v[WL_ID] << 8 | r->op) ||
		    (m->spans && r->nkeys == 1 && extent_add(m, key, e->v[WL_BYTES]))) {
			*nout = 0;
			return unmatched(m, "out of memory");
		}
	} else if (obj) {
		e->v[WL_ID] = *obj >> 8;
		if (wl_destroys(r->op))
			u64map_del(&m->objects, key);
		if (wl_destroys(r->op) && m->spans)
			extent_del(m, key);
	}
	(*nout)++;
	return IMPORT_USED;
}

enum import_outcome import_event(struct import_map *m, int tag, uint64_t ts,
				 const struct ctf_value *values, struct wl_event *out, size_t *nout)
{
	const struct group *g = &m->groups[tag];

	*nout = 0;
	m->unmatched_event = g->event;
	m->unmatched_why = "";
	for (size_t i = 0; i < g->nmembers; i++) {
		struct rule *r = &m->rules[g->members[i].rule];
		struct ctf_value vals[CTF_MAX_FIELDS];

		for (unsigned int f = 0; f < r->nnames; f++)
			vals[f] = values[g->members[i].at[f]];
		if (matches(r, vals))
			return translate(m, r, ts, vals, out, nout);
	}
	return IMPORT_IGNORED;
}

const char *import_unmatched_why(const struct import_map *m, const char **event)
{
	*event = m->unmatched_event ? m->unmatched_event : "";
	return m->unmatched_why ? m->unmatched_why : "";
}

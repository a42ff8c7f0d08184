/* SPDX-License-Identifier: MIT */
/* Loading import maps: their rules, checked, grouped by the event classes they name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/units.h"
#include "common/yaml.h"
#include "replay/import_internal.h"

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
	if (!units_parse_size(s, &o->c)) {
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
	struct yaml_field negated;
	char ctx[YAML_NAME_LEN];

	field_name(ctx, name, "where", fname);
	if (!yaml_fields(d, kv->val, kv->key, ctx, keys, 1, &negated))
		return false;
	if (!negated.val) {
		/* a mapping of other keys was reported (unknown key) by yaml_fields() */
		if (!fy_node_mapping_item_count(kv->val))
			yaml_field_error(d, kv, "expected a value or {not: VALUE}");
		return false;
	}
	kv->val = negated.val;
	snprintf(kv->name, sizeof(kv->name), "%s", negated.name);
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

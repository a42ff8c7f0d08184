/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "units.h"
#include "yaml_internal.h"

/*
 * A document's fields as its readers walk them: the known keys of a
 * mapping (an unknown one is an error that lists them), scalars parsed
 * strictly (common/units.h), and the items of sequences, each named for
 * messages ("rules[2].fields.bytes").
 */

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

const char *yaml_str(struct yaml_doc *d, const struct yaml_field *f, const char *what)
{
	const char *s;

	if (!fy_node_is_scalar(f->val) || node_is_null(f->val)) {
		yaml_field_error(d, f, "expected %s, got %s", what ? what : "a string",
				 node_kind(f->val));
		return NULL;
	}
	s = yaml_text(d, f->val);
	if (!s) {
		d->oom = true;
		return NULL;
	}
	return s;
}

/* An integer field at most @max (units_parse_uint_said()'s words on error). */
static bool yaml_uint(struct yaml_doc *d, const struct yaml_field *f, uint64_t max, uint64_t *out)
{
	const char *s = yaml_str(d, f, "an integer");
	char why[256];

	if (!s)
		return false;
	if (units_parse_uint_said(s, max, out, why, sizeof(why))) {
		yaml_field_error(d, f, "%s", why);
		return false;
	}
	return true;
}

bool yaml_u64(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out)
{
	return yaml_uint(d, f, UINT64_MAX, out);
}

bool yaml_u32(struct yaml_doc *d, const struct yaml_field *f, uint32_t *out)
{
	uint64_t v;

	if (!yaml_uint(d, f, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

bool yaml_size(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out)
{
	const char *s = yaml_str(d, f, "a size");
	int ret;

	if (!s)
		return false;
	ret = units_parse_size(s, out);
	if (ret == -ERANGE)
		yaml_field_error(d, f, "size '%s' does not fit in 64 bits", s);
	else if (ret)
		yaml_field_error(d, f,
				 "invalid size '%s' (expected an integer, 0x hex, or an integer with B, KiB, MiB, GiB or TiB)",
				 s);
	return ret == 0;
}

bool yaml_bool(struct yaml_doc *d, const struct yaml_field *f, bool *out)
{
	const char *s = yaml_str(d, f, "true or false");

	if (!s)
		return false;
	if (!strcmp(s, "true")) {
		*out = true;
	} else if (!strcmp(s, "false")) {
		*out = false;
	} else {
		yaml_field_error(d, f, "expected true or false, got '%s'", s);
		return false;
	}
	return true;
}

/* ---- mappings and sequences -------------------------------------------- */

/*
 * Names for messages. They are bounded (YAML_NAME_LEN); a name cut short
 * still points the reader at the right place, so truncation is accepted.
 */
static void join_name(char *dst, const char *ctx, const char *key)
{
	int n;

	if (ctx && *ctx)
		n = snprintf(dst, YAML_NAME_LEN, "%s.%s", ctx, key);
	else
		n = snprintf(dst, YAML_NAME_LEN, "%s", key);
	if (n < 0)
		dst[0] = '\0';
}

static void index_name(char *dst, const char *base, size_t index)
{
	if (snprintf(dst, YAML_NAME_LEN, "%s[%zu]", base, index) < 0)
		dst[0] = '\0';
}

bool yaml_fields(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner, const char *ctx,
		 const char *const *names, size_t n, struct yaml_field *fields)
{
	struct fy_node_pair *pair;
	void *it = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		fields[i].key = NULL;
		fields[i].val = NULL;
		join_name(fields[i].name, ctx, names[i]);
	}
	if (!fy_node_is_mapping(map) || node_is_null(map)) {
		yaml_error(d, map, owner, "%s: expected a mapping, got %s",
			   *ctx ? ctx : "top level", node_kind(map));
		return false;
	}
	while ((pair = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(pair);
		const char *ks = NULL;

		if (k && fy_node_is_scalar(k) && !node_is_null(k))
			ks = fy_node_get_scalar0(k);
		if (!ks) {
			yaml_error(d, k, map, "%s: keys must be plain strings, got %s",
				   *ctx ? ctx : "top level", node_kind(k));
			continue;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(ks, names[i]))
				break;
		if (i == n) {
			char list[512];
			size_t j, off = 0;

			list[0] = '\0';
			for (j = 0; j < n && off < sizeof(list); j++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							j ? ", " : "", names[j]);
			yaml_error(d, k, map, "%s: unknown key '%s' (expected one of: %s)",
				   *ctx ? ctx : "top level", ks, list);
			continue;
		}
		fields[i].key = k;
		fields[i].val = fy_node_pair_value(pair);
	}
	return true;
}

int yaml_count(struct yaml_doc *d, const struct yaml_field *f)
{
	int n;

	if (!fy_node_is_sequence(f->val)) {
		yaml_field_error(d, f, "expected a sequence, got %s", node_kind(f->val));
		return -1;
	}
	n = fy_node_sequence_item_count(f->val);
	return n < 0 ? -1 : n;
}

struct fy_node *yaml_items(struct yaml_doc *d, const struct yaml_field *f, void **it,
			   size_t *index, char *name)
{
	bool first = !*it;
	struct fy_node *item;

	if (first && !fy_node_is_sequence(f->val)) {
		yaml_field_error(d, f, "expected a sequence, got %s", node_kind(f->val));
		return NULL;
	}
	item = fy_node_sequence_iterate(f->val, it);
	if (!item)
		return NULL;
	if (!first)
		(*index)++;
	index_name(name, f->name, *index);
	return item;
}

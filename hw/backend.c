/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen)
{
	const char *bdf, *opt, *end;
	size_t n;

	*out = (struct hw_backend_name){ .kind = HW_BACKEND_SIM };
	if (!strcmp(name, "sim"))
		return 0;
	if (strncmp(name, "vfio:", 5))
		goto bad_name;
	bdf = name + 5;
	opt = strchr(bdf, ',');
	n = opt ? (size_t)(opt - bdf) : strlen(bdf);
	if (!n || n >= sizeof(out->bdf))
		goto bad_name;
	memcpy(out->bdf, bdf, n);
	out->bdf[n] = '\0';
	for (; opt; opt = end) {
		opt++;
		end = strchr(opt, ',');
		n = end ? (size_t)(end - opt) : strlen(opt);
		if (n == strlen("iommu=type1") && !strncmp(opt, "iommu=type1", n)) {
			out->iommu = HW_IOMMU_TYPE1;
		} else if (n == strlen("iommu=iommufd") && !strncmp(opt, "iommu=iommufd", n)) {
			out->iommu = HW_IOMMU_IOMMUFD;
		} else if (!strncmp(opt, "journal=", 8) && n > 8 &&
			   n - 8 < sizeof(out->journal)) {
			memcpy(out->journal, opt + 8, n - 8);
			out->journal[n - 8] = '\0';
		} else {
			goto bad_name;
		}
	}
	out->kind = HW_BACKEND_VFIO;
	return 0;

bad_name:
	*out = (struct hw_backend_name){ .kind = HW_BACKEND_SIM };
	snprintf(err, errlen,
		 "unknown backend '%s' (sim, or vfio:BDF such as vfio:0000:00:03.0, optionally with "
		 ",iommu=type1 or ,iommu=iommufd, and ,journal=PATH)", name);
	return -EINVAL;
}

int hw_settings_add(struct hw_settings *s, const char *key, const char *value, int key_line,
		    int key_col, int line, int col)
{
	struct hw_setting *v = realloc(s->v, (s->n + 1) * sizeof(*v));
	struct hw_setting *st;

	if (!v)
		return -ENOMEM;
	s->v = v;
	st = &v[s->n];
	*st = (struct hw_setting){ .key = strdup(key), .value = strdup(value),
				   .key_line = key_line, .key_col = key_col,
				   .line = line, .col = col };
	if (!st->key || !st->value) {
		free(st->key);
		free(st->value);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

void hw_settings_free(struct hw_settings *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		free(s->v[i].value);
	}
	free(s->v);
	free(s->file);
	memset(s, 0, sizeof(*s));
}

int hw_setting_error(const struct hw_settings *s, const struct hw_setting *st, bool at_key,
		     char *err, size_t errlen, const char *fmt, ...)
{
	size_t off = err && errlen ? strnlen(err, errlen - 1) : 0;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (off < errlen)
		snprintf(err + off, errlen - off, "%s:%d:%d: error: %s\n",
			 s->file ? s->file : "settings", at_key ? st->key_line : st->line,
			 at_key ? st->key_col : st->col, msg);
	return -EINVAL;
}

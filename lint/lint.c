/* SPDX-License-Identifier: MIT */
/* The HLK import scan (lint/lint.h): the rule, the findings, the report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/array.h"
#include "common/json.h"
#include "common/types.h"
#include "lint.h"

/*
 * The seed: "All memory allocation for contiguous memory and MDLs should
 * instead go through Dxgkrnl's callback interface [...]. The driver should
 * also not lock any memory. Dxgkrnl manages locked pages for the driver."
 */
const struct lint_rule lint_rules[] = {
	{ "MmAllocateContiguousMemory",
	  "contiguous memory the IOMMU does not map: allocate it with DxgkCbAllocateContiguousMemory" },
	{ "MmAllocateContiguousMemorySpecifyCache",
	  "contiguous memory the IOMMU does not map: allocate it with DxgkCbAllocateContiguousMemory" },
	{ "MmFreeContiguousMemory",
	  "contiguous memory comes from and goes back to Dxgkrnl: DxgkCbFreeContiguousMemory" },
	{ "MmAllocatePagesForMdl",
	  "MDL pages the IOMMU does not map: allocate them with DxgkCbAllocatePagesForMdl" },
	{ "MmAllocatePagesForMdlEx",
	  "MDL pages the IOMMU does not map: allocate them with DxgkCbAllocatePagesForMdl" },
	{ "MmFreePagesFromMdl",
	  "MDL pages come from and go back to Dxgkrnl: DxgkCbFreePagesFromMdl" },
	{ "MmProbeAndLockPages",
	  "the driver must not lock memory: Dxgkrnl manages locked pages (DxgkCbMapMdlToIoMmu maps an MDL of the driver's)" },
};
const size_t lint_nrules = ARRAY_SIZE(lint_rules);

static const char ordinal_reason[] =
	"cannot be checked by name; the scan cannot prove it is not one of the seven";

bool lint_check(const struct pe_import *imp, enum lint_kind *kind, const struct lint_rule **rule)
{
	*rule = NULL;
	if (strcasecmp(imp->dll, LINT_KERNEL))
		return false;
	if (imp->by_ordinal) {
		*kind = LINT_BY_ORDINAL;
		return true;
	}
	for (size_t i = 0; i < lint_nrules; i++) {
		if (!strcmp(imp->name, lint_rules[i].name)) {
			*kind = LINT_FORBIDDEN;
			*rule = &lint_rules[i];
			return true;
		}
	}
	return false;
}

int lint_driver(const char *path, struct lint_report *rep, char *err, size_t errlen)
{
	size_t cap = 0;
	int rc;

	memset(rep, 0, sizeof(*rep));
	rep->path = path;
	rc = pe_imports_read(path, &rep->imports, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < rep->imports.n; i++) {
		struct lint_finding f = { .import = i };

		if (!lint_check(&rep->imports.v[i], &f.kind, &f.rule))
			continue;
		if (array_reserve(&rep->findings, &cap, rep->nfindings, sizeof(f))) {
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
			lint_report_free(rep); /* a failed constructor leaves nothing */
			return -ENOMEM;
		}
		rep->findings[rep->nfindings++] = f;
	}
	return 0;
}

/* The finding of import @i, or NULL; *@k walks the findings (in import order) along with @i. */
static const struct lint_finding *finding_of(const struct lint_report *rep, size_t i, size_t *k)
{
	while (*k < rep->nfindings && rep->findings[*k].import < i)
		(*k)++;
	return *k < rep->nfindings && rep->findings[*k].import == i ? &rep->findings[*k] : NULL;
}

static size_t count_kind(const struct lint_report *rep, enum lint_kind kind)
{
	size_t n = 0;

	for (size_t k = 0; k < rep->nfindings; k++)
		n += rep->findings[k].kind == kind;
	return n;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

void lint_print_text(const struct lint_report *rep, FILE *f)
{
	size_t kernel = 0, forbidden = count_kind(rep, LINT_FORBIDDEN),
	       ordinals = count_kind(rep, LINT_BY_ORDINAL), k = 0;
	char kinds[128] = "";

	for (size_t i = 0; i < rep->imports.n; i++)
		kernel += !strcasecmp(rep->imports.v[i].dll, LINT_KERNEL);
	fprintf(f, "%s: %zu import%s from %s (%zu from other modules)\n", rep->path, kernel,
		plural(kernel), LINT_KERNEL, rep->imports.n - kernel);
	for (size_t i = 0; i < rep->imports.n; i++) {
		const struct pe_import *imp = &rep->imports.v[i];
		const struct lint_finding *fd = finding_of(rep, i, &k);
		char name[PE_MAX_NAME + 32];

		if (strcasecmp(imp->dll, LINT_KERNEL))
			continue;
		if (imp->by_ordinal)
			snprintf(name, sizeof(name), "ordinal %u", imp->ordinal);
		else
			snprintf(name, sizeof(name), "%s", imp->name);
		if (imp->delayed)
			strcat(name, " (delay-load)");
		if (!fd)
			fprintf(f, "  %s\n", name);
		else if (fd->kind == LINT_FORBIDDEN)
			fprintf(f, "  %-40s FORBIDDEN: %s\n", name, fd->rule->reason);
		else
			fprintf(f, "  %-40s UNCHECKABLE: imported by ordinal %u: %s\n", name,
				imp->ordinal, ordinal_reason);
	}
	if (forbidden)
		snprintf(kinds, sizeof(kinds), "%zu forbidden import%s%s", forbidden, plural(forbidden),
			 ordinals ? ", " : "");
	if (ordinals)
		snprintf(kinds + strlen(kinds), sizeof(kinds) - strlen(kinds), "%zu import%s by ordinal",
			 ordinals, plural(ordinals));
	if (!rep->nfindings)
		fprintf(f, "%s: clean: imports none of the %zu Mm functions the HLK import scan forbids\n",
			rep->path, lint_nrules);
	else
		fprintf(f, "%s: %zu finding%s: %s\n", rep->path, rep->nfindings, plural(rep->nfindings),
			kinds);
}

/* What names one import in the JSON report: its module, its name or ordinal, how it loads. */
static void json_import(struct json *j, const struct pe_import *imp)
{
	json_str(j, "dll", imp->dll);
	if (imp->by_ordinal)
		json_u64(j, "ordinal", imp->ordinal);
	else
		json_str(j, "name", imp->name);
	json_bool(j, "delay_load", imp->delayed);
}

int lint_print_json(const struct lint_report *rep, FILE *f)
{
	struct json j;
	size_t k = 0;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "file", rep->path);
	json_arr_begin(&j, "imports");
	for (size_t i = 0; i < rep->imports.n; i++) {
		const struct pe_import *imp = &rep->imports.v[i];
		const struct lint_finding *fd = finding_of(rep, i, &k);

		json_obj_begin(&j, NULL);
		json_import(&j, imp);
		/* by ordinal from the kernel: nobody can say */
		if (fd && fd->kind == LINT_BY_ORDINAL)
			json_null(&j, "forbidden");
		else
			json_bool(&j, "forbidden", fd != NULL);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "findings");
	for (size_t i = 0; i < rep->nfindings; i++) {
		const struct lint_finding *fd = &rep->findings[i];
		const struct pe_import *imp = &rep->imports.v[fd->import];

		json_obj_begin(&j, NULL);
		json_str(&j, "kind", fd->kind == LINT_FORBIDDEN ? "forbidden" : "by_ordinal");
		json_import(&j, imp);
		json_str(&j, "reason", fd->kind == LINT_FORBIDDEN ? fd->rule->reason : ordinal_reason);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_str(&j, "verdict", rep->nfindings ? "findings" : "clean");
	json_obj_end(&j);
	return json_end(&j);
}

void lint_report_free(struct lint_report *rep)
{
	pe_imports_free(&rep->imports);
	free(rep->findings);
	memset(rep, 0, sizeof(*rep));
}

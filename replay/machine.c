/* SPDX-License-Identifier: MIT */
/* machine_from_trace(): a scenario file from a trace's adapter events. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "replay/ctf.h"
#include "replay/machine.h"

#define ADAPTER_TYPE_SOFTWARE 0x4u          /* AdapterTypeMap: SoftwareDevice */
#define ADAPTER_TYPE_HYBRID_INTEGRATED 0x20u /* AdapterTypeMap: HybridIntegrated */

static const char *const adapter_events[] = {
	"Microsoft-Windows-DxgKrnl:Adapter/Start",
	"Microsoft-Windows-DxgKrnl:Adapter/DC_Start",
};

enum { F_ADAPTER, F_HIGHEST, F_TYPE, F_COUNT };

static const char *const adapter_fields[F_COUNT] = {
	[F_ADAPTER] = "pDxgAdapter", [F_HIGHEST] = "HighestAcceptableAddress",
	[F_TYPE] = "AdapterType",
};

/* One adapter of the trace: its first event. */
struct seen_adapter {
	uint64_t handle, highest, type;
	int tag;                 /* which of adapter_events */
	uint64_t index, ts;
};

struct machine_ctx {
	struct seen_adapter *v;
	size_t n, cap;
};

static int machine_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	b->tag = -1;
	for (size_t i = 0; i < sizeof(adapter_events) / sizeof(adapter_events[0]); i++)
		if (!strcmp(name, adapter_events[i]))
			b->tag = (int)i;
	b->n = F_COUNT;
	for (unsigned int i = 0; i < F_COUNT; i++)
		b->names[i] = adapter_fields[i];
	return 0;
}

static int machine_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			 const struct ctf_value *v)
{
	struct machine_ctx *m = ctx;

	if (!v[F_ADAPTER].present || !v[F_HIGHEST].present || !v[F_TYPE].present)
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].handle == v[F_ADAPTER].u)
			return 0;
	if (array_reserve(&m->v, &m->cap, m->n, sizeof(*m->v)))
		return -ENOMEM;
	m->v[m->n++] = (struct seen_adapter){ .handle = v[F_ADAPTER].u, .highest = v[F_HIGHEST].u,
					      .type = v[F_TYPE].u, .tag = tag, .index = index,
					      .ts = ts };
	return 0;
}

static void put_ranges(FILE *out, const struct range_extent *r, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s{base: 0x%" PRIx64 ", size: 0x%" PRIx64 "}", i ? ", " : "",
			r[i].base, r[i].size);
	fputc(']', out);
}

static void put_system(FILE *out, const struct scenario *base)
{
	const struct scn_system *s = &base->system;

	fprintf(out, "system:\n  memory: 0x%" PRIx64 "\n  os_memory_map: ", s->memory);
	put_ranges(out, s->os_memory_map, s->nmap);
	fprintf(out, "\n  commit_limit: 0x%" PRIx64 "\n  lockable_limit: 0x%" PRIx64 "\n",
		s->commit_limit, s->lockable_limit);
	fprintf(out, "registry:\n  iommu_flags: 0x%02x\n  secure_vm_staging: %s\n",
		base->registry.iommu_flags, base->registry.secure_vm_staging ? "true" : "false");
}

static void put_adapter(FILE *out, const struct seen_adapter *a, unsigned int nth,
			const struct scn_adapter *like, uint64_t top)
{
	bool visible = a->highest < top;
	unsigned int wddm = visible && like->wddm < SCN_WDDM(3, 0) ? SCN_WDDM(3, 0) : like->wddm;
	const struct scn_caps *c = &like->caps;

	fprintf(out, "  # pDxgAdapter 0x%" PRIx64 ": %s, event %" PRIu64 " at %" PRIu64 " ns;\n"
		"  # AdapterType 0x%" PRIx64 ", HighestAcceptableAddress 0x%" PRIx64 "%s\n",
		a->handle, adapter_events[a->tag], a->index, a->ts, a->type, a->highest,
		visible ? "" : " (all of memory)");
	fprintf(out, "  - name: gpu%u\n    wddm: \"%u.%u\"%s\n    integrated: %s\n", nth,
		wddm / 10, wddm % 10, wddm != like->wddm ?
		"   # the model takes a highest visible address from WDDM 3.0" : "",
		a->type & ADAPTER_TYPE_HYBRID_INTEGRATED ? "true" : "false");
	fprintf(out, "    caps:\n      iommu_secure_mode: %s\n      map_aperture2: %s\n"
		"      iommu_linear_remap: %s\n      dma_remapping_compatible: %u\n",
		c->iommu_secure_mode ? "true" : "false", c->map_aperture2 ? "true" : "false",
		c->iommu_linear_remap && wddm >= SCN_WDDM(3, 0) ? "true" : "false",
		c->dma_remapping_compatible);
	if (visible)
		fprintf(out, "      highest_visible_address: 0x%" PRIx64 "\n", a->highest);
	else if (c->has_physical_caps && wddm >= SCN_WDDM(3, 0))
		fprintf(out, "      highest_visible_address: 0x%" PRIx64 "\n",
			c->highest_visible_address);
	fprintf(out, "    fb_save_mode: %s\n    small_buffer: 0x%" PRIx64 "\n    physical:\n",
		like->fb_save_mode == FB_SAVE_SHARED ? "shared" : "per-adapter", like->small_buffer);
	for (size_t i = 0; i < like->nphys; i++) {
		const struct scn_phys *p = &like->phys[i];

		fprintf(out, "      - {vram: 0x%" PRIx64 ", fb_save_size: 0x%" PRIx64
			", populated_from_system: 0x%" PRIx64 ", reserved: ", p->vram,
			p->fb_save_size, p->populated_from_system);
		put_ranges(out, p->reserved, p->nreserved);
		fputs("}\n", out);
	}
}

int machine_from_trace(const char *trace, const struct scenario *base, const char *base_name,
		       FILE *out, char *err, size_t errlen)
{
	struct machine_ctx m = { 0 };
	uint64_t top = scenario_memory_top(&base->system);
	unsigned int hardware = 0;
	int rc;

	rc = ctf_read(trace, machine_bind, machine_event, &m, NULL, NULL, err, errlen);
	if (rc)
		goto free_adapters;
	for (size_t i = 0; i < m.n; i++)
		hardware += !(m.v[i].type & ADAPTER_TYPE_SOFTWARE);
	if (!hardware) {
		snprintf(err, errlen, "%s: no hardware adapter in the trace: it has no %s or %s event "
			 "of one (%zu of a software adapter); DxgKrnl writes one per adapter when a "
			 "session asks it to capture its state (xperf -capturestate)",
			 trace, adapter_events[0], adapter_events[1], m.n);
		rc = -ENOENT;
		goto free_adapters;
	}
	fprintf(out, "# The machine %s ran on (gpuiso scenario from-trace;\n"
		"# docs/scenario-format.md, \"From a trace\"): its adapters are the trace's,\n"
		"# with what the trace does not say of them (caps, VRAM, the LDA chain)\n"
		"# from %s's first adapter; the system and registry are %s's.\n",
		trace, base_name, base_name);
	put_system(out, base);
	fputs("adapters:\n", out);
	for (size_t i = 0, nth = 0; i < m.n; i++) {
		if (m.v[i].type & ADAPTER_TYPE_SOFTWARE) {
			fprintf(out, "  # pDxgAdapter 0x%" PRIx64 " (event %" PRIu64 "): a software "
				"adapter (AdapterType 0x%" PRIx64 "), which does no DMA: left out\n",
				m.v[i].handle, m.v[i].index, m.v[i].type);
			continue;
		}
		put_adapter(out, &m.v[i], (unsigned int)nth++, &base->adapters[0], top);
	}
	if (fflush(out) || ferror(out)) {
		snprintf(err, errlen, "cannot write the scenario: %s", strerror(errno));
		rc = -EIO;
	}
free_adapters:
	free(m.v);
	return rc;
}

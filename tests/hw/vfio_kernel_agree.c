/* SPDX-License-Identifier: MIT */
/*
 * vfio-kernel-agree TRACE.dat: the VFIO backend's journal, written into
 * the kernel's record through trace_marker (a replay with
 * --backend vfio:BDF,journal=/sys/kernel/tracing/trace_marker while ftrace
 * records iommu:map and iommu:unmap), judged against the kernel's own
 * events of that record (kernel_agree.h). scripts/vm-test runs it on the
 * recordings it brings out of the guest.
 *
 * Prints what was compared; exit 0 when the kernel agrees, 1 when it does
 * not (the first difference, both sides named), 2 when the record cannot
 * be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernel_agree.h"
#include "replay/ctf.h"

enum { TAG_PRINT, TAG_MAP, TAG_UNMAP };

struct reading {
	struct agree a;
	char why[1024];
	uint64_t lines;
};

static int bind(void *ctx, const char *name, struct ctf_binding *b)
{
	if (!strcmp(name, "ftrace:print")) {
		b->tag = TAG_PRINT;
		b->n = 1;
		b->names[0] = "buf";
	} else if (!strcmp(name, "iommu:map") || !strcmp(name, "iommu:unmap")) {
		b->tag = name[6] == 'm' ? TAG_MAP : TAG_UNMAP;
		b->n = 2;
		b->names[0] = "iova";
		b->names[1] = b->tag == TAG_MAP ? "size" : "unmapped_size";
	} else {
		b->tag = -1;
	}
	return 0;
}

static int on_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct reading *r = ctx;
	struct agree_event e = { .index = index, .ts = ts, .map = tag == TAG_MAP };

	if (tag == TAG_PRINT) {
		if (!v[0].present || !v[0].is_str)
			return 0;
		r->lines += !strncmp(v[0].s, "gpuiso-vfio ", 12);
		return agree_journal(&r->a, index, ts, v[0].s, r->why, sizeof(r->why));
	}
	if (!v[0].present || !v[1].present || v[0].is_str || v[1].is_str) {
		snprintf(r->why, sizeof(r->why), "event %" PRIu64 ": iommu:%s without its fields",
			 index, e.map ? "map" : "unmap");
		return -EPROTO;
	}
	e.iova = v[0].u;
	e.size = v[1].u;
	return agree_kernel(&r->a, &e);
}

int main(int argc, char **argv)
{
	static struct reading r;
	struct ctf_stats st;
	char err[1024] = "";
	int rc;

	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr, "usage: vfio-kernel-agree TRACE.dat\n"
			"  the VFIO backend's journal (trace_marker lines) against the kernel's\n"
			"  iommu:map and iommu:unmap events of the same record\n");
		return argc == 2 ? 0 : 2;
	}
	agree_init(&r.a);
	rc = ctf_read(argv[1], bind, on_event, &r, NULL, &st, err, sizeof(err));
	if (!rc)
		rc = agree_end(&r.a, r.why, sizeof(r.why));
	if (rc == -EINVAL && r.why[0]) {
		fprintf(stderr, "vfio-kernel-agree: %s: %s\n", argv[1], r.why);
		agree_fini(&r.a);
		return 1;
	}
	if (rc) {
		fprintf(stderr, "vfio-kernel-agree: %s\n", r.why[0] ? r.why : err);
		agree_fini(&r.a);
		return 2;
	}
	printf("%s: %" PRIu64 " events, %" PRIu64 " journal lines, %" PRIu64 " sessions\n"
	       "agree: %" PRIu64 " maps (%" PRIu64 " kernel maps), %" PRIu64 " unmaps (%" PRIu64
	       " kernel unmaps), %" PRIu64 " unmaps at close, %" PRIu64 " failed calls; %" PRIu64
	       " IOVA ranges compared\n"
	       "outside the sessions: %" PRIu64 " kernel events; the kernel's record ends with %zu "
	       "ranges mapped%s\n",
	       argv[1], st.events, r.lines, r.a.sessions, r.a.maps, r.a.kernel_maps, r.a.unmaps,
	       r.a.kernel_unmaps, r.a.teardown_unmaps, r.a.failed, r.a.ranges_compared, r.a.outside,
	       r.a.kernel.n, r.a.kernel_odd ? " (the record holds several domains: its maps overlap)" : "");
	rc = r.a.sessions ? 0 : 1;
	if (!r.a.sessions)
		fprintf(stderr, "vfio-kernel-agree: %s: no session of the backend in the record "
			"(journal=/sys/kernel/tracing/trace_marker?)\n", argv[1]);
	agree_fini(&r.a);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* The judge of the VFIO backend by the kernel's record (kernel_agree.h), on sequences made here. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "kernel_agree.h"

static uint64_t next_index;

static void kmap(struct agree *a, bool map, uint64_t iova, uint64_t size)
{
	struct agree_event e = { .index = next_index, .ts = next_index * 10, .map = map,
				 .iova = iova, .size = size };

	next_index++;
	cr_assert_eq(agree_kernel(a, &e), 0);
}

static int say(struct agree *a, const char *line, char *err, size_t len)
{
	next_index++;
	return agree_journal(a, next_index - 1, (next_index - 1) * 10, line, err, len);
}

static void ok(struct agree *a, const char *line)
{
	char err[512] = "";

	cr_assert_eq(say(a, line, err, sizeof(err)), 0, "%s: %s", line, err);
}

/* What type1 does: a map in runs of contiguous pages, unmaps by other runs, a teardown at close. */
Test(kernel_agree, a_run_the_kernel_agrees_with)
{
	struct agree a;
	char err[512] = "";

	agree_init(&a);
	kmap(&a, true, 0xdead000, 0x1000); /* before the session: not the backend's */
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	kmap(&a, true, 0x100000, 0x1000);
	kmap(&a, true, 0x101000, 0x3000);
	ok(&a, "gpuiso-vfio map iova=0x100000 size=0x4000 rc=0\n");
	kmap(&a, true, 0x200000, 0x2000);
	ok(&a, "gpuiso-vfio map iova=0x200000 size=0x2000 rc=0\n");
	kmap(&a, false, 0x102000, 0x2000); /* in another order than mapped */
	kmap(&a, false, 0x100000, 0x2000);
	ok(&a, "gpuiso-vfio unmap iova=0x100000 size=0x4000 rc=0\n");
	kmap(&a, true, 0x300000, 0x1000);
	kmap(&a, false, 0x300000, 0x1000); /* a map that failed half-way, taken back */
	ok(&a, "gpuiso-vfio map iova=0x300000 size=0x4000 rc=-12\n");
	kmap(&a, false, 0x200000, 0x2000); /* the kernel's teardown of what was left */
	ok(&a, "gpuiso-vfio close\n");
	cr_assert_eq(agree_end(&a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.sessions, 1);
	cr_assert_eq(a.maps, 2);
	cr_assert_eq(a.kernel_maps, 3);
	cr_assert_eq(a.unmaps, 1);
	cr_assert_eq(a.kernel_unmaps, 2);
	cr_assert_eq(a.teardown_unmaps, 1);
	cr_assert_eq(a.failed, 1);
	cr_assert_eq(a.outside, 1);
	cr_assert_eq(a.kernel.n, 1, "the kernel still maps the one event outside the session");
	cr_assert_eq(a.kernel_odd, 0);
	agree_fini(&a);
}

/* Each disagreement names the journal's line and the kernel's event, and fails. */
Test(kernel_agree, every_disagreement_names_both_sides)
{
	static const struct {
		const char *why;
		bool map[3];
		uint64_t iova[3], size[3];
		unsigned int n;
		const char *line, *want;
	} cases[] = {
		{ "another address", { true }, { 0x101000 }, { 0x1000 }, 1,
		  "gpuiso-vfio map iova=0x100000 size=0x1000 rc=0\n", "not the next piece" },
		{ "less than asked", { true }, { 0x100000 }, { 0x1000 }, 1,
		  "gpuiso-vfio map iova=0x100000 size=0x2000 rc=0\n", "the kernel mapped less" },
		{ "nothing at all", { 0 }, { 0 }, { 0 }, 0,
		  "gpuiso-vfio map iova=0x100000 size=0x2000 rc=0\n", "the kernel mapped nothing" },
		{ "out of order", { true, true }, { 0x101000, 0x100000 }, { 0x1000, 0x1000 }, 2,
		  "gpuiso-vfio map iova=0x100000 size=0x2000 rc=0\n", "not the next piece" },
		{ "an unmap in a map", { true, false }, { 0x100000, 0x100000 }, { 0x1000, 0x1000 }, 2,
		  "gpuiso-vfio map iova=0x100000 size=0x1000 rc=0\n", "an unmap inside a map call" },
		{ "a failed call's event elsewhere", { true }, { 0x900000 }, { 0x1000 }, 1,
		  "gpuiso-vfio map iova=0x100000 size=0x1000 rc=-22\n", "outside the range of a call" },
		{ "a line the journal never writes", { 0 }, { 0 }, { 0 }, 0,
		  "gpuiso-vfio remap iova=0x1 size=0x1 rc=0\n", "not a line the journal writes" },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct agree a;
		char err[512] = "";

		agree_init(&a);
		ok(&a, "gpuiso-vfio open api=iommufd bdf=0000:00:03.0\n");
		for (unsigned int i = 0; i < cases[c].n; i++)
			kmap(&a, cases[c].map[i], cases[c].iova[i], cases[c].size[i]);
		cr_assert_eq(say(&a, cases[c].line, err, sizeof(err)), -EINVAL, "%s", cases[c].why);
		cr_assert(strstr(err, cases[c].want), "%s: %s", cases[c].why, err);
		cr_assert(strstr(err, "journal 'gpuiso-vfio "), "%s: %s", cases[c].why, err);
		if (cases[c].n && !strstr(cases[c].want, "mapped less"))
			cr_assert(strstr(err, "against the kernel's iommu:"), "%s: %s", cases[c].why, err);
		agree_fini(&a);
	}
}

/* Unmaps: twice, outside, short, of what the journal never mapped; a close that leaves some. */
Test(kernel_agree, unmaps_and_the_close_are_held_to_what_was_mapped)
{
	struct agree a;
	char err[512];

	agree_init(&a);
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	kmap(&a, true, 0x100000, 0x4000);
	ok(&a, "gpuiso-vfio map iova=0x100000 size=0x4000 rc=0\n");
	kmap(&a, false, 0x100000, 0x2000);
	kmap(&a, false, 0x101000, 0x2000);
	cr_assert_eq(say(&a, "gpuiso-vfio unmap iova=0x100000 size=0x4000 rc=0\n", err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "unmapped twice"), "%s", err);
	agree_fini(&a);

	agree_init(&a);
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	cr_assert_eq(say(&a, "gpuiso-vfio unmap iova=0x100000 size=0x1000 rc=0\n", err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "the journal never mapped it"), "%s", err);
	agree_fini(&a);

	agree_init(&a);
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	kmap(&a, true, 0x100000, 0x2000);
	ok(&a, "gpuiso-vfio map iova=0x100000 size=0x2000 rc=0\n");
	kmap(&a, false, 0x100000, 0x1000);
	cr_assert_eq(say(&a, "gpuiso-vfio close\n", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "the kernel unmapped less than the call"), "%s", err);
	agree_fini(&a);

	agree_init(&a);
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	kmap(&a, true, 0x100000, 0x1000); /* a map no call of the backend asked for */
	cr_assert_eq(say(&a, "gpuiso-vfio close\n", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "a map inside an unmap") && strstr(err, "iommu:map iova=0x100000"),
		  "%s", err);
	agree_fini(&a);

	agree_init(&a);
	ok(&a, "gpuiso-vfio open api=type1 bdf=0000:00:03.0\n");
	cr_assert_eq(agree_end(&a, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "no 'gpuiso-vfio close'"), "%s", err);
	agree_fini(&a);
}

/* Lines of other trace_marker writers are not the journal's. */
Test(kernel_agree, other_markers_are_not_the_journals)
{
	struct agree a;

	agree_init(&a);
	ok(&a, "TRACE_MARKER_START\n");
	cr_assert_eq(a.sessions, 0);
	agree_fini(&a);
}

/* SPDX-License-Identifier: MIT */
/* `scenario explain`: the gpuiso-explain/1 document for each sample scenario. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "tests/common/jsonq.h"

static char *explain(const char *relpath, bool json)
{
	struct fx fx;
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_not_null(f);
	fx_load(&fx, relpath);
	fx_start(&fx);
	cr_assert_eq(core_explain(fx.core, f, json), 0);
	fclose(f);
	fx_fini(&fx);
	if (json)
		cr_assert(jsonq_valid(doc), "not valid JSON:\n%s", doc);
	return doc;
}

static void expect(const char *doc, const char *path, const char *want)
{
	char got[512];

	cr_assert(jsonq_get(doc, path, got, sizeof(got)), "%s missing in\n%s", path, doc);
	cr_assert_str_eq(got, want, "%s", path);
}

Test(explain, default_scenario)
{
	char *doc = explain("traces/scenarios/default.yaml", true);

	expect(doc, "schema", "gpuiso-explain/1");
	expect(doc, "adapters.0.name", "gpu0");
	expect(doc, "adapters.0.started", "true");
	expect(doc, "adapters.0.start_error", "null");
	expect(doc, "adapters.0.iommu", "enabled");
	expect(doc, "adapters.0.mappings", "true");
	expect(doc, "adapters.0.attached", "true");
	expect(doc, "adapters.0.attach_on", "start");
	expect(doc, "adapters.0.mode", "physical");
	expect(doc, "adapters.0.logical_limit", "null");
	expect(doc, "adapters.0.physical.0.index", "0");
	expect(doc, "adapters.0.physical.0.save_area", "67108864");
	char dom[32], pdom[32];

	cr_assert(jsonq_get(doc, "adapters.0.domain", dom, sizeof(dom)));
	cr_assert(jsonq_get(doc, "adapters.0.physical.0.domain", pdom, sizeof(pdom)));
	cr_assert_str_eq(dom, pdom);
	cr_assert_str_neq(dom, "null");
	free(doc);
}

Test(explain, lda_chain_shares_a_domain)
{
	char *doc = explain("traces/scenarios/lda-chain.yaml", true);
	char d0[32], d[32], path[64];

	cr_assert(jsonq_get(doc, "adapters.0.domain", d0, sizeof(d0)));
	for (int p = 0;; p++) {
		snprintf(path, sizeof(path), "adapters.0.physical.%d.domain", p);
		if (!jsonq_get(doc, path, d, sizeof(d))) {
			cr_assert_geq(p, 2, "an LDA chain has several physical adapters");
			break;
		}
		cr_assert_str_eq(d, d0, "%s", path);
	}
	free(doc);
}

Test(explain, logical_remap_reports_mode_limit_and_the_refused_adapter)
{
	char *doc = explain("traces/scenarios/logical-remap.yaml", true);
	char why[512];

	expect(doc, "adapters.0.mode", "logical");
	expect(doc, "adapters.0.logical_limit", "1099511627776");
	expect(doc, "adapters.1.started", "false");
	expect(doc, "adapters.1.domain", "null");
	expect(doc, "adapters.1.mode", "null");
	cr_assert(jsonq_get(doc, "adapters.1.start_error", why, sizeof(why)));
	cr_assert(strstr(why, "linear remapping"), "%s", why);
	free(doc);
}

/* An adapter that did not start shows why, and nothing it would have had. */
Test(explain, an_adapter_that_did_not_start_shows_only_why)
{
	char *doc = explain("traces/scenarios/logical-remap.yaml", true);
	char *text;

	expect(doc, "adapters.1.started", "false");
	expect(doc, "adapters.1.iommu", "null");
	expect(doc, "adapters.1.attach_on", "null");
	expect(doc, "adapters.1.physical.0.save_area", "null");
	expect(doc, "adapters.1.physical.0.saves", "null");
	free(doc);
	text = explain("traces/scenarios/logical-remap.yaml", false);
	cr_assert(strstr(text, "adapter gpu1-legacy: did not start\n  why:"), "%s", text);
	cr_assert_null(strstr(strstr(text, "gpu1-legacy"), "iommu:"), "%s", text);
	cr_assert_null(strstr(strstr(text, "gpu1-legacy"), "save area"), "%s", text);
	free(text);
}

Test(explain, shared_save_area_is_on_adapter_0)
{
	char *doc = explain("traces/scenarios/shared-save-area.yaml", true);
	char s0[32];

	cr_assert(jsonq_get(doc, "adapters.0.physical.0.save_area", s0, sizeof(s0)));
	cr_assert_neq(strtoull(s0, NULL, 10), 0);
	expect(doc, "adapters.0.physical.1.save_area", "0");
	/* the reference KMD's split of it: half each, one after the other */
	expect(doc, "adapters.0.physical.0.saves", "134217728");
	expect(doc, "adapters.0.physical.0.save_offset", "0");
	expect(doc, "adapters.0.physical.1.saves", "134217728");
	expect(doc, "adapters.0.physical.1.save_offset", "134217728");
	free(doc);
	doc = explain("traces/scenarios/shared-save-area.yaml", false);
	cr_assert(strstr(doc, "physical 1: save area 0B (saves 128MiB at offset 128MiB of the shared "
			      "section)"), "%s", doc);
	free(doc);
}

Test(explain, text_names_every_adapter_and_why)
{
	char *text = explain("traces/scenarios/logical-remap.yaml", false);

	cr_assert(strstr(text, "adapter gpu0: started"), "%s", text);
	cr_assert(strstr(text, "adapter gpu1-legacy: did not start"), "%s", text);
	cr_assert(strstr(text, "mode:      logical"), "%s", text);
	free(text);
}

Test(explain, the_json_checker_itself_rejects_bad_documents)
{
	char out[16];

	cr_assert(jsonq_valid("{\"a\": [1, 2.5e3, true, null, \"x\\n\"]}"));
	cr_assert_not(jsonq_valid("{\"a\": [1, 2,]}"));
	cr_assert_not(jsonq_valid("{\"a\" 1}"));
	cr_assert_not(jsonq_valid("{\"a\": 1} x"));
	cr_assert(jsonq_get("{\"a\": [0, {\"b\": \"c\"}]}", "a.1.b", out, sizeof(out)));
	cr_assert_str_eq(out, "c");
	cr_assert_not(jsonq_get("{\"a\": [0]}", "a.1", out, sizeof(out)));
}

/* Explain an adapter built by code: the document and its text. */
static void explain_fx(struct fx *fx, char **json, char **text)
{
	size_t len = 0;
	FILE *f;

	fx_start(fx);
	f = open_memstream(json, &len);
	cr_assert_eq(core_explain(fx->core, f, true), 0);
	fclose(f);
	cr_assert(jsonq_valid(*json), "not valid JSON:\n%s", *json);
	f = open_memstream(text, &len);
	cr_assert_eq(core_explain(fx->core, f, false), 0);
	fclose(f);
	fx_fini(fx);
}

/* "Discrete GPUs must support IOMMU DMA remapping ... for WDDM 3.0 certification." */
Test(explain, a_discrete_wddm30_gpu_without_remapping_is_a_certification_finding)
{
	char *doc, *text, got[512];
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].wddm = SCN_WDDM(3, 0);
	explain_fx(&fx, &doc, &text);
	expect(doc, "adapters.0.started", "true"); /* it may still start */
	expect(doc, "adapters.0.wddm", "3.0");
	expect(doc, "adapters.0.integrated", "false");
	cr_assert(jsonq_get(doc, "adapters.0.certification", got, sizeof(got)), "%s", doc);
	cr_assert(strstr(got, "discrete WDDM 3.0 GPU must support IOMMU DMA remapping"), "%s", got);
	/* what the default driver has (MapAperture2, DmaRemappingCompatible 3) is not listed */
	cr_assert(strstr(got, "missing: DXGK_IOMMU_CAPS linear remapping, DXGK_PHYSICAL_MEMORY_CAPS"),
		  "%s", got);
	cr_assert(strstr(text, "  certification: a discrete WDDM 3.0 GPU"), "%s", text);
	free(doc);
	free(text);
}

static void expect_no_certification_finding(void (*tweak)(struct fx *))
{
	char *doc, *text;
	struct fx fx;

	fx_defaults(&fx);
	tweak(&fx);
	explain_fx(&fx, &doc, &text);
	expect(doc, "adapters.0.certification", "null");
	cr_assert_null(strstr(text, "certification"), "%s", text);
	free(doc);
	free(text);
}

static void integrated_wddm30(struct fx *fx)
{
	fx->scn.adapters[0].wddm = SCN_WDDM(3, 0);
	fx->scn.adapters[0].integrated = true; /* optional for integrated parts */
}

static void discrete_wddm29(struct fx *fx)
{
	fx->scn.adapters[0].wddm = SCN_WDDM(2, 9); /* before the requirement */
}

static void discrete_wddm30_with_remapping(struct fx *fx)
{
	fx_remap_capable(fx, 0);
}

Test(explain, integrated_older_or_remapping_gpus_have_no_certification_finding)
{
	expect_no_certification_finding(integrated_wddm30);
	expect_no_certification_finding(discrete_wddm29);
	expect_no_certification_finding(discrete_wddm30_with_remapping);
}

/* Which memory callbacks the driver may call is shown, with why. */
Test(explain, memory_services_follow_the_driver_not_the_mode)
{
	char *doc, *text;
	struct fx fx;

	fx_defaults(&fx);
	explain_fx(&fx, &doc, &text);
	expect(doc, "adapters.0.memory_services", "wddm2.4");
	cr_assert(strstr(text, "driver:    WDDM 2.9, discrete"), "%s", text);
	cr_assert(strstr(text, "the WDDM 3.0 services are not the driver's version's"), "%s", text);
	free(doc);
	free(text);
	fx_defaults(&fx);
	fx.scn.adapters[0].wddm = SCN_WDDM(3, 0); /* without linear remapping */
	explain_fx(&fx, &doc, &text);
	expect(doc, "adapters.0.memory_services", "wddm2.4+3.0");
	free(doc);
	free(text);
	fx_defaults(&fx);
	fx_remap_capable(&fx, 0);
	explain_fx(&fx, &doc, &text);
	expect(doc, "adapters.0.mode", "physical");
	expect(doc, "adapters.0.memory_services", "wddm3.0");
	cr_assert(strstr(text, "the WDDM 2.4 callbacks are deprecated"), "%s", text);
	free(doc);
	free(text);
}

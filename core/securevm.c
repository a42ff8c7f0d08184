/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain_internal.h"
#include "gate_internal.h"
#include "internal.h"

/* Secure VMs: with the staging key, the first one attaches the adapter's domain. */

int core_secure_vm_create(struct core *core, unsigned int adapter)
{
	struct adapter *a = adapter_get(core, adapter);
	int rc;

	if (!a)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	if (core->scn->registry.secure_vm_staging) {
		/* AllowFailure does not apply here: no IOMMU support, no secure VM. */
		if (!a->caps.iommu_secure_mode)
			return -ENOTSUP;
		rc = dom_enable(core, a, true, true);
		if (rc)
			return rc;
	}
	a->secure_vms++;
	return 0;
}

int core_iommu_disable(struct core *core, unsigned int adapter)
{
	struct adapter *a = adapter_get(core, adapter);

	if (!a)
		return -ENOENT;
	return a->iommu_enabled ? -EPERM : -EINVAL;
}

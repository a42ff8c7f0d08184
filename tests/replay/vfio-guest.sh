#!/bin/sh
# SPDX-License-Identifier: MIT
# In the guest of scripts/vm-test: a short replay of a checked-in trace on the
# VFIO backend (frame-buffer saves and restores through edu's DMA), through
# iommufd (the guest kernel has it, so the backend picks it), then the same
# with /dev/iommu out of sight (so the backend falls back to a type1
# container) and the first pin of the save area failing (the chunked path).
set -e
trace=$GPUISO_SOURCE_ROOT/traces/vfio-short
scenario=$GPUISO_SOURCE_ROOT/traces/scenarios/vfio-edu.yaml

expect() { # TEXT PATTERN WHAT
	echo "$1" | grep -q "$2" || { echo "replay-vfio: expected $3 ($2)"; exit 1; }
}

out=$("$GPUISO_BIN" replay "$trace" --scenario "$scenario" --backend "vfio:$BDF" --no-cache \
	--json /tmp/replay-vfio.json)
echo "$out"
expect "$out" "^backend: vfio/iommufd$" "iommufd where the kernel has it"
expect "$out" "power: 2 transitions, 2 completed (2 pinned, 0 chunked), 0 reset" "both transitions pinned"
expect "$out" "violations: 0" "no violation"
expect "$(cat /tmp/replay-vfio.json)" "\"backend\": *\"vfio:$BDF\"" "the backend in the results"

# a kernel without iommufd: the automatic choice falls back to type1, asking for iommufd fails clearly
mv /dev/iommu /dev/iommu.hidden
trap 'mv /dev/iommu.hidden /dev/iommu' EXIT
out=$("$GPUISO_BIN" replay "$trace" --scenario "$scenario" --backend "vfio:$BDF" --no-cache \
	--fail-nth fbsave/pin:1)
echo "$out"
expect "$out" "^backend: vfio/type1$" "type1 without /dev/iommu"
expect "$out" "power: 2 transitions, 2 completed (1 pinned, 1 chunked), 0 reset" "the chunked path"
expect "$out" "violations: 0" "no violation"
rc=0
err=$("$GPUISO_BIN" replay "$trace" --scenario "$scenario" --backend "vfio:$BDF,iommu=iommufd" 2>&1) || rc=$?
echo "$err"
[ "$rc" = 3 ] || { echo "replay-vfio: expected exit 3 for iommufd without /dev/iommu, got $rc"; exit 1; }
expect "$err" "this kernel has no iommufd" "the reason"
mv /dev/iommu.hidden /dev/iommu
trap - EXIT
# a device not bound to vfio-pci: a clear error, exit 3
for d in /sys/bus/pci/devices/*; do
	other=$(basename "$d")
	[ "$other" != "$BDF" ] && break
done
rc=0
err=$("$GPUISO_BIN" replay "$trace" --scenario "$scenario" --backend "vfio:$other" 2>&1) || rc=$?
echo "$err"
[ "$rc" = 3 ] || { echo "replay-vfio: expected exit 3 for $other, got $rc"; exit 1; }
expect "$err" "not bound to vfio-pci" "the reason"
# scenario explain builds the model on the backend the scenario names: the real device
{ printf 'backend: vfio:%s\n' "$BDF"; cat "$scenario"; } > /tmp/vfio-named.yaml
out=$("$GPUISO_BIN" scenario explain /tmp/vfio-named.yaml)
echo "$out"
expect "$out" "adapter edu0: started" "the model explained on the device"
expect "$out" "iommu:     enabled, mappings, attached" "its domain attached through VFIO"
echo "replay-vfio: ok"

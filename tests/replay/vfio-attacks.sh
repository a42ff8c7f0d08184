#!/bin/sh
# SPDX-License-Identifier: MIT
# In the guest of scripts/vm-test: the attack traces (traces/attacks/) that
# expected.txt runs on vfio-edu.yaml, replayed on the VFIO backend. For each,
# the pages the guest kernel's own fault reports name (vm_kernel_faults,
# scripts/vm/guest.sh: each IOMMU's driver words them its own way) must be
# exactly the pages the model says were blocked, and the reasons must be
# those expected.txt lists. The kernel ratelimits these lines (10 per 5 s):
# each replay starts 6 s after the last. Where the kernel reports no blocked
# DMA at all (GPUISO_VFIO_NO_FAULT_REPORTS=1: vm-test found so behind QEMU
# 7.2's AMD-Vi), the model's verdicts are checked alone, and it says so.
set -e
. /lib/gpuiso-vm.sh
root=$GPUISO_SOURCE_ROOT
scenario=$root/traces/scenarios/vfio-edu.yaml
fail() { echo "vfio-attacks: $*"; exit 1; }

n=0
grep -v '^#' "$root/traces/attacks/expected.txt" | while read -r attack scn outcome reasons; do
	[ "$scn" = vfio-edu ] || continue
	n=$((n + 1))
	[ "$outcome" = blocked ] || fail "$attack: only blocked outcomes run on VFIO"
	rm -rf "/tmp/attack-$attack"
	"$GPUISO_BIN" trace make "$root/traces/attacks/$attack.txt" -o "/tmp/attack-$attack" >/dev/null
	sleep 6
	dmesg -c >/dev/null
	rc=0
	"$GPUISO_BIN" replay "/tmp/attack-$attack" --scenario "$scenario" --backend "vfio:$BDF" \
		--no-cache --json "/tmp/attack-$attack.json" >"/tmp/attack-$attack.out" 2>&1 || rc=$?
	cat "/tmp/attack-$attack.out"
	[ $rc = 1 ] || fail "$attack: exit $rc (a blocked DMA is exit 1)"
	vm_kernel_faults "$BDF" >"/tmp/attack-$attack.kernel"
	# the model's: the first page of each blocked DMA (the records before exposed_first)
	sed -n '/"blocked_first"/,/"exposed_first"/p' "/tmp/attack-$attack.json" |
		grep -o '"address": *[0-9]*' | grep -o '[0-9]*$' | sort -n | uniq >"/tmp/attack-$attack.model"
	echo "vfio-attacks: $attack: kernel reported $(tr '\n' ' ' <"/tmp/attack-$attack.kernel")," \
		"model blocked $(tr '\n' ' ' <"/tmp/attack-$attack.model")"
	[ -s "/tmp/attack-$attack.model" ] || fail "$attack: the model blocked nothing"
	[ "${GPUISO_VFIO_NO_FAULT_REPORTS:-0}" = 1 ] ||
		cmp -s "/tmp/attack-$attack.kernel" "/tmp/attack-$attack.model" ||
		fail "$attack: the kernel's fault reports and the model's blocked DMA differ"
	for r in $(echo "$reasons" | tr ',' ' '); do
		grep -q "\"$r\": *1" "/tmp/attack-$attack.json" || fail "$attack: not blocked as $r"
	done
	echo "$n" >/tmp/attacks-run
done
[ "$(cat /tmp/attacks-run 2>/dev/null)" -gt 0 ] || fail "no attack ran on vfio-edu"
if [ "${GPUISO_VFIO_NO_FAULT_REPORTS:-0}" = 1 ]; then
	echo "vfio-attacks: ok ($(cat /tmp/attacks-run) attacks; the kernel reports no blocked DMA here: the model's verdicts only)"
else
	echo "vfio-attacks: ok ($(cat /tmp/attacks-run) attacks, the kernel agrees)"
fi

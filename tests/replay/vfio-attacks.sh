#!/bin/sh
# SPDX-License-Identifier: MIT
# In the guest of scripts/vm-test: the attack traces (traces/attacks/) that
# expected.txt runs on vfio-edu.yaml, replayed on the VFIO backend. For each,
# the guest kernel's own fault reports (the kernel log) must name exactly
# the pages the model says were blocked, one report each, and the reasons
# must be those expected.txt lists. Each IOMMU's driver reports in its own
# words (the model is gpuiso_iommu= on the kernel's command line):
#   vtd     DMAR: [DMA Write NO_PASID] Request device [00:03.0] fault addr 0x1000 ...
#   amd-vi  vfio-pci 0000:00:03.0: Event logged [IO_PAGE_FAULT domain=0x0002 address=0x1000 flags=0x0020]
#   virtio  virtio_iommu virtio1: page fault from EP 24 at 0x1000 [W]   (EP: the requester id)
# The kernel ratelimits these lines (10 per 5 s): each replay starts 6 s
# after the last.
set -e
root=$GPUISO_SOURCE_ROOT
scenario=$root/traces/scenarios/vfio-edu.yaml
fail() { echo "vfio-attacks: $*"; exit 1; }
model=$(sed -n 's/.*gpuiso_iommu=\([a-z-]*\).*/\1/p' /proc/cmdline)
bdf=${BDF#0000:}
# the requester id virtio-iommu names an endpoint by: bus << 8 | device << 3 | function
bus=${bdf%%:*}; dev=${bdf#*:}; dev=${dev%.*}; fn=${bdf##*.}
ep=$(( (0x$bus << 8) | (0x$dev << 3) | fn ))

# the fault addresses the kernel reported for edu, one a line, in hex
kernel_faults() {
	case $model in
	amd-vi) dmesg | grep "$BDF: Event logged \[IO_PAGE_FAULT " | sed 's/.* address=\(0x[0-9a-f]*\).*/\1/' ;;
	virtio) dmesg | grep " fault from EP $ep at " | sed 's/.* at \(0x[0-9a-f]*\).*/\1/' ;;
	*) dmesg | grep "DMAR: \[DMA .*Request device \[$bdf\] fault addr" |
		sed 's/.*fault addr \(0x[0-9a-f]*\).*/\1/' ;;
	esac
}

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
	# the kernel's reports for edu, their pages in decimal, sorted
	kernel_faults | while read -r a; do printf '%d\n' $((a & ~0xfff)); done |
		sort -n >"/tmp/attack-$attack.kernel"
	# the model's: the first page of each blocked DMA (the records before exposed_first)
	sed -n '/"blocked_first"/,/"exposed_first"/p' "/tmp/attack-$attack.json" |
		grep -o '"address": *[0-9]*' | grep -o '[0-9]*$' | sort -n >"/tmp/attack-$attack.model"
	echo "vfio-attacks: $attack: kernel reported $(tr '\n' ' ' <"/tmp/attack-$attack.kernel")," \
		"model blocked $(tr '\n' ' ' <"/tmp/attack-$attack.model")"
	[ -s "/tmp/attack-$attack.model" ] || fail "$attack: the model blocked nothing"
	cmp -s "/tmp/attack-$attack.kernel" "/tmp/attack-$attack.model" ||
		fail "$attack: the kernel's fault reports ($model) and the model's blocked DMA differ"
	for r in $(echo "$reasons" | tr ',' ' '); do
		grep -q "\"$r\": *1" "/tmp/attack-$attack.json" || fail "$attack: not blocked as $r"
	done
	echo "$n" >/tmp/attacks-run
done
[ "$(cat /tmp/attacks-run 2>/dev/null)" -gt 0 ] || fail "no attack ran on vfio-edu"
echo "vfio-attacks: ok ($(cat /tmp/attacks-run) attacks, the kernel agrees)"

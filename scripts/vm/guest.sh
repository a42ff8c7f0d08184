# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# scripts/vm/guest.sh - the guest's half of scripts/vm/lib.sh: sourced by the
# guest's /init (busybox sh) as /lib/gpuiso-vm.sh. Every name starts with vm_.

# vm_export NAME FILE: sends FILE out of the guest as NAME, on the second
# serial port (ttyS1; the host's vm_files_decode writes it to DIR/NAME and
# checks its size and SHA-256). NAME is [A-Za-z0-9._-]+.
vm_export() {
	[ -f "$2" ] || { echo "vm_export: $2: no such file" >&2; return 1; }
	# raw: no carriage return added to a line end, nothing echoed back
	stty -F /dev/ttyS1 raw -echo || return 1
	{
		echo "VMFILE-BEGIN $1 $(stat -c %s "$2")"
		base64 "$2"
		echo "VMFILE-END $1 $(sha256sum "$2" | cut -c1-64)"
	} >/dev/ttyS1
}

# vm_trace_record OUT EVENTS COMMAND [ARGS...]: runs COMMAND while ftrace
# records the trace events EVENTS (a space-separated list of SYSTEM or
# SYSTEM:NAME, as trace-cmd's -e takes them) and writes the recording to OUT,
# a trace-cmd trace.dat (file version 7) holding the formats of those events
# only, and no symbol table: trace-cmd copies /proc/kallsyms into every
# file (0.9 MB here, since KPROBES needs KALLSYMS) and nothing recorded needs
# it, so it reads /dev/null there (a bind mount, for the recording only).
# Recording stops when COMMAND exits (what it leaves running is not recorded
# further). Returns trace-cmd's status. Not compressed: trace-cmd (3.1.6, and
# 3.4 still) writes a damaged compressed file on a kernel without
# /proc/kallsyms (read_proc_kallsyms() leaves the compression on when the
# file is missing, and the next section's size lands at offset 12, over the
# file header).
vm_trace_record() {
	_vm_out=$1
	_vm_ev=
	for _vm_e in $2; do _vm_ev="$_vm_ev -e $_vm_e"; done
	shift 2
	mount -o bind /dev/null /proc/kallsyms || return 1
	# shellcheck disable=SC2086 # one -e per event
	trace-cmd record -q -b 4096 --compression none -o "$_vm_out" $_vm_ev "$@" >/tmp/trace-cmd.log 2>&1
	_vm_rc=$?
	umount /proc/kallsyms
	[ $_vm_rc = 0 ] || cat /tmp/trace-cmd.log
	return $_vm_rc
}

# vm_dma_probes_add: kprobe events (group `kprobes`, each named after its
# function) on the entries of the DMA-API calls that map and unmap: the
# dma:* tracepoints are written when dma_map_page_attrs,
# dma_unmap_page_attrs and the scatterlist map (__dma_map_sg_attrs, under
# dma_map_sg_attrs and dma_map_sgtable) return, and when dma_unmap_sg_attrs
# starts, so its return is probed too (dma_unmap_sg_attrs__return). A call's
# cost in the kernel is then in the trace (bench/kernel-cost,
# docs/cost-model.md). vm_dma_probes_del removes every kprobe event.
vm_dma_probes_add() {
	for _vm_p in 'p:dma_map_page_attrs dma_map_page_attrs' 'p:dma_unmap_page_attrs dma_unmap_page_attrs' \
		'p:dma_map_sg_attrs dma_map_sg_attrs' 'p:dma_map_sgtable dma_map_sgtable' \
		'p:dma_unmap_sg_attrs dma_unmap_sg_attrs' 'r:dma_unmap_sg_attrs__return dma_unmap_sg_attrs'; do
		echo "$_vm_p" >>/sys/kernel/tracing/kprobe_events ||
			{ echo "vm_dma_probes_add: the kernel refuses '$_vm_p'"; return 1; }
	done
}

vm_dma_probes_del() {
	: >/sys/kernel/tracing/kprobe_events
}

# vm_drm_hold COUNTS: runs /bin/drm-exercise --hold in the background (its
# pid to /tmp/drm-exercise.pid) and returns once its last line (it is done)
# is in COUNTS, the buffers it leaves alive still held; 1 if it stops first
# or is not done within 120 s. The command a recorder runs:
#   /bin/sh -c '. /lib/gpuiso-vm.sh && vm_drm_hold "$1"' drm-exercise COUNTS
vm_drm_hold() {
	/bin/drm-exercise --hold >"$1" 2>/tmp/drm-exercise.err &
	echo $! >/tmp/drm-exercise.pid
	_vm_n=0
	until grep -q "^bytes_written " "$1"; do
		kill -0 $! 2>/dev/null || return 1
		_vm_n=$((_vm_n + 1))
		[ $_vm_n -lt 1200 ] || return 1
		sleep 0.1
	done
}

# vm_drm_release COUNTS: ends what vm_drm_hold started and says whether it
# was done (COUNTS holds its last line). Its buffers are released as it
# ends, and their unmaps follow as the device answers: a second past its
# end, so that a recording after this one holds none of them.
vm_drm_release() {
	if [ -f /tmp/drm-exercise.pid ]; then
		_vm_pid=$(cat /tmp/drm-exercise.pid)
		kill "$_vm_pid" 2>/dev/null
		_vm_n=0
		while kill -0 "$_vm_pid" 2>/dev/null && [ $_vm_n -lt 100 ]; do
			_vm_n=$((_vm_n + 1))
			sleep 0.1
		done
		sleep 1
	fi
	rm -f /tmp/drm-exercise.pid
	cat /tmp/drm-exercise.err
	grep -q '^bytes_written ' "$1" || { echo "drm-exercise did not finish"; return 1; }
}

# vm_virtio_gpu_info: virtio-gpu (1af4:1050) in a DMA domain of its own,
# translated by the VT-d: its IOMMU group and the domain's type, on the console
vm_virtio_gpu_info() {
	for _vm_d in /sys/bus/pci/devices/*; do
		[ "$(cat "$_vm_d/vendor"):$(cat "$_vm_d/device")" = 0x1af4:0x1050 ] || continue
		_vm_g=$(readlink "$_vm_d/iommu_group")
		_vm_g=${_vm_g##*/}
		echo "VMTEST-INFO virtio-gpu ${_vm_d##*/} group $_vm_g type $(cat "/sys/kernel/iommu_groups/$_vm_g/type")"
	done
}

# vm_record_drm OUT COUNTS: the recording of scripts/record-guest and of
# vm-test's recording stage: the virtio_gpu, dma and iommu events and the
# kprobe events of vm_dma_probes_add while /bin/drm-exercise
# (scripts/vm/drm-exercise.c) drives /dev/dri/card0, stopped while the
# buffers it leaves alive still are (it is ended after); the trace.dat to
# OUT, what the program did (its NAME COUNT lines) to COUNTS.
vm_record_drm() {
	[ -c /dev/dri/card0 ] || { echo "vm_record_drm: no /dev/dri/card0"; return 1; }
	vm_virtio_gpu_info
	rm -f "$2" /tmp/drm-exercise.pid
	vm_dma_probes_add || return 1
	# shellcheck disable=SC2016 # $1: the inner shell's
	vm_trace_record "$1" "virtio_gpu dma iommu kprobes" \
		/bin/sh -c '. /lib/gpuiso-vm.sh && vm_drm_hold "$1"' drm-exercise "$2"
	_vm_rc=$?
	vm_drm_release "$2" || _vm_rc=1
	vm_dma_probes_del
	return $_vm_rc
}

# vm_perf_record OUT EVENTS COMMAND [ARGS...]: runs COMMAND while
# `perf record -a` records the tracepoints EVENTS (a space-separated list of
# SYSTEM:NAME) and writes perf.data to OUT (no build-ids: nothing samples
# code). Returns perf's status, its messages on the console when it fails.
vm_perf_record() {
	_vm_out=$1
	_vm_ev=
	for _vm_e in $2; do _vm_ev="$_vm_ev -e $_vm_e"; done
	shift 2
	# shellcheck disable=SC2086 # one -e per event
	HOME=/tmp perf record -q -B -N -a -o "$_vm_out" $_vm_ev -- "$@" >/tmp/perf.log 2>&1
	_vm_rc=$?
	[ $_vm_rc = 0 ] || cat /tmp/perf.log
	return $_vm_rc
}

# vm_record_drm_perf OUT COUNTS EVENTS: vm_record_drm's run of
# drm-exercise, recorded by perf (vm_perf_record) instead of trace-cmd:
# perf.data to OUT, what the program did to COUNTS
vm_record_drm_perf() {
	[ -c /dev/dri/card0 ] || { echo "vm_record_drm_perf: no /dev/dri/card0"; return 1; }
	rm -f "$2" /tmp/drm-exercise.pid
	# shellcheck disable=SC2016 # $1: the inner shell's
	vm_perf_record "$1" "$3" /bin/sh -c '. /lib/gpuiso-vm.sh && vm_drm_hold "$1"' drm-exercise "$2"
	_vm_rc=$?
	vm_drm_release "$2" || _vm_rc=1
	return $_vm_rc
}

# vm_iommu_model: the IOMMU the guest was booted behind (gpuiso_iommu= on the
# kernel's command line: vtd, amd-vi or virtio)
vm_iommu_model() {
	sed -n 's/.*gpuiso_iommu=\([a-z-]*\).*/\1/p' /proc/cmdline
}

# vm_kernel_faults BDF: the pages (in decimal, sorted, each once) the kernel
# reported blocked DMA of PCI device BDF at, in the words of the guest's IOMMU
# (gpuiso_iommu= on the command line; hw/vfio/faultlog.h):
#   vtd     DMAR: [DMA Write NO_PASID] Request device [00:03.0] fault addr 0x1000 ...
#   amd-vi  vfio-pci 0000:00:03.0: Event logged [IO_PAGE_FAULT domain=0x0002 address=0x1000 flags=0x0020]
#   virtio  virtio_iommu virtio0: page fault from EP 24 at 0x1000 [W]   (EP: the requester id)
# virtio-iommu reports every access of a blocked DMA (QEMU 7.2: each 4 bytes
# edu moves), so a page is listed once however often it was reported.
vm_kernel_faults() {
	local bdf=${1#0000:} model bus dev fn
	model=$(vm_iommu_model)
	bus=${bdf%%:*} dev=${bdf#*:} fn=${bdf##*.}
	dev=${dev%.*}
	case $model in
	amd-vi) dmesg | grep "$1: Event logged \[IO_PAGE_FAULT " | sed 's/.* address=\(0x[0-9a-f]*\).*/\1/' ;;
	virtio) dmesg | grep " fault from EP $(( (0x$bus << 8) | (0x$dev << 3) | fn )) at " |
		sed 's/.* at \(0x[0-9a-f]*\).*/\1/' ;;
	*) dmesg | grep "DMAR: \[DMA .*Request device \[$bdf\] fault addr" | sed 's/.*fault addr \(0x[0-9a-f]*\).*/\1/' ;;
	esac | while read -r a; do echo $((a & ~0xfff)); done | sort -n | uniq
}

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
# only; recording stops when COMMAND exits (what it leaves running is not
# recorded further). Returns trace-cmd's status. Not compressed: trace-cmd
# (3.1.6, and 3.4 still) writes a damaged compressed file on a kernel without
# /proc/kallsyms (read_proc_kallsyms() leaves the compression on when the
# file is missing, and the next section's size lands at offset 12, over the
# file header).
vm_trace_record() {
	_vm_out=$1
	_vm_ev=
	for _vm_e in $2; do _vm_ev="$_vm_ev -e $_vm_e"; done
	shift 2
	# shellcheck disable=SC2086 # one -e per event
	trace-cmd record -q -b 4096 --compression none -o "$_vm_out" $_vm_ev "$@" >/tmp/trace-cmd.log 2>&1
	_vm_rc=$?
	[ $_vm_rc = 0 ] || cat /tmp/trace-cmd.log
	return $_vm_rc
}

# vm_record_drm OUT COUNTS: the recording of scripts/record-guest and of
# vm-test's recording stage: the virtio_gpu, dma and iommu events while
# /bin/drm-exercise (scripts/vm/drm-exercise.c) drives /dev/dri/card0,
# stopped while the buffers it leaves alive still are (it is ended after);
# the trace.dat to OUT, what the program did (its NAME COUNT lines) to COUNTS
vm_record_drm() {
	[ -c /dev/dri/card0 ] || { echo "vm_record_drm: no /dev/dri/card0"; return 1; }
	# virtio-gpu (1af4:1050) in a DMA domain of its own: translated by the VT-d
	for _vm_d in /sys/bus/pci/devices/*; do
		[ "$(cat "$_vm_d/vendor"):$(cat "$_vm_d/device")" = 0x1af4:0x1050 ] || continue
		_vm_g=$(readlink "$_vm_d/iommu_group")
		_vm_g=${_vm_g##*/}
		echo "VMTEST-INFO virtio-gpu ${_vm_d##*/} group $_vm_g type $(cat "/sys/kernel/iommu_groups/$_vm_g/type")"
	done
	rm -f "$2" /tmp/drm-exercise.pid
	# the program's last line says it is done; it then waits for a signal (120 s at most)
	vm_trace_record "$1" "virtio_gpu dma iommu" /bin/sh -c '
		/bin/drm-exercise --hold >"$1" 2>/tmp/drm-exercise.err &
		echo $! >/tmp/drm-exercise.pid
		n=0
		until grep -q "^bytes_written " "$1"; do
			kill -0 $! 2>/dev/null || exit 1
			n=$((n + 1))
			[ $n -lt 1200 ] || exit 1
			sleep 0.1
		done' drm-exercise "$2"
	_vm_rc=$?
	[ -f /tmp/drm-exercise.pid ] && kill "$(cat /tmp/drm-exercise.pid)" 2>/dev/null
	cat /tmp/drm-exercise.err
	grep -q '^bytes_written ' "$2" || { echo "vm_record_drm: drm-exercise did not finish"; return 1; }
	return $_vm_rc
}

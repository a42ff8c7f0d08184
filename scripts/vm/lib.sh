# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# scripts/vm/lib.sh - what scripts/vm-test and scripts/record-guest share:
# the host packages, the guest kernel (built once from Debian's
# linux-source-6.12 with `make tinyconfig` plus scripts/vm/kernel.config, and
# cached), the initramfs (busybox, the guest library scripts/vm/guest.sh, the
# recording tools), the QEMU boot (TCG, an emulated IOMMU: VT-d, AMD-Vi or
# virtio-iommu; edu, pci-testdev, virtio-gpu behind it) and the files the
# guest sends out.
#
# Sourced by bash with `set -euo pipefail` and $root (the source tree) set.
# Every name it defines starts with vm_.
#
# Files out of the guest: the guest's second serial port (ttyS1, QEMU's
# COM2) is a file on the host. In the guest, `vm_export NAME FILE`
# (scripts/vm/guest.sh) writes the file there as
#     VMFILE-BEGIN NAME SIZE
#     base64 lines
#     VMFILE-END NAME SHA256
# and vm_files_decode() turns that stream back into DIR/NAME, checking each
# file's size and SHA-256. Any number of files, in any order; NAME is
# [A-Za-z0-9._-]+.

vm_cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpuiso/vm
# the kernel source the checks were written against; the newest 6.12 if the archive dropped it
vm_kernel_version=6.12.107-1~deb12u1
vm_kernel_config=$root/scripts/vm/kernel.config
vm_config_id=$(sha256sum "$vm_kernel_config" | cut -c1-12)
vm_kernel=$(ls "$vm_cache"/bzImage-*-"$vm_config_id" 2>/dev/null | head -n 1 || true)
vm_name=${vm_name:-vm}
vm_sudo=(); [ "$(id -u)" -eq 0 ] || vm_sudo=(sudo)
vm_cleanup_dirs=()

vm_say() { echo "$vm_name: $*" >&2; }

# VM_KEEP=1 keeps the work folders (the initramfs, the console, the files)
vm_cleanup() {
	local d
	for d in "${vm_cleanup_dirs[@]}"; do
		if [ "${VM_KEEP:-0}" = 1 ]; then vm_say "kept $d"; else rm -rf "$d"; fi
	done
}
trap vm_cleanup EXIT

# vm_host_packages [PKG...]: installs with apt-get what the guest needs and
# the host lacks (and PKG...); the kernel's build tools only when no kernel
# of this configuration is cached
vm_host_packages() {
	local p need=()
	local pkgs=(qemu-system-x86 busybox-static cpio trace-cmd libdrm-dev gcc libc6-dev "$@")
	[ -n "$vm_kernel" ] || pkgs+=(xz-utils make flex bison bc libelf-dev)
	for p in "${pkgs[@]}"; do
		[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] || need+=("$p")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	vm_say "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive "${vm_sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
		|| { DEBIAN_FRONTEND=noninteractive "${vm_sudo[@]}" apt-get update -qq &&
		     DEBIAN_FRONTEND=noninteractive "${vm_sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
}

# vm_kernel_version_pick: sets $vm_kernel_version to the linux-source-6.12
# the archive has (the one the checks were written against, else the
# newest), updating the package lists if need be; exits with 3 if there is none
vm_kernel_version_pick() {
	in_archive() { apt-cache madison linux-source-6.12 | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | grep -xF "$1" >/dev/null; }
	in_archive "$vm_kernel_version" || "${vm_sudo[@]}" apt-get update -qq
	in_archive "$vm_kernel_version" ||
		vm_kernel_version=$(apt-cache policy linux-source-6.12 | awk '/Candidate:/ { print $2 }')
	[ -n "$vm_kernel_version" ] && [ "$vm_kernel_version" != "(none)" ] ||
		{ vm_say "no linux-source-6.12 package in the archive"; exit 3; }
}

# vm_kernel_build: sets $vm_kernel to the guest kernel of this configuration,
# building it first if it is not cached (about 10 minutes on 2 cores); exits
# with 3 if it cannot (an environment problem). One build at a time: a
# build under way (scripts/vm-kernel's, in the background) is waited for,
# and its kernel taken.
vm_kernel_build() {
	[ -z "$vm_kernel" ] || return 0
	local ktmp src opt version t0=$SECONDS lock
	mkdir -p "$vm_cache"
	exec {lock}>"$vm_cache/build.lock"
	if ! flock -n "$lock"; then
		vm_say "waiting for the guest kernel being built (scripts/vm-kernel)"
		flock "$lock"
	fi
	vm_kernel=$(ls "$vm_cache"/bzImage-*-"$vm_config_id" 2>/dev/null | head -n 1 || true)
	[ -z "$vm_kernel" ] || { exec {lock}>&-; return 0; }
	vm_kernel_version_pick
	version=$vm_kernel_version
	vm_say "building the guest kernel from linux-source-6.12 $version (once; about 10 minutes)"
	ktmp=$(mktemp -d /tmp/gpuiso-kernel-XXXXXX)
	vm_cleanup_dirs+=("$ktmp")
	(cd "$ktmp" && apt-get download "linux-source-6.12=$version" >/dev/null 2>"$ktmp/apt.log") ||
		{ cat "$ktmp/apt.log" >&2; vm_say "cannot fetch linux-source-6.12 $version"; exit 3; }
	dpkg -x "$ktmp"/linux-source-*.deb "$ktmp/x"
	tar -C "$ktmp" -xaf "$ktmp"/x/usr/src/linux-source-6.12.tar.xz
	src=$ktmp/linux-source-6.12
	make -C "$src" -s tinyconfig >/dev/null
	"$src"/scripts/kconfig/merge_config.sh -m -O "$src" "$src/.config" "$vm_kernel_config" >/dev/null
	make -C "$src" -s olddefconfig >/dev/null
	# every option asked for must have survived the dependency resolution
	for opt in $(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "$vm_kernel_config"); do
		grep -qx "$opt=y" "$src/.config" || { vm_say "kernel: $opt could not be set"; exit 3; }
	done
	make -C "$src" -s -j"$(nproc)" bzImage >"$ktmp/build.log" 2>&1 ||
		{ tail -n 40 "$ktmp/build.log" >&2; vm_say "the guest kernel did not build"; exit 3; }
	vm_kernel=$vm_cache/bzImage-${version%%-*}-$vm_config_id
	cp "$src/arch/x86/boot/bzImage" "$vm_kernel.part"
	mv "$vm_kernel.part" "$vm_kernel"
	rm -rf "$ktmp"
	exec {lock}>&-
	vm_say "guest kernel built in $((SECONDS - t0)) s"
}

# vm_rootfs_new: a fresh $vm_work holding $vm_rootfs: busybox, the guest
# library (/lib/gpuiso-vm.sh) and an /init that mounts what every guest
# program needs; the caller appends the rest of /init
vm_rootfs_new() {
	local a
	vm_work=$(mktemp -d /tmp/gpuiso-vm-XXXXXX)
	vm_cleanup_dirs+=("$vm_work")
	vm_rootfs=$vm_work/root
	mkdir -p "$vm_rootfs"/{bin,dev,proc,sys,tmp,lib}
	cp /bin/busybox "$vm_rootfs/bin/busybox"
	for a in sh mount mkdir cat echo ls mv sleep poweroff basename readlink dmesg grep dirname env \
		base64 sha256sum stat stty kill sed awk cut head tail wc rm; do
		ln -s busybox "$vm_rootfs/bin/$a"
	done
	cp "$root/scripts/vm/guest.sh" "$vm_rootfs/lib/gpuiso-vm.sh"
	cat >"$vm_rootfs/init" <<'INIT'
#!/bin/sh
# a line of its own for what the guest prints (the firmware leaves the cursor after its own)
echo
# (the initramfs is writable memory already: /tmp stays as it is, the programs may live below it)
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
# Criterion shares memory with its workers through /dev/shm
mkdir -p /dev/shm; mount -t tmpfs shm /dev/shm
mount -t tracefs nodev /sys/kernel/tracing
. /lib/gpuiso-vm.sh
INIT
	chmod +x "$vm_rootfs/init"
}

# vm_copy_with_libs FILE: FILE into the initramfs at the same path, with the
# shared libraries it links
vm_copy_with_libs() {
	local f=$1 lib
	mkdir -p "$vm_rootfs$(dirname "$f")"
	cp -L "$f" "$vm_rootfs$f"
	for lib in $(ldd "$f" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }'); do
		[ -e "$vm_rootfs$lib" ] && continue
		mkdir -p "$vm_rootfs$(dirname "$lib")"
		cp -L "$lib" "$vm_rootfs$lib"
	done
}

# vm_add_recorder: what the guest records with: trace-cmd (the host's, with
# its libraries) and /bin/drm-exercise (scripts/vm/drm-exercise.c, built
# static against libdrm's headers)
vm_add_recorder() {
	vm_copy_with_libs /usr/bin/trace-cmd
	gcc -static -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I/usr/include/libdrm \
		-o "$vm_rootfs/bin/drm-exercise" "$root/scripts/vm/drm-exercise.c"
}

# vm_perf_binary: the host's perf program (linux-perf): /usr/bin/perf, or
# where that is Debian's wrapper script (linux-base's, which runs the
# perf_X.Y of the running kernel's version), the newest /usr/bin/perf_X.Y
vm_perf_binary() {
	local f
	for f in /usr/bin/perf $(ls -rv /usr/bin/perf_[0-9]* 2>/dev/null); do
		[ "$(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = 177ELF ] && { echo "$f"; return 0; }
	done
	return 1
}

# vm_add_perf: perf (vm_perf_binary) in the initramfs as /usr/bin/perf,
# with the libraries it links; exits with 3 if the host has none
vm_add_perf() {
	local f
	f=$(vm_perf_binary) || { vm_say "no perf program in /usr/bin (linux-perf)"; exit 3; }
	vm_copy_with_libs "$f"
	[ "$f" = /usr/bin/perf ] || mv "$vm_rootfs$f" "$vm_rootfs/usr/bin/perf"
}

# vm_initrd: packs $vm_rootfs into $vm_work/initrd
vm_initrd() {
	(cd "$vm_rootfs" && find . | cpio -o -H newc --quiet | gzip -1 >"$vm_work/initrd")
}

# vm_iommu_args MODEL: QEMU's device for the guest's IOMMU and the kernel's
# options for it: vtd (QEMU's intel-iommu), amd-vi (amd-iommu) or virtio
# (virtio-iommu-pci, which x86 finds through the ACPI VIOT table QEMU makes);
# sets vm_iommu_device and vm_iommu_cmdline
vm_iommu_args() {
	case $1 in
	vtd) vm_iommu_device=(-device intel-iommu,intremap=on,caching-mode=on)
	     vm_iommu_cmdline="intel_iommu=on" ;;
	amd-vi) vm_iommu_device=(-device amd-iommu,intremap=on)
		vm_iommu_cmdline="amd_iommu=on" ;;
	virtio) vm_iommu_device=(-device virtio-iommu-pci)
		vm_iommu_cmdline="" ;;
	*) vm_say "no IOMMU model '$1' (vtd, amd-vi, virtio)"; exit 3 ;;
	esac
}

# vm_boot TIMEOUT [KERNEL_ARGS...]: boots the guest behind the IOMMU model
# $vm_iommu (vtd unless set; vm_iommu_args) until it powers off or TIMEOUT
# seconds pass; the console goes to $vm_out/console (carriage returns
# removed), what the guest exports to $vm_out/files ($vm_out: $vm_work
# unless set; several guests may boot at once, each with its own). The
# guest's kernel command line carries gpuiso_iommu=MODEL. Returns QEMU's exit
# status (124: the timeout).
vm_boot() {
	local timeout_s=$1 model=${vm_iommu:-vtd} out=${vm_out:-$vm_work} rc
	shift
	vm_iommu_args "$model"
	mkdir -p "$out"
	: >"$out/files"
	set +e
	timeout "$timeout_s" qemu-system-x86_64 -machine q35,kernel-irqchip=split -accel tcg -cpu max \
		-m 1G -smp 1 -nographic -no-reboot "${vm_iommu_device[@]}" \
		-device edu -device pci-testdev -device virtio-gpu-pci,iommu_platform=on \
		-serial mon:stdio -chardev file,id=vmfiles,path="$out/files" -serial chardev:vmfiles \
		-kernel "$vm_kernel" -initrd "$vm_work/initrd" \
		-append "console=ttyS0 $vm_iommu_cmdline gpuiso_iommu=$model iommu=strict quiet panic=-1 $*" \
		>"$out/console.raw" 2>&1
	rc=$?
	set -e
	tr -d '\r' <"$out/console.raw" >"$out/console"
	return $rc
}

# vm_files_decode DIR [FROM]: the files the guest exported (to FROM/files,
# default $vm_work/files), into DIR/NAME; fails (naming it) if one is cut
# short or differs from what the guest sent
vm_files_decode() {
	local dir=$1 files=${2:-$vm_work}/files name size sum
	mkdir -p "$dir"
	awk -v dir="$dir" '
		$1 == "VMFILE-BEGIN" && $2 ~ /^[A-Za-z0-9._-]+$/ { out = dir "/" $2 ".b64"; printf "" >out; next }
		$1 == "VMFILE-END" { close(out); print $2, $3 >(dir "/.sums"); out = ""; next }
		out != "" { print >out }
	' "$files"
	[ -f "$dir/.sums" ] || { vm_say "the guest exported no file"; return 1; }
	while read -r name sum; do
		base64 -d "$dir/$name.b64" >"$dir/$name" ||
			{ vm_say "$name: not base64 as it came out of the guest"; return 1; }
		rm -f "$dir/$name.b64"
		size=$(awk -v n="$name" '$1 == "VMFILE-BEGIN" && $2 == n { print $3 }' "$files" | tail -n 1)
		[ "$(stat -c %s "$dir/$name")" = "$size" ] && [ "$(sha256sum <"$dir/$name" | cut -c1-64)" = "$sum" ] ||
			{ vm_say "$name: differs from what the guest sent ($size bytes, sha256 $sum)"; return 1; }
	done <"$dir/.sums"
	rm -f "$dir/.sums"
	# a file begun but not ended: the guest stopped while sending it
	for name in "$dir"/*.b64; do
		[ -e "$name" ] || continue
		vm_say "$(basename "$name" .b64): cut short"
		return 1
	done
}

# vm_events_count FILE: the events of the trace.dat FILE as `trace-cmd report`
# gives them, `SYSTEM:NAME COUNT` a line (sorted), then for virtio-gpu's
# command events `virtio_gpu:EVENT:TYPE COUNT` (TYPE: the command or
# response, named as in include/uapi/linux/virtio_gpu.h without
# VIRTIO_GPU_CMD_/VIRTIO_GPU_); fails if trace-cmd cannot read FILE, reads
# no event in it or reports events lost
vm_events_count() {
	local file=$1 tmp rc=0
	tmp=$(mktemp -d /tmp/gpuiso-report-XXXXXX)
	_vm_events_count "$file" "$tmp" || rc=$?
	rm -rf "$tmp"
	return $rc
}

_vm_events_count() {
	local file=$1 report=$2/report systems=$2/systems
	trace-cmd report -N -i "$file" >"$report" 2>/dev/null &&
		trace-cmd report -N -E -i "$file" >"$systems" 2>/dev/null ||
		{ vm_say "$file: trace-cmd cannot read it"; return 1; }
	if grep -q 'LOST [0-9]* EVENTS' "$report"; then
		vm_say "$file: the ring buffer lost events: $(grep -o 'LOST [0-9]* EVENTS' "$report" | head -n 1)"
		return 1
	fi
	# -E: the event formats stored, SYSTEM:NAME a line
	awk '
		FNR == NR {
			if (split($1, f, ":") == 2) system_of[f[2]] = f[1]
			next
		}
		{
			for (i = 1; i < NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) break
			if (i >= NF) next
			ev = $(i + 1); sub(/:$/, "", ev)
			name = (ev in system_of ? system_of[ev] : "?") ":" ev
			n[name]++
			if (ev ~ /^virtio_gpu_cmd_/ && match($0, / type=0x[0-9a-f]+/))
				n[name ":" vgpu[substr($0, RSTART + 6, RLENGTH - 6)]]++
		}
		END { for (k in n) print k, n[k] }
		BEGIN {
			split("GET_DISPLAY_INFO RESOURCE_CREATE_2D RESOURCE_UNREF SET_SCANOUT RESOURCE_FLUSH " \
			      "TRANSFER_TO_HOST_2D RESOURCE_ATTACH_BACKING RESOURCE_DETACH_BACKING GET_CAPSET_INFO " \
			      "GET_CAPSET GET_EDID RESOURCE_ASSIGN_UUID RESOURCE_CREATE_BLOB SET_SCANOUT_BLOB", c2d)
			split("CTX_CREATE CTX_DESTROY CTX_ATTACH_RESOURCE CTX_DETACH_RESOURCE RESOURCE_CREATE_3D " \
			      "TRANSFER_TO_HOST_3D TRANSFER_FROM_HOST_3D SUBMIT_3D RESOURCE_MAP_BLOB RESOURCE_UNMAP_BLOB", c3d)
			split("UPDATE_CURSOR MOVE_CURSOR", ccur)
			split("RESP_OK_NODATA RESP_OK_DISPLAY_INFO RESP_OK_CAPSET_INFO RESP_OK_CAPSET RESP_OK_EDID " \
			      "RESP_OK_RESOURCE_UUID RESP_OK_MAP_INFO", rok)
			split("RESP_ERR_UNSPEC RESP_ERR_OUT_OF_MEMORY RESP_ERR_INVALID_SCANOUT_ID " \
			      "RESP_ERR_INVALID_RESOURCE_ID RESP_ERR_INVALID_CONTEXT_ID RESP_ERR_INVALID_PARAMETER", rerr)
			for (i = 1; i in c2d; i++) vgpu[sprintf("0x%x", 255 + i)] = c2d[i]
			for (i = 1; i in c3d; i++) vgpu[sprintf("0x%x", 511 + i)] = c3d[i]
			for (i = 1; i in ccur; i++) vgpu[sprintf("0x%x", 767 + i)] = ccur[i]
			for (i = 1; i in rok; i++) vgpu[sprintf("0x%x", 4351 + i)] = rok[i]
			for (i = 1; i in rerr; i++) vgpu[sprintf("0x%x", 4607 + i)] = rerr[i]
		}
	' "$systems" "$report" | LC_ALL=C sort >"$2/counts"
	# trace-cmd 3.1.6 reports a file cut short in its header as empty, exit 0
	[ -s "$2/counts" ] || { vm_say "$file: trace-cmd reads no event in it"; return 1; }
	cat "$2/counts"
}

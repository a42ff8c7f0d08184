#!/bin/bash
# SPDX-License-Identifier: MIT
# meson install into a scratch --destdir, then the installed gpuiso run as a
# user would: a shipped scenario and map by name, the man page, the bash
# completion, the installed scripts. Arguments: the build and source folders.
set -euo pipefail
build=$1
src=$2
dest=$(mktemp -d /tmp/gpuiso-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
fail() { echo "install test: FAIL: $*" >&2; exit 1; }

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
bin=$dest$prefix/bin/gpuiso
[ -x "$bin" ] || fail "no $bin"

# far from the source tree: the data is found beside the installed binary
cd "$dest"
out=$("$bin" scenario explain lda-chain) || fail "scenario explain lda-chain: exit $?"
grep -q "adapter lda0: started" <<<"$out" || fail "scenario explain lda-chain said: $out"
found=$(find "$dest$prefix/share/gpuiso/scenarios" -name lda-chain.yaml)
[ -n "$found" ] || fail "lda-chain.yaml is not installed"
[ -f "$dest$prefix/share/gpuiso/maps/windows-dxgkrnl.yaml" ] || fail "the import maps are not installed"
"$bin" trace gen --profile power-cycle --events 300 -o "$dest/pc" -q
"$bin" replay "$dest/pc" --scenario lda-chain --no-cache --json "$dest/r.json" >/dev/null ||
	fail "replay on the installed scenario: exit $?"
grep -q "\"scenario\": \"[^\"]*share/gpuiso/scenarios/lda-chain.yaml\"" "$dest/r.json" ||
	fail "the replay did not use the installed scenario: $(grep scenario "$dest/r.json")"

# a shipped import map by name: a real ftrace recording through it
"$bin" replay "$src/tests/data/ftrace/host-v7.dat" --map linux-page-alloc --no-cache \
	--json "$dest/map.json" >/dev/null || fail "replay --map linux-page-alloc: exit $?"
grep -q "share/gpuiso/maps/linux-page-alloc.yaml" "$dest/map.json" ||
	fail "the replay did not use the installed map: $(grep -o '"maps": [^]]*' "$dest/map.json")"

# the man page says what --help says
page=$dest$prefix/share/man/man1/gpuiso.1
[ -f "$page" ] || fail "no man page"
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null) || fail "man -l could not read it"
for cmd in "scenario explain" "store findings" "lint-driver"; do
	grep -q "^ *$cmd\$" <<<"$text" || fail "the man page has no section for $cmd"
done
grep -qF -- "$("$bin" faults list --help | head -1)" <<<"$text" || fail "faults list's usage is not in it"

# the completion offers commands, subcommands and a command's options
comp=$dest$prefix/share/bash-completion/completions/gpuiso
[ -f "$comp" ] || fail "no bash completion"
got=$(bash -c 'source "$1"
	COMP_WORDS=(gpuiso sw); COMP_CWORD=1; _gpuiso; echo "${COMPREPLY[*]}"
	COMP_WORDS=(gpuiso store f); COMP_CWORD=2; _gpuiso; echo "${COMPREPLY[*]}"
	COMP_WORDS=(gpuiso sweep --poi); COMP_CWORD=2; _gpuiso; echo "${COMPREPLY[*]}"' _ "$comp")
[ "$got" = $'sweep\nfindings\n--points' ] || fail "the completion offered: $got"

"$dest$prefix/bin/gpuiso-slurm-submit" --help >/dev/null || fail "gpuiso-slurm-submit --help"
"$dest$prefix/bin/gpuiso-record" --help >/dev/null || fail "gpuiso-record --help"
[ -f "$dest$prefix/share/doc/gpuiso/docs/campaign-format.md" ] || fail "the docs are not installed"
echo "install test: installed into $dest$prefix, and used from there"

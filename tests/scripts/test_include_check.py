#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The include checker against a tree made here: a clean tree passes (a program
under scripts/ is not the project's code: not checked), and each
wrong edge (an upward one, a leaf beyond common/, a header cycle, a core/ file
calling one after it, a backend's own header outside hw/) is reported
at its FILE:LINE with exit status 1."""
import os
import subprocess
import sys
import tempfile

root = os.environ.get("GPUISO_SOURCE_ROOT") or \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
checker = [sys.executable, os.path.join(root, "scripts", "include-check")]


def tree(files):
    d = tempfile.mkdtemp(prefix="gpuiso-includes-")
    for path, text in files.items():
        os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(d, path), "w") as f:
            f.write(text)
    return d


clean = {
    "common/a.h": "#pragma once\n",
    "hw/b.h": '#include "common/a.h"\n',
    "core/mem.c": '#include "hw/b.h"\n#include "common/a.h"\nint obj_map(void)\n{\n\treturn pages_pa();\n}\n',
    "core/pages.c": 'int pages_pa(void)\n{\n\treturn 0;\n}\n',
    "replay/d.c": '#include "core/c.h"\n#include "bench/results.h"\n',
    "core/c.h": "#pragma once\n",
    "bench/results.h": '#include "common/a.h"\n',
    "tools/e.c": '#include "replay/r.h"\n',
    "replay/r.h": "#pragma once\n",
    # a program built apart from gpuiso (the QEMU guest's): in no layer, not checked
    "scripts/vm/prog.c": '#include <stdio.h>\n\nint main(void)\n{\n\treturn 0;\n}\n',
}
bad = dict(clean)
bad.update({
    "hw/up.c": '#include <stdio.h>\n\n#include "core/c.h"\n',        # hw above core: line 3
    "bench/model.c": '#include "core/c.h"\n',                         # a leaf on the model: line 1
    "core/reads.c": '#include "bench/results.h"\n',                   # lower, yet not a dependency
    "replay/peek.c": '#include "core/internal.h"\n',                  # another folder's private header
    "core/internal.h": "#pragma once\n",
    "stray/x.c": "int x;\n",                                          # a folder of no layer
    "core/x.h": '#include "core/y.h"\n',
    "core/y.h": '\n#include "core/x.h"\n',                            # a cycle
    "core/pages.c": 'int pages_pa(void)\n{\n\t/* obj_map() is mentioned */\n\treturn obj_map();\n}\n',
    "core/stray.c": "",                                                # a file of no place
    "hw/sim/sim.h": "#pragma once\n",
    "replay/costs.c": '#include "hw/b.h"\n#include "hw/sim/sim.h"\n',  # a backend's own header
})
want = [
    "hw/up.c:3: hw/ (layer 2) includes core/c.h from core/ (layer 3): an upward edge",
    "bench/model.c:1: bench/ (layer 1) includes core/c.h from core/ (layer 3): an upward edge",
    "core/reads.c:1: core/ (layer 3) includes bench/results.h from bench/ (layer 1): not among what it depends on",
    "replay/peek.c:1: includes core/internal.h, private to core/",
    "stray/x.c:1: in no folder include-check knows",
    "an include cycle: core/x.h -> core/y.h -> core/x.h",
    "core/pages.c:4: calls obj_map() of core/mem.c, which comes after it",
    "core/stray.c:1: not in include-check's order of core/",
    "replay/costs.c:2: includes hw/sim/sim.h, a backend's own",
]
failed = 0
r = subprocess.run(checker + [tree(clean)], capture_output=True, text=True)
if r.returncode != 0 or r.stdout:
    failed += 1
    print(f"FAIL: a clean tree: exit {r.returncode}\n{r.stdout}{r.stderr}")
r = subprocess.run(checker + [tree(bad)], capture_output=True, text=True)
if r.returncode != 1:
    failed += 1
    print(f"FAIL: a bad tree: exit {r.returncode}, not 1\n{r.stderr}")
for w in want:
    if w not in r.stdout:
        failed += 1
        print(f"FAIL: missing: {w}\nin:\n{r.stdout}")
sys.exit(1 if failed else 0)

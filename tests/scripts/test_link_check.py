#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The link checker against build folders made here with the C compiler: a
model that reaches a backend only through what it is given passes; one whose
object calls into the factory, and through it a backend, is reported with
the chain of calls, exit status 1."""
import os
import subprocess
import sys
import tempfile

root = os.environ.get("GPUISO_SOURCE_ROOT") or \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
checker = [sys.executable, os.path.join(root, "scripts", "link-check")]


def build(objects):
    """A build folder: {library folder/object: C source} compiled with cc."""
    d = tempfile.mkdtemp(prefix="gpuiso-links-")
    for path, text in objects.items():
        obj = os.path.join(d, path)
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        with open(obj[:-2], "w") as f:   # x.c.o from x.c
            f.write(text)
        subprocess.run(["cc", "-c", "-x", "c", obj[:-2], "-o", obj], check=True)
        os.unlink(obj[:-2])
    return d


clean = {
    "core/libcore.a.p/core.c.o": "int hw_caps(void);\nint core_start(void) { return hw_caps(); }\n",
    "hw/libhw.a.p/backend.c.o": "int hw_caps(void) { return 1; }\n",
    "hw/libhw_backend.a.p/backend_open.c.o":
        "int sim_create(void);\nint hw_backend_open(void) { return sim_create(); }\n",
    "hw/sim/libhw_sim.a.p/sim.c.o": "int sim_create(void) { return 0; }\n",
    "replay/libreplay.a.p/run.c.o":
        "int hw_backend_open(void);\nint run(void) { return hw_backend_open(); }\n",
}
bad = dict(clean)
bad["core/libscenario.a.p/scenario.c.o"] = (
    "int hw_backend_open(void);\nint scenario_open(void) { return hw_backend_open(); }\n")
failed = 0
r = subprocess.run(checker + [build(clean)], capture_output=True, text=True)
if r.returncode != 0 or r.stdout:
    failed += 1
    print(f"FAIL: a clean build: exit {r.returncode}\n{r.stdout}{r.stderr}")
r = subprocess.run(checker + [build(bad)], capture_output=True, text=True)
want = ("core/scenario.c: links hw/backend_open.c (core/scenario.c calls hw_backend_open()), "
        "and 1 more of the backends")
if r.returncode != 1 or want not in r.stdout:
    failed += 1
    print(f"FAIL: a model that links the factory: exit {r.returncode}, want 1 and\n{want}\n"
          f"got:\n{r.stdout}{r.stderr}")
sys.exit(1 if failed else 0)

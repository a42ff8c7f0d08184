#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel-doc checker against its fixtures (tests/data/kerneldoc/): it
accepts every form in good.h, and reports exactly the findings of
bad.expected in bad.h, one of each kind, with exit status 1."""
import os
import subprocess
import sys

root = os.environ.get("GPUISO_SOURCE_ROOT") or \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
data = os.path.join("tests", "data", "kerneldoc")
checker = [sys.executable, os.path.join(root, "scripts", "kerneldoc-check")]
failed = 0


def run(header):
    return subprocess.run(checker + [os.path.join(data, header)], cwd=root,
                          capture_output=True, text=True)


def fail(what):
    global failed
    failed += 1
    print(f"FAIL: {what}")


good = run("good.h")
if good.returncode != 0 or good.stdout:
    fail(f"good.h: exit {good.returncode}, findings:\n{good.stdout}{good.stderr}")

bad = run("bad.h")
want = open(os.path.join(root, data, "bad.expected"), encoding="utf-8").read()
if bad.returncode != 1:
    fail(f"bad.h: exit {bad.returncode}, not 1\n{bad.stderr}")
if bad.stdout != want:
    got, exp = bad.stdout.splitlines(), want.splitlines()
    for line in exp:
        if line not in got:
            fail(f"bad.h: missing: {line}")
    for line in got:
        if line not in exp:
            fail(f"bad.h: unexpected: {line}")
    if not failed:
        fail("bad.h: findings out of order")

print(f"kerneldoc fixtures: {'ok' if not failed else f'{failed} failure(s)'}")
sys.exit(1 if failed else 0)

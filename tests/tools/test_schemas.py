#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Real JSON outputs of gpuiso, checked against their schemas (docs/schemas/).

Each output is made as a user makes it (GPUISO_BIN, from the source root) and
validated with jsonschema (Debian's python3-jsonschema, scripts/install-deps);
a copy with a required member removed must then fail, so that a schema that
accepts anything cannot pass.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.environ["GPUISO_SOURCE_ROOT"]
BIN = os.environ["GPUISO_BIN"]
failures = []


def gpuiso(*args, want=(0,)):
    """Run gpuiso from the source root; its stdout."""
    p = subprocess.run([BIN, *args], cwd=ROOT, capture_output=True, text=True)
    if p.returncode not in want:
        sys.exit(f"gpuiso {' '.join(args)}: exit {p.returncode}, not {want}:\n{p.stderr}")
    return p.stdout


def check(name, doc):
    """@doc against docs/schemas/@name.json, and a copy without a required member against it."""
    path = os.path.join(ROOT, "docs", "schemas", name + ".json")
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        failures.append(f"{name}: at {'/'.join(map(str, e.path)) or '(top)'}: {e.message}")
    broken = copy.deepcopy(doc)
    del broken[schema["required"][-1]]
    if validator.is_valid(broken):
        failures.append(f"{name}: accepts a document without '{schema['required'][-1]}'")
    print(f"{name}: {'valid' if not errors else f'{len(errors)} errors'}")


def overflow(doc):
    """A latency's "overflow" (no real replay takes 73 minutes): a count is valid, text is not."""
    with open(os.path.join(ROOT, "docs", "schemas", "gpuiso-results-1.json"), encoding="utf-8") as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    doc = copy.deepcopy(doc)
    latency = next(iter(doc["ops"].values()))["latency_ns"]
    latency["overflow"] = 2
    if not validator.is_valid(doc):
        failures.append("gpuiso-results-1: refuses a latency's overflow count")
    latency["overflow"] = "2"
    if validator.is_valid(doc):
        failures.append("gpuiso-results-1: accepts an overflow that is not a count")


def main():
    check("gpuiso-version-1", json.loads(gpuiso("version", "--json")))
    check("gpuiso-faults-1", json.loads(gpuiso("faults", "list", "--json")))

    check("gpuiso-explain-1",
          json.loads(gpuiso("scenario", "explain", "traces/scenarios/two-adapters.yaml", "--json")))

    with tempfile.TemporaryDirectory(prefix="gpuiso-schemas-") as tmp:
        trace, sweep, db = (os.path.join(tmp, n) for n in ("pc", "sweep", "runs.sqlite"))
        gpuiso("trace", "gen", "--profile", "power-cycle", "--events", "2000", "-o", trace, "-q")
        check("gpuiso-trace-info-1", json.loads(gpuiso("trace", "info", trace, "--json")))
        gpuiso("replay", trace, "--scenario", "traces/scenarios/lda-chain.yaml",
               "--json", os.path.join(tmp, "results.json"), "-q")
        with open(os.path.join(tmp, "results.json"), encoding="utf-8") as f:
            replayed = json.load(f)
        check("gpuiso-results-1", replayed)
        overflow(replayed)
        # iommu/unmap failures leave mappings behind: findings, each with a trimmed trace
        gpuiso("sweep", trace, "--scenario", "traces/scenarios/lda-chain.yaml",
               "--points", "iommu/unmap", "-o", sweep, "-q", want=(1,))
        with open(os.path.join(sweep, "summary.json"), encoding="utf-8") as f:
            check("gpuiso-sweep-1", json.load(f))
        with open(os.path.join(tmp, "c.yaml"), "w", encoding="utf-8") as f:
            f.write(f"campaign:\n  name: schemas\n  traces: [{trace}]\n  seeds: [1]\n  runs:\n"
                    "    - {name: first-unmap, faults: [{point: iommu/unmap, nth: 1}]}\n"
                    "    - {name: plain, faults: []}\n")
        gpuiso("campaign", "run", os.path.join(tmp, "c.yaml"), "-o", os.path.join(tmp, "camp"), "-q",
               want=(1,))
        with open(os.path.join(tmp, "camp", "summary.json"), encoding="utf-8") as f:
            check("gpuiso-campaign-1", json.load(f))
        bench = os.path.join(tmp, "bench.json")
        gpuiso("bench", "--suite", "sweep", "--metric", "sweep.speedup=1.5:ratio", "--json", bench)
        with open(bench, encoding="utf-8") as f:
            check("gpuiso-bench-1", json.load(f))
        gpuiso("store", "add", db, os.path.join(tmp, "results.json"), os.path.join(sweep, "summary.json"))
        check("gpuiso-changes-1", json.loads(gpuiso("changes", db, "--json", "-")))
        check("gpuiso-store-list-1", json.loads(gpuiso("store", "list", db, "--json")))
        results = os.path.join(tmp, "results.json")
        check("gpuiso-compare-1", json.loads(gpuiso("compare", results, results, "--json")))
        findings = json.loads(gpuiso("store", "findings", db, "--json", want=(1,)))
        check("gpuiso-store-findings-1", findings)
        if not findings["new_in_latest"]:
            failures.append("gpuiso-store-findings-1: the sweep's findings are not new")
        listed = [f for s in findings["series"] for r in s["runs"] for f in r["findings"]]
        if not listed or not all(f["contexts"] for f in listed):
            failures.append("gpuiso-store-findings-1: the sweep's findings have no contexts")

    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The default profile against gVisor's list (docs/policy.md, "Measured
against gVisor").

Puts every call gVisor's nvproxy admits with the compute or utility
capability (tests/tools/anchor-compute.tsv) to `nvproxyctl explain`, which
runs the module's own decision code, at each of gVisor's driver versions
that is a public release (580.173.02 is measured at 580.142, the newest 580
release abi/ holds). A call passes when its entry exists at that version,
its shape is admitted for a caller without privileges, and compute, utility
or base admits it. Every call that does not pass must be listed in
docs/policy.md with its reason, and every listed call must still fail: the
list stays exact.

usage: anchor.py NVPROXYCTL ABI_DIR ANCHOR_TSV POLICY_MD
Prints one line per refusal and a summary; exit 0 when the list is exact.
"""
import json
import re
import subprocess
import sys

VERSIONS = {"535.129.03": "535.129.03", "550.90.12": "550.90.12",
            "570.195.03": "570.195.03", "580.173.02": "580.142"}
FAMILY = {"escape": "escape", "control": "control", "class": "class", "uvm": "uvm"}
DEFAULT = {"compute", "utility"}


def decide(npc, abi, family, number, version):
    """(passes, why) of one call at one version under the default profile."""
    r = subprocess.run([npc, "explain", number, "--version", version, "--family",
                        FAMILY[family], "--json", "--abi", abi],
                       capture_output=True, text=True, check=False)
    if r.returncode not in (0, 4):
        sys.exit(f"anchor.py: nvproxyctl explain {number} --version {version}: "
                 f"exit {r.returncode}: {r.stderr.strip()}")
    entries = json.loads(r.stdout)["entries"]
    if not entries:
        return False, "not in this version's tables"
    e = entries[0]
    caps = e["capabilities"]
    if e["admitted"] != "yes":
        return False, f"shape refused ({e['rule']})"
    if not caps.startswith("every profile") and not DEFAULT & set(caps.split()):
        return False, f"capabilities: {caps}"
    return True, ""


def listed(policy_md):
    """The calls docs/policy.md lists as refused: {(family, number): reason}."""
    text = open(policy_md, encoding="utf-8").read()
    m = re.search(r"^## Measured against gVisor\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        sys.exit(f"anchor.py: {policy_md} has no '## Measured against gVisor' section")
    out = {}
    for fam, num, why in re.findall(r"^- `(escape|control|class|uvm) (0x[0-9a-f]+)`[^:]*: (.*)$",
                                    m.group(1), re.M):
        out[(fam, num)] = why
    return out


def main():
    npc, abi, tsv, policy_md = sys.argv[1:5]
    known = listed(policy_md)
    n = 0
    refused = {}
    for line in open(tsv, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        family, number, name, versions = line.rstrip("\n").split("\t")
        for anchor in versions.split(","):
            if anchor not in VERSIONS:
                continue
            n += 1
            ok, why = decide(npc, abi, family, number, VERSIONS[anchor])
            if not ok:
                refused.setdefault((family, number), []).append((VERSIONS[anchor], name, why))
    bad = 0
    for key, hits in sorted(refused.items()):
        state = "listed" if key in known else "NOT LISTED"
        for version, name, why in hits:
            print(f"refused: {key[0]} {key[1]} {name} at {version}: {why} [{state}]")
        bad += key not in known
    for key in sorted(set(known) - set(refused)):
        print(f"listed but admitted at every version: {key[0]} {key[1]}")
        bad += 1
    total = sum(len(h) for h in refused.values())
    print(f"{n} compute/utility calls at {len(VERSIONS)} versions: {n - total} admitted, "
          f"{total} refused ({len(refused)} distinct calls, {len(known)} listed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

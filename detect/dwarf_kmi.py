# SPDX-License-Identifier: GPL-2.0
"""Detector dwarf-kmi: abidiff restricted by abidiff itself to the exports
(--kmi-whitelist of G0's Module.symvers), the mode a kernel ABI tool runs
(Android's KMI checks); its report is read as detect.dwarf's."""
import os
import sys
import tempfile

from detect import dwarf, symvers
from detect.common import cli


def whitelist(exports, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write("[abi_whitelist]\n")
        f.writelines(f"  {s}\n" for s in sorted(exports))


def detect(g0, gn, gen=None):
    exports = symvers.parse(os.path.join(g0, "Module.symvers"))
    with tempfile.TemporaryDirectory(prefix="modvlab-kmi-") as tmp:
        wl = os.path.join(tmp, "exports.whitelist")
        whitelist(exports, wl)
        out = dwarf.detect(g0, gn, gen, extra=["--kmi-whitelist", wl],
                           mode="abidiff --kmi-whitelist of the Module.symvers exports")
    # the temporary path says nothing: name what it held
    out["abidiff"]["cmd"] = [a if a != wl else "EXPORTS.whitelist" for a in out["abidiff"]["cmd"]]
    return out


if __name__ == "__main__":
    sys.exit(cli(detect))

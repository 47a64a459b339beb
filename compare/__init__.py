# SPDX-License-Identifier: GPL-2.0
"""modvlab compare: the report. load (saved runs -> records), model, doc (the
document model both renderings share), report (report.json, report.md and
report.html), sections/ (one module a report section). Run as
`python3 -m compare --help`. The readers it shares with the rest of the lab
are in core/.
"""

# SPDX-License-Identifier: GPL-2.0
"""modvlab compare: parse guest console logs, classify load attempts, write the report.

Modules: ktap (console-log parser), classify (outcome and verdict policy),
report (report.json, report.md and report.html), doc (the document model both
renderings share). Run as `python3 -m compare --help`.
"""

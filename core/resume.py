# SPDX-License-Identifier: GPL-2.0
"""Boot until every case has an outcome: a guest that dies (an oops, a hang,
its timeout) keeps the outcome of the case it was running, and the cases it
never started boot again in the next guest ("NAME.rK"). A guest that starts
none of its cases ends it: the kernel does not reach the plan, and they are
"not-reached", as is what is left after the last resume.

Used by make history's boots (history/boot.py) and make valid's
(valid/boot.py)."""

MAX_RESUMES = 24


def boot_until_done(todo, boot, key, result, prefix, not_reached, max_resumes=MAX_RESUMES):
    """todo: the cases; boot(name, cases) -> ktap.Run of one guest; key(case)
    -> its name in the plan; result(attempt, run) -> its result (a dict).
    Returns ({name: result, with "boot": the guest's name}, guests booted);
    a case without an outcome gets dict(not_reached, outcome="not-reached")."""
    results, k = {}, 0
    while todo and k <= max_resumes:
        name = prefix if k == 0 else f"{prefix}.r{k}"
        run = boot(name, todo)
        by_name = {a.name: a for a in run.attempts.values()}
        rest = []
        for c in todo:
            att = by_name.get(key(c))
            if att is None or (att.result is None and not att.started):
                rest.append(c)
                continue
            results[key(c)] = dict(result(att, run), boot=name)
        if rest and len(rest) == len(todo):
            for c in rest:      # no progress at all: the kernel does not reach the plan
                results[key(c)] = dict(not_reached, outcome="not-reached", boot=name)
            rest = []
        todo, k = rest, k + 1
    for c in todo:              # still waiting after the last resume
        results[key(c)] = dict(not_reached, outcome="not-reached", boot="-")
    return results, k

# SPDX-License-Identifier: GPL-2.0
"""Minimize a crashing input: the fewest bytes changed from its seed module
that still crash, by delta debugging (ddmin) over the changed positions.

A test is a boot, so each round is batched: all candidates of the round
(every chunk alone, smallest first, then every complement) go into one boot,
and the oracle returns the first that crashes (the kernel stops there). A
truncated input keeps its length; only its changed bytes are minimized."""


def changed(seed, data):
    """Positions below len(data) where data differs from seed."""
    n = min(len(seed), len(data))
    return [i for i in range(n) if seed[i] != data[i]]


def build(seed, data, positions):
    """The seed, cut or grown to data's length, with data's bytes at positions."""
    out = bytearray(seed[:len(data)]) + bytearray(data[len(seed):])
    for p in positions:
        out[p] = data[p]
    return bytes(out)


def spec(positions):
    """"a-b,c,..." of positions: a candidate as the guest driver's cands
    mode reads it (guest/fuzz/modvlab-fuzz.c build_cand)."""
    ps, out, i = sorted(positions), [], 0
    while i < len(ps):
        j = i
        while j + 1 < len(ps) and ps[j + 1] == ps[j] + 1:
            j += 1
        out.append(str(ps[i]) if i == j else f"{ps[i]}-{ps[j]}")
        i = j + 1
    return ",".join(out)


def _chunks(items, n):
    k, r = divmod(len(items), n)
    out, at = [], 0
    for i in range(n):
        size = k + (i < r)
        out.append(items[at:at + size])
        at += size
    return [c for c in out if c]


def minimize(seed, data, oracle, max_rounds=12, max_batch=64):
    """(bytes, positions, rounds): a smaller input that the oracle still calls a crash.

    oracle(list of bytes) -> index of the first crashing candidate, or None.
    """
    cur = changed(seed, data)
    rounds, n = 0, 2
    while len(cur) > 1 and rounds < max_rounds:
        n = min(n, len(cur))
        parts = _chunks(cur, n)
        cands = list(parts)
        if n > 2:
            cands += [[q for q in cur if q not in set(p)] for p in parts]
        cands = cands[:max_batch]
        rounds += 1
        hit = oracle([build(seed, data, c) for c in cands])
        if hit is not None:
            found = cands[hit]
            n = 2 if hit < len(parts) else max(n - 1, 2)
            cur = found
            continue
        if n >= len(cur):
            break
        n = min(2 * n, len(cur))
    return build(seed, data, cur), cur, rounds

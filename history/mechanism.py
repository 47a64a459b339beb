# SPDX-License-Identifier: GPL-2.0
"""Which versioning mechanism an upload's kernel actually ran, read from the
config file its image package ships (/boot/config-RELEASE): modversions with
genksyms or gendwarfksyms, basic and/or extended tables, or none (the
release in vermagic is then the only check the loader makes)."""
import pathlib


def read_config(path):
    """{OPTION: value} of a kernel .config ("n" for "is not set"; options the
    tree does not have are absent)."""
    opts = {}
    for line in pathlib.Path(path).read_text(errors="replace").splitlines():
        if line.startswith("# CONFIG_") and line.endswith(" is not set"):
            opts[line[len("# CONFIG_"):-len(" is not set")]] = "n"
        elif line.startswith("CONFIG_") and "=" in line:
            k, v = line.split("=", 1)
            opts[k[len("CONFIG_"):]] = v.strip('"')
    return opts


def mechanism(opts):
    """{modversions, tool, basic, extended, force_load, label} from a config."""
    on = lambda k: opts.get(k) == "y"
    modv = on("MODVERSIONS")
    tool = ("gendwarfksyms" if on("GENDWARFKSYMS") else "genksyms") if modv else None
    # a tree without BASIC_MODVERSIONS has one table format: basic
    basic = modv and (on("BASIC_MODVERSIONS") or "BASIC_MODVERSIONS" not in opts
                      and not on("EXTENDED_MODVERSIONS"))
    ext = modv and on("EXTENDED_MODVERSIONS")
    if not modv:
        label = "no modversions: vermagic (the release)"
    else:
        label = f"modversions ({tool}; " + "+".join(
            x for x, y in (("basic", basic), ("extended", ext)) if y) + ")"
    return {"modversions": modv, "tool": tool, "basic": bool(basic), "extended": bool(ext),
            "force_load": on("MODULE_FORCE_LOAD"), "label": label}


def of_upload(root):
    """The mechanism of an unpacked upload (its boot/config-*), or None."""
    cfg = sorted(pathlib.Path(root).glob("boot/config-*"))
    return mechanism(read_config(cfg[0])) if cfg else None

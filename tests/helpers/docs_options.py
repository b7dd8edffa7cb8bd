#!/usr/bin/env python3
"""Every option of every workload, as the binary's --help gives it (flag and default), must be in
docs/workloads.md's section of that workload with the same default, and in the man page's with
the same default. Usage: docs_options.py SOCKBENCH WORKLOADS_MD MAN_PAGE. Exit 1 with one line per
problem."""
import re
import subprocess
import sys

WORKLOADS = ["udp-rr", "tcp-crr", "tcp-rr", "tcp-stream", "udp-stream"]
HELP_LINE = re.compile(r"^  (?:-(\S), |    )--([a-z0-9-]+)")


def help_options(sb, wl):
    """{long name: (short letter or None, default text)} from `sockbench WL --help`."""
    out = subprocess.run([sb, wl, "--help"], capture_output=True, text=True, check=True).stdout
    opts = {}
    for line in out.splitlines():
        m = HELP_LINE.match(line)
        if not m or m.group(2) == "help":
            continue
        k = line.rfind("(default: ")
        if k < 0 or not line.endswith(")"):
            raise SystemExit(f"{wl} --help: no default on: {line}")
        opts[m.group(2)] = (m.group(1), line[k + len("(default: "):-1])
    return opts


def md_section(md, wl):
    """The lines of '## WL flags' up to the next '## ' heading."""
    m = re.search(rf"^## {re.escape(wl)} flags\n(.*?)(?=^## )", md, re.M | re.S)
    return m.group(1).splitlines() if m else []


def cells(row):
    """A table row's cells, '\\|' kept inside a cell."""
    parts = re.split(r"(?<!\\)\|", row.strip())
    return [c.strip() for c in parts[1:-1]]


def row_flags(first, opts):
    """The long names a row's first cell lists: --name, or -x for an option whose short is x."""
    shorts = {s: n for n, (s, _) in opts.items() if s}
    names = []
    for tok in re.findall(r"`([^`]*)`", first):
        for m in re.finditer(r"(?:^|[ ,])(--[a-z0-9-]+|-[a-zA-Z0-9])(?=$|[ ,])", tok):
            f = m.group(1)
            name = f[2:] if f.startswith("--") else shorts.get(f[1:], "?" + f)
            if name not in names:
                names.append(name)
    return names


def same_default(cell, default):
    """A doc's default cell says the --help default: equal, or it first, then a gloss."""
    cell = cell.replace("`", "").strip()
    return cell == default or cell.startswith(default + " (") or cell.startswith(default + ": ")


def common_rows(md):
    """The rows of '## Socket knobs (every workload)': each workload's own where it has the flag
    (a TCP-only knob is no udp-rr flag, and its row says so)."""
    m = re.search(r"^## Socket knobs \(every workload\)\n(.*?)(?=^## )", md, re.M | re.S)
    return m.group(1).splitlines() if m else []


def check_md(md, all_opts):
    errs = []
    common = [r for r in common_rows(md) if r.startswith("| `")]
    for wl in WORKLOADS:
        opts, seen = all_opts[wl], {}
        rows = md_section(md, wl) + [("common", r) for r in common]
        for row in rows:
            shared = isinstance(row, tuple)
            row = row[1] if shared else row
            if not row.startswith("| `"):
                continue
            c = cells(row)
            names = row_flags(c[0], opts)
            if shared:
                names = [n for n in names if n in opts]
            as_for = re.match(r"as for ([a-z-]+)", c[2]) if len(c) > 2 else None
            for n in names:
                if n.startswith("?") or n not in opts:
                    errs.append(f"docs/workloads.md {wl}: {n.lstrip('?')} is not a {wl} flag "
                                f"(--help has no such option)")
                    continue
                seen[n] = True
                want = opts[n][1]
                if as_for:
                    other = all_opts.get(as_for.group(1), {})
                    if n not in other or other[n][1] != want:
                        errs.append(f"docs/workloads.md {wl}: {n} is 'as for {as_for.group(1)}' but "
                                    f"the defaults differ ({want} against "
                                    f"{other.get(n, (None, 'none'))[1]})")
                    continue
                defaults = [d.strip() for d in c[1].split(",")] if len(names) > 1 else [c[1]]
                got = defaults[names.index(n)] if len(defaults) == len(names) else c[1]
                if not same_default(got, want):
                    errs.append(f"docs/workloads.md {wl}: {n} default '{got}', --help says '{want}'")
        for n in opts:
            if n not in seen:
                errs.append(f"docs/workloads.md {wl}: no row for --{n} (default {opts[n][1]})")
    return errs


def check_man(man, all_opts):
    errs = []
    for wl in WORKLOADS:
        m = re.search(rf"^\.SH {re.escape(wl.upper())}( OPTIONS)?\n(.*?)(?=^\.SH )", man, re.M | re.S)
        sec = m.group(2) if m else ""
        for n, (_, want) in all_opts[wl].items():
            flag = re.escape("\\-\\-" + n.replace("-", "\\-"))
            m = re.search(rf"^\.BR .*{flag}(?![a-z0-9]|\\-).*\n(.*)\n", sec, re.M)
            block = m.group(1) if m else ""
            if "(default: " + want.replace("-", "\\-") + ")" not in block:
                errs.append(f"man page {wl}: --{n} missing or its default is not '{want}'")
    return errs


def main():
    sb, md_path, man_path = sys.argv[1:4]
    all_opts = {wl: help_options(sb, wl) for wl in WORKLOADS}
    with open(md_path) as f:
        md = f.read()
    with open(man_path) as f:
        man = f.read()
    errs = check_md(md, all_opts) + check_man(man, all_opts)
    for e in errs:
        print(e)
    n = sum(len(o) for o in all_opts.values())
    print(f"{n} options of {len(WORKLOADS)} workloads: {len(errs)} problems")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())

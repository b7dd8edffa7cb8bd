#!/usr/bin/env python3
"""The docs against the binary. Usage: docs_drift.py SOCKBENCH ROOT [COMPLETION]
ROOT holds README.md, docs/*.md and docs/sockbench.1 (the tree, or a copy with a planted drift);
COMPLETION: a completion script to read instead of `SOCKBENCH completion bash`'s. Checks:
- defaults: a default the docs give for a flag, written "`--flag` (N" (hosts.md's caps,
  openloop.md's knee), "`--flag` ... (N by default)" or "`sockbench CMD ... [--flag N]`" (a
  synopsis with its defaults), is a default some command's --help prints for that flag (the
  synopsis: CMD's own);
- commands: every command `sockbench help` lists (the command table) is in the man page's
  SYNOPSIS, among the words `sockbench completion bash` completes first, and named in README.md
  or docs/*.md;
- no doc names an internal issue number ("issue 41", "issue #41").
Exit 1 with one line per problem."""
import glob
import os
import re
import subprocess
import sys

UNITS = {"": 1, "s": 1, "/s": 1, "ms": 1e-3, "us": 1e-6, "KiB": 1 << 10, "MiB": 1 << 20,
         "GiB": 1 << 30, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
NUM = r"([0-9][0-9,]*(?:\.[0-9]+)?) ?(s|/s|ms|us|KiB|MiB|GiB|K|M|G)?\b"
# A flag's line in --help: "  -o, --output FILE.html   what (default: X)".
HELP_LINE = re.compile(r"^  (?:-\S, |    )--([a-z0-9-]+)\b.*\(default: ([^)]*)\)$")
# A default a command's --help gives in its prose: "in --runs rounds (default 3)".
HELP_PROSE = re.compile(r"--([a-z0-9-]+) [a-z]+ \(default ([0-9][0-9,.]*)\)")


def run(args):
    return subprocess.run(args, capture_output=True, text=True).stdout


def commands(sb):
    """The workloads and other commands `sockbench help` lists, in its order."""
    names, on = [], False
    for line in run([sb, "help"]).splitlines():
        if line in ("workloads:", "other commands:"):
            on = True
        elif on and re.match(r"^  [a-z]", line):
            names.append(line.split()[0])
    return names


def help_defaults(sb, names):
    """{command: {flag: default text}} from each command's --help."""
    out = {}
    for c in names:
        text = run([sb, c, "--help"])
        d = {m.group(1): m.group(2) for m in map(HELP_LINE.match, text.splitlines()) if m}
        for m in HELP_PROSE.finditer(text):
            d.setdefault(m.group(1), m.group(2))
        out[c] = d
    return out


def value(num, unit):
    return float(num.replace(",", "")) * UNITS[unit or ""]


def leading(default):
    """The number a --help default starts with ("12; fewer when ..." -> 12), else None."""
    m = re.match(r"([0-9][0-9,]*(?:\.[0-9]+)?)(?=$|[;, ])", default)
    return value(m.group(1), "") if m else None


def same(said, default):
    want = leading(default)
    return want is not None and abs(said - want) <= 1e-9 * max(1.0, abs(want))


def check_defaults(docs, defaults):
    errs = []
    anywhere = {}
    for c, d in defaults.items():
        for flag, dflt in d.items():
            anywhere.setdefault(flag, []).append((c, dflt))
    pats = [re.compile(r"`--([a-z0-9-]+)` \(" + NUM),
            re.compile(r"`--([a-z0-9-]+)`[^.;()`]{0,40}\(" + NUM + r" by default\)")]
    for path, text in docs.items():
        for pat in pats:
            for m in pat.finditer(text):
                flag, said = m.group(1), value(m.group(2), m.group(3))
                known = [(c, d) for c, d in anywhere.get(flag, []) if leading(d) is not None]
                if known and not any(same(said, d) for _, d in known):
                    errs.append(f"{path}: `--{flag}` {m.group(2)}{m.group(3) or ''}, but --help "
                                f"says {', '.join(f'{c}: {d}' for c, d in known)}")
        for m in re.finditer(r"sockbench ([a-z-]+) [^`\n]*", text):
            cmd = m.group(1)
            for f in re.finditer(r"\[--([a-z0-9-]+) ([0-9][0-9,.]*)\]", m.group(0)):
                dflt = defaults.get(cmd, {}).get(f.group(1))
                if dflt is not None and leading(dflt) is not None and \
                        not same(value(f.group(2), ""), dflt):
                    errs.append(f"{path}: sockbench {cmd} [--{f.group(1)} {f.group(2)}], but "
                                f"{cmd} --help says its default is {dflt}")
    return errs


def completion_first_words(script):
    """What bash offers after `sockbench ` with the script loaded."""
    out = subprocess.run(["bash", "-c", '. "$1"; COMP_WORDS=(sockbench ""); COMP_CWORD=1; '
                          '_sockbench; printf "%s\\n" "${COMPREPLY[@]}"', "_", script],
                         capture_output=True, text=True).stdout
    return set(out.split())


def check_commands(names, root, docs, completion):
    errs = []
    man = open(os.path.join(root, "docs/sockbench.1")).read()
    m = re.search(r"^\.SH SYNOPSIS\n(.*?)(?=^\.SH )", man, re.M | re.S)
    synopsis = set(re.findall(r"^\.B sockbench (\S+)", m.group(1) if m else "", re.M))
    synopsis = {s.replace("\\-", "-") for s in synopsis}
    offered = completion_first_words(completion)
    prose = "\n".join(docs.values())
    for c in names:
        if c not in synopsis:
            errs.append(f"docs/sockbench.1: the SYNOPSIS lacks {c} (make man)")
        if c not in offered:
            errs.append(f"sockbench completion bash: does not offer {c} after 'sockbench '")
        if not re.search(rf"(sockbench {re.escape(c)}\b|`{re.escape(c)}`)", prose):
            errs.append(f"README.md and docs/*.md never name the command {c}")
    return errs


def check_issue_numbers(root, docs):
    errs = []
    texts = dict(docs)
    for p in ("docs/sockbench.1", "docs/sockbench.1.in"):
        if os.path.exists(os.path.join(root, p)):
            texts[p] = open(os.path.join(root, p)).read()
    for path, text in texts.items():
        for n, line in enumerate(text.splitlines(), 1):
            m = re.search(r"\b[Ii]ssues? #?[0-9]+|#[0-9]{2,}\b", line)
            if m:
                errs.append(f"{path}:{n}: names an internal issue number ('{m.group(0)}')")
    return errs


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    sb, root = sys.argv[1], sys.argv[2]
    docs = {}
    for p in ["README.md"] + sorted(glob.glob(os.path.join(root, "docs/*.md"))):
        full = p if os.path.isabs(p) else os.path.join(root, p)
        docs[os.path.relpath(full, root)] = open(full).read()
    names = commands(sb)
    if len(names) < 10:
        print(f"sockbench help: only {len(names)} commands read: {names}")
        return 1
    completion = sys.argv[3] if len(sys.argv) == 4 else None
    if not completion:
        completion = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"sb-compl-{os.getpid()}")
        with open(completion, "w") as f:
            f.write(run([sb, "completion", "bash"]))
    try:
        errs = check_defaults(docs, help_defaults(sb, names))
        errs += check_commands(names, root, docs, completion)
        errs += check_issue_numbers(root, docs)
    finally:
        if len(sys.argv) == 3:
            os.unlink(completion)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())

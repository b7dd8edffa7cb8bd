# The fleet's recipes start sockbench with flags it accepts: the Kubernetes manifests in
# docs/k8s/ (read as YAML) and the Containerfile's ENTRYPOINT and CMD (JSON arrays). Every
# sockbench invocation in them is found, and each of its flags must be one its subcommand's
# --help lists; the agent's args must also start an agent (serve --help parses them).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
cd "$(dirname "$0")/../.."
python3 - "$TMP/calls" docs/k8s/*.yaml Containerfile <<'PY' || fail "could not read the manifests"
import json, re, shlex, sys, yaml
out = open(sys.argv[1], "w")
def calls(text, where):
    # Every "sockbench SUB ..." in a command line or a shell script (continuations joined).
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        m = re.search(r"(?:^|[\s/])sockbench\s+([a-z-]+)(.*)", line)
        if m:
            flags = re.findall(r"(?:^|\s)(--[a-z][a-z-]*)", m.group(2))
            out.write("%s\t%s\t%s\n" % (where, m.group(1), " ".join(flags)))
def containers(doc):
    spec = (doc or {}).get("spec", {})
    tmpl = spec.get("template", {}).get("spec", {})
    return tmpl.get("containers", [])
for path in sys.argv[2:]:
    if path.endswith(".yaml"):
        for doc in yaml.safe_load_all(open(path)):
            for c in containers(doc):
                cmd = c.get("command", []) + c.get("args", [])
                if cmd[:2] == ["/bin/sh", "-c"]:
                    calls(" ".join(cmd[2:]), path + ":" + c["name"])
                else:
                    calls(" ".join(shlex.quote(x) for x in cmd), path + ":" + c["name"])
    else:
        entry, cmd = [], []
        for line in open(path):
            if line.startswith("ENTRYPOINT "):
                entry = json.loads(line[len("ENTRYPOINT "):])
            if line.startswith("CMD "):
                cmd = json.loads(line[len("CMD "):])
        calls(" ".join(entry + cmd), path)
PY
n=0
while IFS=$'\t' read -r where sub flags; do
	n=$((n + 1))
	help=$("$SB" "$sub" --help 2>&1) || fail "$where: sockbench $sub is not a subcommand"
	for f in $flags; do
		grep -qE -- "(^|[ ,])$f([ =]|$)" <<<"$help" || fail "$where: sockbench $sub does not take $f"
	done
	echo "$where: sockbench $sub $flags: accepted"
done <"$TMP/calls"
[ $n -ge 3 ] || fail "found $n sockbench invocations in the manifests, expected 3 (agent, controller, image)"
# A flag the agent does not take would be caught: the check itself can fail.
grep -qE -- "(^|[ ,])--no-such-flag([ =]|$)" <<<"$("$SB" serve --help 2>&1)" && fail "the flag check accepts anything"
exit 0

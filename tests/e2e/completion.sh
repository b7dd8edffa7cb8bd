# `sockbench completion bash`: the script parses, and completing in a real bash gives each
# command's flags as its --help lists them (from the same table), an enum flag's words, a
# workload after explore and sweep with their own flags, and nothing made up.
. "$(dirname "$0")/lib.sh"
"$SB" completion bash >"$TMP/c.bash" || fail "completion bash"
bash -n "$TMP/c.bash" || fail "the completion script does not parse"
# complete WORD... -> the candidates bash would offer for the last word, one a line.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sockbench; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$TMP/c.bash" "$@"
}
complete_words sockbench "" | grep -qx udp-rr || fail "no udp-rr among the commands"
complete_words sockbench ud | grep -qx udp-stream || fail "ud does not complete to udp-stream"
for w in udp-rr tcp-crr tcp-rr tcp-stream udp-stream serve; do
	# The flag column of --help (not flags its prose names), and --help itself.
	{ "$SB" $w --help | sed -nE 's/^  (-[a-zA-Z0-9], |    )(--[a-z0-9-]+).*/\2/p'; echo --help; } | sort -u >"$TMP/help"
	[ "$(wc -l <"$TMP/help")" -ge 8 ] || fail "$w: read only $(wc -l <"$TMP/help") flags from --help"
	complete_words sockbench $w -- | sort -u >"$TMP/comp"
	missing=$(comm -23 "$TMP/help" "$TMP/comp" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$w: --help lists flags the completion does not offer: $missing"
	extra=$(comm -13 "$TMP/help" "$TMP/comp" | tr '\n' ' ')
	[ -z "$extra" ] || fail "$w: the completion offers flags --help does not list: $extra"
done
complete_words sockbench udp-rr --wait "" | sort | tr '\n' ' ' | grep -qx "auto block busy epoll poll " ||
	fail "--wait's words: $(complete_words sockbench udp-rr --wait "" | tr '\n' ' ')"
complete_words sockbench sweep "" | grep -qx tcp-crr || fail "sweep does not offer the workloads"
complete_words sockbench sweep udp-rr --c | grep -qx -- --csv || fail "sweep udp-rr does not offer --csv"
complete_words sockbench explore tcp-crr --bu | grep -qx -- --budget || fail "explore does not offer --budget"
complete_words sockbench udp-rr --no-such | grep -q . && fail "completed a flag that does not exist"
echo ok

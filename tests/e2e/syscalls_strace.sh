# Our count of system calls against strace's, which counts on its own: a count-based tcp-crr
# with no warm-up has every data-path call inside the window, so the two must agree (strace
# also sees the few calls of setup and the control connection: a small, bounded surplus).
. "$(dirname "$0")/lib.sh"
need jq
need strace
strace -f -qq -c -o "$TMP/st.txt" "$SB" tcp-crr --conns 500 --warmup-conns 0 --json >"$TMP/r.json" 2>/dev/null \
	|| skip "strace cannot trace here"
count() { awk -v c="$1" '$NF == c {print $4; f=1} END {if (!f) print 0}' "$TMP/st.txt"; }
recv=$(count recvfrom) send=$(count sendto)
[ "$recv" -eq 1500 ] || fail "strace saw $recv recvfrom, expected 3 per connection (1500)"
[ "$send" -eq 1000 ] || fail "strace saw $send sendto, expected 2 per connection (1000)"
theirs=$(($(count socket) + $(count connect) + recv + send + $(count setsockopt) + $(count accept4) + $(count close)))
ours=$(jq '.sides.client.syscalls + .sides.server.syscalls' "$TMP/r.json")
[ "$ours" -eq 5500 ] || fail "we counted $ours data-path calls, expected 11 per connection (5500)"
surplus=$((theirs - ours))
[ $surplus -ge 0 ] && [ $surplus -le 100 ] || fail "strace counted $theirs of those calls, we $ours"
echo "ok: ours $ours, strace $theirs (setup and control: $surplus)"

# The event-loop receive (--recv epoll): epoll_wait and epoll_ctl are counted too.
strace -f -qq -c -o "$TMP/st.txt" "$SB" tcp-crr --recv epoll --conns 500 --warmup-conns 0 --json >"$TMP/e.json" 2>/dev/null \
	|| fail "tcp-crr --recv epoll under strace failed"
theirs=$(($(count socket) + $(count connect) + $(count recvfrom) + $(count sendto) + $(count setsockopt) \
	+ $(count accept4) + $(count close) + $(count epoll_wait) + $(count epoll_ctl)))
ours=$(jq '.sides.client.syscalls + .sides.server.syscalls' "$TMP/e.json")
[ "$(count epoll_wait)" -ge 1000 ] || fail "strace saw $(count epoll_wait) epoll_wait for 500 connections"
surplus=$((theirs - ours))
[ $surplus -ge 0 ] && [ $surplus -le 100 ] || fail "--recv epoll: strace counted $theirs, we $ours"
echo "ok: --recv epoll: ours $ours, strace $theirs"

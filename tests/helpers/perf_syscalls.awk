# perf script -F comm,pid,tid,ip,sym output of `perf record -g`, to each side's time per syscall
# as sockbench books it, but with the syscall named by perf's own symbolization of the user-space
# caller (the first user frame above the kernel's): an independent witness of the profiler's
# attribution, whatever the guest's entry path looks like. Sides come from -v clients="PID ..."
# and -v server=PID. Prints "side<TAB>name<TAB>pct<TAB>side's samples" lines.
function norm(s) {
	sub(/\+0x[0-9a-f]+$/, "", s)
	while (s ~ /^(__libc_|__GI_|__)./)
		sub(/^(__libc_|__GI_|__)/, "", s)
	if (s ~ /^io_uring_/ || s ~ /^sys_io_uring_enter/)
		return "io_uring_enter"
	return s
}
BEGIN {
	RS = ""
	FS = "\n"
	n = split(clients, c, " ")
	for (i = 1; i <= n; i++)
		side[c[i]] = "client"
	side[server] = "server"
}
{
	split($1, h, " ")
	pid = h[2]
	sub(/\/.*/, "", pid)
	if (!(pid in side))
		next
	s = side[pid]
	total[s]++
	dispatch = 0
	exitf = 0
	softirq = 0
	user = ""
	for (i = 2; i <= NF; i++) {
		split($i, f, " ")
		addr = f[1]
		sym = f[2]
		kern = length(addr) == 16 && addr ~ /^ffff[89a-f]/
		if (!kern) {
			if (i == 2) {
				user = "(user space)"
				break
			}
			if (user == "")
				user = norm(sym)
			break
		}
		if (sym ~ /^(do_syscall_64|x64_sys_call|entry_SYSCALL)/)
			dispatch = 1
		if (sym ~ /^(exit_to_user_mode|syscall_exit)/)
			exitf = 1
		if (sym ~ /^(handle_softirqs|__do_softirq|net_rx_action|do_softirq)$/)
			softirq = 1
	}
	if (user == "(user space)")
		name = user
	else if (dispatch && exitf)
		name = "(syscall exit: rescheduling, signals)"
	else if (dispatch)
		name = user != "" && user != "syscall" ? user : "(syscall entry, unattributed)"
	else if (softirq)
		name = "(softirq)"
	else
		name = "(kernel, outside a syscall)"
	cnt[s, name]++
}
END {
	for (k in cnt) {
		split(k, p, SUBSEP)
		printf "%s\t%s\t%.2f\t%d\n", p[1], p[2], 100 * cnt[k] / total[p[1]], total[p[1]]
	}
}

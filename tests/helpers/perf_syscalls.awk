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
	nh = split($1, h, " ")
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
	if (blocks > 0) {
		t = h[nh] + 0
		b = int((t - t0) * blocks / (t1 - t0))
		b = b < 0 ? 0 : b >= blocks ? blocks - 1 : b
		bn[s, b]++
		bc[s, name, b]++
	}
}
# With -v blocks=K -v t0=S -v t1=S (input with the time field), a fifth column: how much more
# a share moves between K time blocks of the window than independent samples would make it
# (batch means: between-block variance of the share over the binomial one, at least 1). Samples
# of a software clock come in runs, not one by one, so a share rests on fewer independent
# draws than it has samples.
function disp(s, name,    b, q, v, k) {
	q = cnt[s, name] / total[s]
	if (blocks < 2 || q <= 0 || q >= 1)
		return 1
	v = 0
	k = 0
	for (b = 0; b < blocks; b++) {
		if (bn[s, b] == 0)
			continue
		v += bn[s, b] * (bc[s, name, b] / bn[s, b] - q) ^ 2
		k++
	}
	if (k < 2)
		return 1
	v /= (k - 1) * q * (1 - q)
	return v > 1 ? v : 1
}
END {
	for (k in cnt) {
		split(k, p, SUBSEP)
		printf "%s\t%s\t%.2f\t%d", p[1], p[2], 100 * cnt[k] / total[p[1]], total[p[1]]
		if (blocks > 0)
			printf "\t%.3f", disp(p[1], p[2])
		printf "\n"
	}
}

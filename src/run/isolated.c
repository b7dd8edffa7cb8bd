/* isolated.c: one run in a child process of its own (run_isolated), for the commands that
 * make many runs. It wraps a whole run (run_once, run.c) and reads the signal flag (state.c);
 * nothing in run/ calls it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "base/util.h"
#include "report/out.h"
#include "run/run.h"
#include "run/state_priv.h"

const char *run_status_name(enum run_status s)
{
	return s == RUN_WHOLE ? "whole" : s == RUN_PARTIAL ? "partial" : "failed";
}

/* What a child wrote on one of its pipes: a string that grows. */
struct taken {
	char *buf;
	size_t len, cap;
};

/* Append what came on fd to t (a bounded string); false at EOF. */
static bool take_into(int fd, struct taken *t)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			die("out of memory");
	}
	memcpy(t->buf + t->len, chunk, (size_t)n);
	t->len += (size_t)n;
	t->buf[t->len] = '\0';
	return true;
}

/* The last non-empty line of text, without "sockbench: ". */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	if (!strncmp(start, "sockbench: ", 11))
		start += 11;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* The child: the run, its document written on out, its messages on err. Does not return. */
static void __attribute__((noreturn))
child_run(const struct workload *wl, const struct opts *o, const int out[2], const int err[2])
{
	struct result res;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(err[1], STDERR_FILENO);
	/* The command above prints: a run's own lines (-i) stay in its document. */
	int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (nul >= 0)
		dup2(nul, STDOUT_FILENO);
	close(out[0]);
	close(err[0]);
	struct run_error e;
	int rc = run_once(wl, o, &res, &e);

	if (rc < 0) { /* the parent takes the last line on stderr as why */
		fprintf(stderr, "sockbench: %s\n", e.msg);
		_exit(e.usage ? 2 : 1);
	}
	cJSON *j = out_result_json(&res);
	char *txt = cJSON_PrintUnformatted(j);

	write_full(out[1], txt, strlen(txt));
	_exit(rc);
}

/* Read the child's document (ofd, into ot) and messages (efd, into et) until both pipes
 * close, passing a Ctrl-C on to it. */
static void read_child(pid_t pid, int ofd, int efd, struct taken *ot, struct taken *et)
{
	struct pollfd p[2] = {{.fd = ofd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
	bool told = false;

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (run_sig && !told) { /* it may have reached us alone (kill): pass it on */
			kill(pid, run_sig);
			told = true;
		}
		if (poll(p, 2, 100) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if (!take_into(p[i].fd, i == 0 ? ot : et)) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
}

/* What the run came to, from its document (NULL: none came) and the child's exit status;
 * why: what kept it from being whole, where its messages did not say. */
static enum run_status run_verdict(const cJSON *doc, int status, char *why, size_t whylen)
{
	bool exited0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (!doc) {
		if (!why[0])
			snprintf(why, whylen, "the run %s",
				 WIFSIGNALED(status) ? "was killed" : "failed");
		return RUN_FAILED;
	}
	bool partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "partial"));

	if (!exited0 || partial) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(doc, "partial_reason");

		if (cJSON_IsString(r) && r->valuestring[0])
			snprintf(why, whylen, "%s", r->valuestring);
		return RUN_PARTIAL;
	}
	return RUN_WHOLE;
}

enum run_status run_isolated(const struct workload *wl, const struct opts *o, cJSON **doc,
			     char *why, size_t whylen)
{
	int out[2], err[2], status = 0;
	struct taken ot = {.buf = xmalloc(65536), .cap = 65536};
	struct taken et = {.buf = xmalloc(4096), .cap = 4096};

	*doc = NULL;
	why[0] = ot.buf[0] = et.buf[0] = '\0';
	fflush(NULL);
	if (pipe2(out, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		goto failed;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		close(out[0]);
		close(out[1]);
		goto failed;
	}
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close(out[i]);
			close(err[i]);
		}
		goto failed;
	}
	if (pid == 0)
		child_run(wl, o, out, err);
	close(out[1]);
	close(err[1]);
	read_child(pid, out[0], err[0], &ot, &et);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*doc = ot.len ? cJSON_Parse(ot.buf) : NULL;
	last_line(et.buf, why, whylen);
	free(ot.buf);
	free(et.buf);
	return run_verdict(*doc, status, why, whylen);
failed:
	free(ot.buf);
	free(et.buf);
	return RUN_FAILED;
}

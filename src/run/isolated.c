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

/* Append what came on fd to buf (a bounded string); false at EOF. */
static bool take_into(int fd, char **buf, size_t *len, size_t *cap)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (*len + (size_t)n + 1 > *cap) {
		*cap = (*len + (size_t)n + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			die("out of memory");
	}
	memcpy(*buf + *len, chunk, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
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

enum run_status run_isolated(const struct workload *wl, const struct opts *o, cJSON **doc,
			     char *why, size_t whylen)
{
	int out[2], err[2], status = 0;
	char *obuf = xmalloc(65536), *ebuf = xmalloc(4096);
	size_t olen = 0, elen = 0, ocap = 65536, ecap = 4096;
	bool told = false;

	*doc = NULL;
	why[0] = obuf[0] = ebuf[0] = '\0';
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
	if (pid == 0) {
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
	close(out[1]);
	close(err[1]);
	struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (run_sig && !told) { /* Ctrl-C reached us alone (kill): pass it on */
			kill(pid, SIGINT);
			told = true;
		}
		if (poll(p, 2, 100) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			bool more = i == 0 ? take_into(p[i].fd, &obuf, &olen, &ocap)
					   : take_into(p[i].fd, &ebuf, &elen, &ecap);

			if (!more) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*doc = olen ? cJSON_Parse(obuf) : NULL;
	last_line(ebuf, why, whylen);
	free(obuf);
	free(ebuf);
	bool exited0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (!*doc) {
		if (!why[0])
			snprintf(why, whylen, "the run %s", WIFSIGNALED(status) ? "was killed" : "failed");
		return RUN_FAILED;
	}
	bool partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*doc, "partial"));

	if (!exited0 || partial) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(*doc, "partial_reason");

		if (cJSON_IsString(r) && r->valuestring[0])
			snprintf(why, whylen, "%s", r->valuestring);
		return RUN_PARTIAL;
	}
	return RUN_WHOLE;
failed:
	free(obuf);
	free(ebuf);
	return RUN_FAILED;
}

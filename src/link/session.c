/* session.c: what both sides of a test in the agent use (server_side.c, client_side.c): its
 * log line, its ERROR frame and how long its phases may take. It calls neither side.
 */
#include <stdio.h>
#include <string.h>

#include "base/safe_text.h"
#include "link/ctl.h"
#include "link/handshake.h"
#include "link/session.h"

/* arg may hold what a controller sent (a config key or value in a refusal): escaped, so it can
 * neither start a log line of its own nor reach a terminal as a control. */
void session_log(const struct session *ss, const char *fmt, const char *arg)
{
	char text[2048];

	if (!ss->verbose)
		return;
	fprintf(stderr, "sockbench serve: %s: ", ss->who);
	fprintf(stderr, fmt, safe_text_log(text, sizeof(text), arg));
	fputc('\n', stderr);
}

void session_error(struct session *ss, const char *msg, int err, bool usage)
{
	char txt[600];

	serve_error_json(txt, sizeof(txt), msg, err, usage);
	ctl_send(ss->fd, CTL_MSG_ERROR, txt, strlen(txt));
	session_log(ss, "refused: %s", msg);
}

/* The longest a phase of this test may take: its warm-up or window, or for a count-based test
 * the controller's --time-limit (each within this agent's --max-duration). */
double phase_limit_s(const struct session *ss, bool window)
{
	bool counted = ss->wl->count_based && ss->wl->count_based(&ss->o);
	double s = counted ? ss->o.time_limit : window ? ss->o.duration : ss->o.warmup;

	return s < ss->so->max_duration ? s : ss->so->max_duration;
}

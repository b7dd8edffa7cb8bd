/* handshake.c: the agent's side of a handshake, one whole frame at a time (HELLO, AUTH,
 * SETUP), and a SETUP checked as the command line and the agent's caps would: pure functions
 * of their input, which the session fuzzer drives. */
#include <cjson/cJSON.h>
#include <errno.h>

#include "link/ctl.h"
#include "link/handshake.h"
#include "workload/workload.h"

void serve_error_json(char *buf, size_t len, const char *msg, int err, int usage)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddNumberToObject(j, "errno", err);
	cJSON_AddBoolToObject(j, "usage", usage);
	if (!cJSON_PrintPreallocated(j, buf, (int)len, false))
		snprintf(buf, len, "{\"error\":\"refused\",\"errno\":%d,\"usage\":false}", err);
	cJSON_Delete(j);
}

void serve_hs_start(struct serve_hs *h, const struct auth_key *key)
{
	*h = (struct serve_hs){.state = HS_HELLO, .key = key};
	if (key)
		auth_challenge(h->challenge, sizeof(h->challenge));
}

int serve_hs_frame(struct serve_hs *h, unsigned type, const char *payload, unsigned *rtype,
		   char *reply, size_t rlen)
{
	const struct auth_key *key = h->key;

	*rtype = CTL_MSG_ERROR;
	reply[0] = '\0';
	if (h->state == HS_HELLO && type == CTL_MSG_HELLO) {
		snprintf(reply, rlen, "{\"agent\":\"sockbench\",\"protocol\":1%s%s%s}",
			 key ? ",\"challenge\":\"" : "", key ? h->challenge : "", key ? "\"" : "");
		*rtype = CTL_MSG_ACK;
		return h->state = key ? HS_AUTH : HS_SETUP;
	}
	if (h->state == HS_AUTH && type == CTL_MSG_AUTH) {
		cJSON *j = cJSON_Parse(payload);
		const cJSON *mac = cJSON_GetObjectItemCaseSensitive(j, "mac");
		bool ok = key && cJSON_IsString(mac) && auth_verify(key, h->challenge, mac->valuestring);

		cJSON_Delete(j);
		if (!ok) {
			serve_error_json(reply, rlen,
					 "authentication failed: wrong or missing secret (--auth-file)",
					 EACCES, 0);
			return h->state = HS_FAILED;
		}
		*rtype = CTL_MSG_ACK;
		return h->state = HS_SETUP;
	}
	if (h->state == HS_SETUP && (type == CTL_MSG_SETUP || type == CTL_MSG_VOUCH)) {
		*rtype = 0;
		return h->state = type == CTL_MSG_SETUP ? HS_DONE : HS_VOUCH;
	}
	serve_error_json(reply, rlen,
			 h->state == HS_HELLO ? "expected a HELLO frame of this protocol's version"
			 : h->state == HS_AUTH ? "expected AUTH (this agent has a secret)"
					       : "expected SETUP (or VOUCH)",
			 EPROTO, 0);
	return h->state = HS_FAILED;
}

/* The agent's caps, each refusal naming the cap. 0 or -EPERM with err. */
static int check_caps(const struct opts *so, const struct workload *wl, const struct opts *o,
		      char *err, size_t errlen)
{
	bool counted = wl->count_based && wl->count_based(o);
	double secs = counted ? o->time_limit : o->warmup + o->duration;
	long flows = o->clients * (o->flows > o->concurrency ? o->flows : o->concurrency);
	long bufs[] = {o->size, o->request, o->response, o->rcvbuf, o->sndbuf, o->read_size};
	double bytes = wl->server_bytes ? wl->server_bytes(o) : 0;

	flows = flows > o->peers ? flows : o->peers;
	flows = flows > o->server_threads ? flows : o->server_threads;
	if (secs > so->max_duration) {
		snprintf(err, errlen, "the test would run %.0f s (%s), beyond this agent's "
			 "--max-duration %.0f", secs,
			 counted ? "its --time-limit, the most a count-based run may take"
				 : "--warmup + --duration", so->max_duration);
		return -EPERM;
	}
	if (flows > so->max_flows) {
		snprintf(err, errlen, "%ld sockets or threads, beyond this agent's --max-flows %ld",
			 flows, so->max_flows);
		return -EPERM;
	}
	if (counted && o->conns > so->max_conns) {
		snprintf(err, errlen, "%ld connections, beyond this agent's --max-conns %ld",
			 o->conns, so->max_conns);
		return -EPERM;
	}
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		if (bufs[i] > so->max_buffer) {
			snprintf(err, errlen, "a message or buffer of %ld bytes, beyond this "
				 "agent's --max-buffer %ld", bufs[i], so->max_buffer);
			return -EPERM;
		}
	}
	if (bytes > (double)so->max_memory) {
		snprintf(err, errlen, "the server side would take %.0f MiB of buffers, beyond "
			 "this agent's --max-memory %.0f MiB (fewer flows or smaller --size)",
			 bytes / 1048576, (double)so->max_memory / 1048576);
		return -EPERM;
	}
	return 0;
}

int serve_setup_check(const struct opts *so, const char *payload, const struct workload **wl,
		      struct opts *o, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(payload);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "workload");
	int ret = -EINVAL;

	opts_defaults(o, NULL);
	if (!cJSON_IsString(name) || !(*wl = workload_find(name->valuestring))) {
		snprintf(err, errlen, "SETUP names no known workload");
		goto out;
	}
	opts_free(o);
	opts_defaults(o, (*wl)->overrides);
	if (opts_from_json((*wl)->opts, (*wl)->overrides, cJSON_GetObjectItemCaseSensitive(j, "config"),
			   o, err, errlen) ||
	    (*wl)->check(o, err, errlen))
		goto out;
	ret = check_caps(so, *wl, o, err, errlen);
out:
	cJSON_Delete(j);
	return ret;
}


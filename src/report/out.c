/* out.c: see out.h: what the JSON writer (json.c) and the table (table.c) share. Every figure
 * printed comes from struct result. */
#include "report/out.h"
#include "report/out_priv.h"
#include "base/safe_text.h"
#include "measure/noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double result_units(const struct result *r)
{
	return r->wl->units ? r->wl->units(r) : (double)r->client.c.transactions;
}

double result_server_units(const struct result *r)
{
	return r->server_units_withheld[0] ? NAN : result_units(r);
}

double result_side_units(const struct result *r, bool server)
{
	/* No unit completed: no figure per unit on either side (the run says why it failed). */
	bool rr = !r->wl->units && r->lat && r->lat->count && result_units(r) > 0;

	if (server && (!rr || !r->server.present || !r->server.c.transactions ||
		       r->server_units_withheld[0]))
		return result_server_units(r);
	if (server)
		return (double)r->server.c.transactions;
	return rr ? result_units(r) + (double)r->lat->censored : result_units(r);
}

double result_rate(const struct result *r)
{
	return r->duration_s > 0 ? result_units(r) / r->duration_s : 0.0;
}


bool out_is_udp(const struct result *r)
{
	return !strcmp(r->wl->snmp_proto, "Udp");
}

/* The headline packet rate: what the server received per second (each of its recvmsg and
 * sendmsg, as the report counted), or the client's answers when the server did not report. */
double out_packets_per_s(const struct result *r)
{
	if (r->server.present)
		return result_per_s(r->server.c.rx_packets, r->duration_s);
	return result_per_s(r->client.c.rx_packets, r->duration_s);
}

/* Workloads that count transactions (not bytes or packets of a stream). */
bool out_per_transaction(const struct result *r)
{
	return !r->wl->units;
}

/* A client host of --clients-on seen as a run of its own: its side as the client, its
 * window, its kernel; nothing of the server's. */
static struct result host_view(const struct result *r, const struct host_result *h)
{
	return (struct result){.wl = r->wl, .cfg = r->cfg, .duration_s = h->window_s,
			       .client = h->side, .kernel_ok = h->kernel_ok, .kernel = h->kernel};
}

double out_host_units(const struct result *r, const struct host_result *h)
{
	struct result x = host_view(r, h);
	double u = result_units(&x);

	/* A stream's units are counted where the data arrives; from a sending host, its sends. */
	if (u <= 0 && r->wl->units)
		u = r->wl->shows & SHOWS_MEGABYTES ? (double)h->side.c.tx_bytes / 1e6
						    : (double)h->side.c.tx_packets;
	return u;
}

int out_host_pairs(const struct result *r, const struct host_result *h, struct kernel_pair *p)
{
	struct result x = host_view(r, h);

	return h->kernel_ok ? r->wl->kernel_pairs(&x, p) : 0;
}

int out_kernel_pairs(const struct result *r, struct kernel_pair *p)
{
	if (!r->nhosts)
		return r->wl->kernel_pairs(r, p);
	/* Fanned out: this machine's kernel counted only this machine's clients. */
	return r->hosts[0].local ? out_host_pairs(r, &r->hosts[0], p) : 0;
}

const char *out_pairs_missing(const struct result *r)
{
	if (r->nhosts)
		return NULL; /* each host's pairs are its own clients' */
	if (!r->client.present)
		return "client";
	return r->server_local && !r->server.present ? "server" : NULL;
}

/* The progress line goes to a terminal, or wherever SOCKBENCH_PROGRESS=1 says (a CI log, a
 * script that waits for the window to open); SOCKBENCH_PROGRESS=0 keeps a terminal quiet. */
static bool progress_on(void)
{
	const char *force = getenv("SOCKBENCH_PROGRESS");

	return force ? strcmp(force, "1") == 0 : isatty(STDERR_FILENO);
}

void out_progress(const char *what, double done, double total, const char *unit,
		  double elapsed_s)
{
	if (!progress_on())
		return;
	char a[32], b[32];

	if (unit && done > 0 && total > 0)
		fprintf(stderr, "\r\033[K%s: %s of %s %ss, %.0f s elapsed, ~%.0f s left", what,
			fmt_sep(a, sizeof(a), done, 0), fmt_sep(b, sizeof(b), total, 0), unit,
			elapsed_s, elapsed_s * (total - done) / done);
	else if (!unit)
		fprintf(stderr, "\r\033[K%s: %.0f of %.0f s", what, done, total);
	else
		fprintf(stderr, "\r\033[K%s: %.0f s elapsed", what, elapsed_s);
	fflush(stderr);
}

void out_progress_end(void)
{
	if (progress_on())
		fprintf(stderr, "\r\033[K");
}

int out_noise_warnings(FILE *f)
{
	struct noise n;
	const char *force = getenv("SOCKBENCH_NOISE_CHECK");

	if (force ? strcmp(force, "1") != 0 : !isatty(fileno(f)))
		return 0;
	noise_check(&n, 200);
	/* what names other processes (their comm, which they choose) and this host's clock */
	for (int i = 0; i < n.n; i++) {
		char what[4 * sizeof(n.f[i].what)];

		fprintf(f, "sockbench: noise: %s: %s (fix: %s)\n",
			safe_text(what, sizeof(what), n.f[i].what), n.f[i].does, n.f[i].fix);
	}
	return n.n;
}

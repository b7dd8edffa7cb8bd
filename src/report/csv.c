/* csv.c: --format csv and --fields (out.h): a header and a row per run, read from the run's JSON
 * document (the tree --json prints), so a CSV value is the JSON's value, printed the same way.
 * A field is a JSON member by its dotted path ("latency_us.p99"); `run` is the row's number. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "base/safe_text.h"
#include "base/util.h"
#include "report/figures.h"
#include "report/out.h"

/* The first columns of every default row, before the figures the document has. */
static const char *const head_fields[] = {"run", "workload", "partial", "duration_s", "unit"};
/* Members beyond the figure table that a script may ask for, and the workloads whose documents
 * hold them (SHOWS_*, as the figure table marks its figures; 0: every workload's). */
static const struct {
	const char *path;
	unsigned shows;
} more_fields[] = {
	{"transactions", SHOWS_TRANSACTIONS}, {"lost", SHOWS_TRANSACTIONS},
	{"late", SHOWS_TRANSACTIONS}, {"errors", 0}, {"megabytes", SHOWS_MEGABYTES},
	{"packets", SHOWS_DATAGRAMS}, {"jitter_ms", SHOWS_DATAGRAMS},
	{"latency_us.count", SHOWS_TRANSACTIONS}, {"latency_us.min", SHOWS_TRANSACTIONS},
	{"latency_us.mean", SHOWS_TRANSACTIONS}, {"latency_us.max", SHOWS_TRANSACTIONS},
	{"latency_us.unanswered", SHOWS_TRANSACTIONS},
	{"latency_us.unanswered_share", SHOWS_TRANSACTIONS},
	{"latency_us.at_least_from_us", SHOWS_TRANSACTIONS}, {"drain_s", SHOWS_DRAIN},
	{"sides.client.run_delay_s", 0}, {"sides.server.run_delay_s", 0},
	{"connect_latency_us.p99", SHOWS_CONNECTIONS}, {"sides.client.processes", 0},
	{"sides.server.processes", 0}, {"sides.client.packets_sent", 0},
	{"sides.client.packets_received", 0}, {"sides.server.packets_sent", 0},
	{"sides.server.packets_received", 0}, {"sides.client.bytes_sent", 0},
	{"sides.client.bytes_received", 0}, {"sides.server.bytes_sent", 0},
	{"sides.server.bytes_received", 0}, {"sides.client.errors", 0}, {"sides.server.errors", 0},
	{"machine_cpu.user", 0}, {"machine_cpu.system", 0}, {"machine_cpu.softirq", 0},
	{"machine_cpu.irq", 0}, {"machine_cpu.idle", 0}, {"machine_cpu.steal", 0},
};
/* The statistics of --runs' summary rows, as figures_summary names them. */
static const char *const stats[] = {"median", "min", "max", "stddev", "ci_low", "ci_high"};

#define MAX_FIELDS 96

/* The figure whose JSON path is p, or -1. */
static int figure_at(const char *p)
{
	for (int f = 0; f < nfigures; f++)
		if (!strcmp(figures[f].path, p))
			return f;
	return -1;
}

static bool same(const char *name, const char *p, size_t n)
{
	return strlen(name) == n && !strncmp(name, p, n);
}

/* Is p (n bytes) a field, and which workloads' documents hold it (*shows, SHOWS_*)? */
static bool known(const char *p, size_t n, unsigned *shows)
{
	*shows = 0;
	for (size_t i = 0; i < ARRAY_SIZE(head_fields); i++)
		if (same(head_fields[i], p, n))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(more_fields); i++)
		if (same(more_fields[i].path, p, n)) {
			*shows = more_fields[i].shows;
			return true;
		}
	int f = figure_named(p, n); /* its path, or its one name (server_syscalls) */

	if (f >= 0)
		*shows = figures[f].shows;
	return f >= 0;
}

/* Does workload wl's document hold field p (n bytes)? wl NULL: any workload's may. */
static bool field_of(const struct workload *wl, const char *p, size_t n)
{
	unsigned shows;

	return !wl || !known(p, n, &shows) || shows_any(workload_shows(wl), shows);
}

/* "a b c": every field name of wl's documents, for the error that names a wrong one. */
static void valid_list(const struct workload *wl, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
#define ADD(s)                                                                                     \
	if (field_of(wl, s, strlen(s)))                                                            \
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? " " : "", s)
	for (size_t i = 0; i < ARRAY_SIZE(head_fields); i++)
		ADD(head_fields[i]);
	for (int f = 0; f < nfigures; f++)
		ADD(figures[f].key);
	for (size_t i = 0; i < ARRAY_SIZE(more_fields); i++)
		ADD(more_fields[i].path);
#undef ADD
}

/* Is the name at p (n bytes) among the names of list before p? */
static bool given_before(const char *list, const char *p, size_t n)
{
	for (const char *q = list; q < p; q += *q == ',') {
		size_t k = strcspn(q, ",");

		if (k == n && !strncmp(q, p, n))
			return true;
		q += k;
	}
	return false;
}

int out_fields_check(const struct workload *wl, const char *list, char *err, size_t len)
{
	char valid[4096];
	const char *who = wl ? wl->name : "";
	int n = 0;

	for (const char *p = list; *p; p += *p == ',') {
		size_t k = strcspn(p, ",");
		unsigned shows;
		bool is = k && known(p, k, &shows), other = is && !field_of(wl, p, k);

		if (!is || other) {
			valid_list(wl, valid, sizeof(valid));
			snprintf(err, len, "--fields: %s%.*s%s is not a field%s%s; the fields%s%s (figure "
				 "names or JSON paths, docs/json.md): %s", k ? "" : "an empty name",
				 (int)(k > OPTS_SHOWN ? OPTS_SHOWN : k), p,
				 k > OPTS_SHOWN ? "..." : k ? "" : " ", other ? " of " : "",
				 other ? who : "", wl ? " of " : "", who, valid);
			return -EINVAL;
		}
		if (given_before(list, p, k)) {
			snprintf(err, len, "--fields: %.*s%s is given twice: name each field once",
				 (int)(k > OPTS_SHOWN ? OPTS_SHOWN : k), p, k > OPTS_SHOWN ? "..." : "");
			return -EINVAL;
		}
		if (++n > MAX_FIELDS) {
			snprintf(err, len, "--fields: more than %d fields", MAX_FIELDS);
			return -EINVAL;
		}
		p += k;
	}
	if (!n) {
		valid_list(wl, valid, sizeof(valid));
		snprintf(err, len, "--fields: no field given; the fields%s%s: %s", wl ? " of " : "",
			 who, valid);
		return -EINVAL;
	}
	return 0;
}

bool out_field_selected(const char *list, const char *path)
{
	size_t n = strlen(path);

	if (!list)
		return true;
	for (const char *p = list; *p; p += *p == ',') {
		size_t k = strcspn(p, ",");

		int fig = figure_named(p, k);

		if ((k == n && !strncmp(p, path, n)) || (fig >= 0 && !strcmp(figures[fig].path, path)))
			return true;
		p += k;
	}
	return false;
}

static const cJSON *member(const cJSON *doc, const char *path)
{
	char key[64];
	const cJSON *it = doc;

	for (const char *p = path; it && *p;) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		it = cJSON_GetObjectItemCaseSensitive(it, key);
		p += n + (p[n] == '.');
	}
	return it;
}

/* A field of the document: at its path, or a figure by its one name (server_syscalls). */
static const cJSON *field(const cJSON *doc, const char *name)
{
	const cJSON *it = member(doc, name);
	int f = it ? -1 : figure_named(name, strlen(name));

	return f >= 0 ? member(doc, figures[f].path) : it;
}

/* The columns: --fields as given, or the head and every figure the document holds. */
static int columns(const cJSON *doc, const char *list, char cols[][64])
{
	int n = 0;

	if (list) {
		for (const char *p = list; *p && n < MAX_FIELDS; p += *p == ',') {
			size_t k = strcspn(p, ",");

			snprintf(cols[n++], 64, "%.*s", (int)k, p);
			p += k;
		}
		return n;
	}
	for (size_t i = 0; i < ARRAY_SIZE(head_fields); i++)
		snprintf(cols[n++], 64, "%s", head_fields[i]);
	for (int f = 0; f < nfigures; f++)
		if (cJSON_IsNumber(member(doc, figures[f].path)))
			snprintf(cols[n++], 64, "%s", figures[f].path);
	return n;
}

/* A number as a spreadsheet reads one, the n bytes at s: -?digits[.digits][e[+-]digits]. "-1"
 * is a number, not a formula; "-1+2" is not a number. */
static bool csv_number(const char *s, size_t n)
{
	const char *p = s + (n && *s == '-'), *e = s + n;
	size_t d = strspn(p, "0123456789");

	if (!d)
		return false;
	p += d;
	if (*p == '.' && (d = strspn(p + 1, "0123456789")))
		p += 1 + d;
	if ((*p == 'e' || *p == 'E') && (d = strspn(p + 1 + (p[1] == '+' || p[1] == '-'),
						    "0123456789")))
		p += 1 + (p[1] == '+' || p[1] == '-') + d;
	return p == e;
}

/* Where a spreadsheet may start a cell inside text: its start, and after a separator (',',
 * ';' where a locale separates lists with it, a tab). */
#define CSV_SEPARATORS ",;\t"

/* Would a spreadsheet run the piece of text at s (up to the next separator) as a formula? It
 * starts, spaces aside, with = + - @ (or a tab or a carriage return) and is not a number. */
static bool csv_formula(const char *s)
{
	size_t n = strcspn(s, CSV_SEPARATORS), sp = strspn(s, " ");

	return sp < n && strchr("=+-@\t\r", s[sp]) && !csv_number(s + sp, n - sp);
}

void out_csv_text(FILE *f, const char *text)
{
	/* A saved result is untrusted: no control character reaches a terminal. */
	char *safe = safe_text_dup(text);
	const char *s = safe;
	bool quote = s[strcspn(s, CSV_SEPARATORS "\"\r\n")] || csv_formula(s);

	/* OWASP's CSV injection advice: each piece a spreadsheet would run as a formula gets a '
	 * before it, so it stays text, and the cell is quoted (RFC 4180, a quote doubled). */
	if (!quote) {
		fputs(s, f);
	} else {
		fputc('"', f);
		for (const char *p = s; *p; p++) {
			if ((p == s || strchr(CSV_SEPARATORS, p[-1])) && csv_formula(p))
				fputc('\'', f);
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	}
	free(safe);
}

/* A cell: a number as the JSON prints it, a string as out_csv_text writes it, true/false, and
 * nothing for null or absent. */
static void cell(FILE *f, const cJSON *it)
{
	if (cJSON_IsNumber(it) || cJSON_IsBool(it)) {
		char *s = cJSON_PrintUnformatted(it);

		fputs(s ? s : "", f);
		free(s);
	} else if (cJSON_IsString(it)) {
		out_csv_text(f, it->valuestring);
	}
}

static void header(FILE *f, char cols[][64], int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", cols[i]);
	fputc('\n', f);
}

static void row(FILE *f, const cJSON *doc, const char *run, char cols[][64], int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		if (!strcmp(cols[i], "run"))
			fputs(run, f);
		else
			cell(f, field(doc, cols[i]));
	}
	fputc('\n', f);
}

void out_csv_run(const cJSON *doc, const char *list, FILE *f)
{
	char cols[MAX_FIELDS][64];
	int n = columns(doc, list, cols);

	header(f, cols, n);
	row(f, doc, "1", cols, n);
}

/* A summary row (cols[0] is `run`): the statistic of each figure column; the workload, which
 * every run shares; nothing elsewhere. */
static void stat_row(FILE *f, const cJSON *runs, const char *stat, char cols[][64], int n)
{
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(runs, "summary");

	fputs(stat, f);
	for (int i = 1; i < n; i++) {
		int fig = figure_at(cols[i]);

		fputc(',', f);
		if (!strcmp(cols[i], "workload"))
			cell(f, member(runs, "workload"));
		else if (fig >= 0)
			cell(f, cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(sum, figures[fig].key), stat));
	}
	fputc('\n', f);
}

void out_csv_runs(const cJSON *runs, const char *list, FILE *f)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(runs, "results"), *doc;
	char got[MAX_FIELDS][64], cols[MAX_FIELDS + 1][64], num[16];
	int ngot = columns(cJSON_GetArrayItem(results, 0), list, got), n = 1, i = 0;

	/* Every row says which run it is, or which statistic: `run` comes first. */
	snprintf(cols[0], 64, "run");
	for (int k = 0; k < ngot; k++)
		if (strcmp(got[k], "run"))
			memcpy(cols[n++], got[k], 64);
	header(f, cols, n);
	cJSON_ArrayForEach(doc, results) {
		snprintf(num, sizeof(num), "%d", ++i);
		row(f, doc, num, cols, n);
	}
	for (size_t s = 0; s < ARRAY_SIZE(stats) && i; s++)
		stat_row(f, runs, stats[s], cols, n);
}

void out_fields_text(const cJSON *doc, const char *list, FILE *f)
{
	char cols[MAX_FIELDS][64];
	int n = columns(doc, list, cols);

	for (int i = 0; i < n; i++) {
		const cJSON *it = field(doc, cols[i]);

		fprintf(f, "%-36s ", cols[i]);
		if (!strcmp(cols[i], "run"))
			fputs("1", f);
		else if (it && !cJSON_IsNull(it))
			cell(f, it);
		else
			fputs("-", f);
		fputc('\n', f);
	}
}

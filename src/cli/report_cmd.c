/* report_cmd.c: `sockbench report RESULT.json... [-o FILE.html]`: one self-contained HTML page
 * from saved results (report/html.c draws it). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/opts.h"
#include "base/outfile.h"
#include "base/result_file.h"
#include "base/util.h"
#include "cli/cli.h"
#include "report/out.h"

/* report's flags; every other word is a result file. */
struct report_args {
	char *output, *format, *fields;
};

const struct opt_def report_flags[] = {
	{OWN_FLAG(STR, struct report_args, output, "output", 0, 0, "FILE.html",
		  "where to write the page"),
	 .shortc = 'o', .shown = "standard output"},
	{OWN_FLAG(STR, struct report_args, format, "format", 0, 0, "csv",
		  "instead of the page, the result as CSV on standard output: a header and a row per "
		  "run (a --runs result: then its summary's rows), as the run's --format csv prints "
		  "it; several results: one table, a file column first, the header once")},
	{OWN_FLAG(STR, struct report_args, fields, "fields", 0, 0, "LIST",
		  "with --format csv: the columns (figure names or JSON paths, docs/json.md)")},
	{0},
};

static const struct cmd_usage report_usage = {
    .cmd = "report",
    .args = "RESULT.json...",
    .summary = "One self-contained HTML page (inline SVG, no network) from saved --json results "
	       "of these kinds: a single run, --runs N, compare, explore, sweep (a knee result is "
	       "drawn by `sockbench knee WORKLOAD --plot FILE.svg`). Each gets its "
	       "section: headline, config and environment, latency CDF, CPU per side, time per "
	       "syscall and a flame graph (runs with --profile), explore's ranking with interval "
	       "whiskers, compare's ratios, a sweep's curve; several results also get an overview "
	       "with their rates side by side and their latency CDFs overlaid. RESULT.json: a file "
	       "written by --json (\"-\": standard input).",
};

/* The page to out (NULL: standard output), whole or not at all (outfile.h). 0 or 1 (said). */
static int write_page(cJSON **docs, const char *const *files, int n, const char *out)
{
	struct outfile o;
	bool direct;
	int e;

	if (!out) { /* main.c checks that standard output took it all */
		e = out_report_html(docs, files, n, stdout);
		if (e && !ferror(stdout))
			fprintf(stderr, "sockbench: report: %s\n", strerror(-e));
		return e ? 1 : 0;
	}
	if ((e = outfile_open(&o, out))) {
		fprintf(stderr, "sockbench: report -o %s: %s; nothing written\n", out,
			outfile_strerror(e));
		return 1;
	}
	direct = outfile_direct(&o);
	e = out_report_html(docs, files, n, o.f);
	e = e ? outfile_abort(&o, e) : outfile_commit(&o);
	if (e)
		fprintf(stderr, "sockbench: report -o %s: %s%s\n", out, outfile_strerror(e),
			outfile_left(direct));
	return e ? 1 : 0;
}

/* --format and --fields: csv, with no -o (it goes to standard output). Exits 2 where not. */
static void csv_args_check(const char *format, const char *fields, const char *out)
{
	char err[4400];

	if (format && strcmp(format, "csv"))
		die_usage("report: --format %s: the report writes csv (or, without --format, the "
			  "HTML page)", format);
	if (fields && !format)
		die_usage("report: --fields chooses CSV's columns: add --format csv");
	if (format && out)
		die_usage("report: --format csv writes to standard output: leave out -o (and "
			  "redirect: > r.csv)");
	if (fields && out_fields_check(NULL, fields, err, sizeof(err)))
		die_usage("report: %s", err);
}

/* One file's CSV on standard output. Several files make one table: a `file` column first
 * (their rows' `run` numbers restart), and the header once, again only before a file whose
 * columns differ (another workload's figures); *last: the header printed last. 0 or -1. */
static int csv_file(const cJSON *doc, const char *file, bool several, const char *fields,
		    char **last)
{
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(doc, "kind"))
		out_csv_runs(doc, fields, m);
	else
		out_csv_run(doc, fields, m);
	if (fclose(m) || !buf)
		return -1;
	body = buf + strcspn(buf, "\n");
	*body = '\0';
	body += body < buf + len;
	if (!*last || strcmp(*last, buf)) {
		printf("%s%s\n", several ? "file," : "", buf);
		free(*last);
		*last = xstrdup(buf);
	}
	for (char *line = body, *nl; *line; line = nl + 1) {
		nl = line + strcspn(line, "\n");
		if (several) {
			out_csv_text(stdout, file);
			putchar(',');
		}
		fwrite(line, 1, (size_t)(nl - line), stdout);
		putchar('\n');
		if (!*nl)
			break;
	}
	free(buf);
	return 0;
}

/* --format csv: each saved single run or --runs result as its CSV, on standard output. */
static int write_csv(cJSON **docs, const char *const *files, int n, const char *fields)
{
	for (int i = 0; i < n; i++) {
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(docs[i], "kind"));

		if (kind && strcmp(kind, "runs")) {
			fprintf(stderr, "sockbench: report --format csv: %s is a %s result: CSV is for a "
				"single run or --runs (sweep --csv writes a sweep's)\n", files[i], kind);
			return 2;
		}
	}
	char *last = NULL;

	for (int i = 0; i < n; i++) {
		if (csv_file(docs[i], files[i], n > 1, fields, &last)) {
			free(last);
			return 1;
		}
	}
	free(last);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args f = {0};
	char **files = xcalloc((size_t)argc, sizeof(*files)), err[512];
	int n = 0, rc = 0, e = 0;

	if ((n = opts_take(report_flags, &f, &(struct opts_words){argc - 1, argv + 1}, files, err,
			   sizeof(err))) < 0 ||
	    (e = opts_own_words(report_flags, files, n, err, sizeof(err))) < 0)
		die_usage("report: %s", err);
	if (e) {
		opts_usage_cmd(report_flags, &report_usage, stdout);
		free(files);
		return 0;
	}
	csv_args_check(f.format, f.fields, f.output);
	if (!n)
		die_usage("report: no result given: save one with `sockbench udp-rr --json > r.json`, "
			  "then `sockbench report r.json -o report.html`");
	if (f.output && (e = output_writable(f.output)))
		die_usage("report: -o %s: %s", f.output, outfile_strerror(e));
	cJSON **docs = xcalloc((size_t)n, sizeof(*docs));

	for (int i = 0; i < n; i++) {
		char bad[300];
		const char *why;

		/* A result file is untrusted input: base/result_file.h checks it. */
		e = result_file_read(files[i], &docs[i], bad, sizeof(bad));
		if (e == -EBADMSG)
			die_usage("report: %s is not JSON (save results with --json)", files[i]);
		if (e == -EINVAL)
			die_usage("report: %s: %s", files[i], bad);
		if (e == -E2BIG)
			die_usage("report: out of memory reading %s: %s", files[i], bad);
		if (e == -ENOMEM)
			die("report: out of memory reading %s: %s", files[i], bad);
		if (e)
			die_usage("report: cannot read %s: %s", files[i],
				  e == -EFBIG ? "too large to be a sockbench result (over "
						RESULT_FILE_MAX_TEXT ")" : strerror(-e));
		if ((why = report_check(docs[i])))
			die_usage("report: %s is %s", files[i], why);
	}
	rc = f.format ? write_csv(docs, (const char *const *)files, n, f.fields)
		      : write_page(docs, (const char *const *)files, n, f.output);
	for (int i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	free(files);
	free(f.output);
	free(f.format);
	free(f.fields);
	return rc;
}

/* out.h: the result of a run and the only code that prints it (table or JSON).
 * It reads a result and the workload's table and prints; it runs nothing and opens no socket.
 */
#ifndef SB_OUT_H
#define SB_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/result.h"
#include "workload/workload.h"

struct cJSON;

/* The units the window moved (the workload's count: transactions, megabytes, packets), and
 * per second. */
double result_units(const struct result *r);
double result_rate(const struct result *r);
/* The units the server side's per-unit figures divide by: result_units, or NaN where they are
 * withheld (r->server_units_withheld says why). */
double result_server_units(const struct result *r);
/* What each side's per-unit figures divide by, for a request/response workload: the client,
 * every request of its window (the answered and the unanswered: its CPU went into each); the server, the
 * requests it answered (its own count). Otherwise, and without those counts, result_units or
 * result_server_units. */
double result_side_units(const struct result *r, bool server);
/* The human report. */
void out_table(const struct result *r, FILE *f);
struct cJSON;

/* The versioned JSON document (docs/json.md) as a cJSON tree (caller frees), and printing one. */
struct cJSON *out_result_json(const struct result *r);
void out_print_json(struct cJSON *j, FILE *f);

/* --fields LIST: each comma-separated name must be a field of wl's documents (a JSON path of
 * docs/json.md, or `run`; wl NULL: of any workload's), given once; 0, or -EINVAL with err
 * naming the wrong one and listing the valid ones. */
int out_fields_check(const struct workload *wl, const char *list, char *err, size_t len);
/* Is path among the fields of list (NULL: every field is)? */
bool out_field_selected(const char *list, const char *path);
/* --format csv: a header and one row, from a run's JSON document (so each value is the JSON's),
 * the columns of list (NULL: run, workload, partial, duration_s, unit and every figure the
 * document holds; figures.h). */
void out_csv_run(const struct cJSON *doc, const char *list, FILE *f);
/* The same for a --runs document: a row per run (`run` 1..N, first), then a row per statistic
 * of the summary (`run` median, min, max, stddev, ci_low, ci_high; figures only). */
void out_csv_runs(const struct cJSON *runs, const char *list, FILE *f);
/* A text cell of CSV: control characters as \xNN; quoted (RFC 4180) when it holds a separator
 * (, ; tab) or a quote, or starts a formula; every piece a spreadsheet would take for a formula
 * (= + - @ first, spaces aside, and not a number), at the start or after a , or ; (where a
 * reader that splits on ; starts a cell), prefixed with ' (OWASP); a number ("-1", "2.5") as
 * it is. */
void out_csv_text(FILE *f, const char *text);
/* The text report of a single run with --fields: a line per field, its name and value. */
void out_fields_text(const struct cJSON *doc, const char *list, FILE *f);

/* --plot: a gnuplot script (to g) drawing the run into svg from the data it writes to d, whose
 * path the script names (plot.c): the latency histogram and CDF with p50/p99/p99.9 marked
 * (tcp-crr: and connect()), each side's CPU per unit, user and system. 0 or -EIO. */
int out_plot_script(const struct result *r, const char *svg, const char *data_path, FILE *d,
		    FILE *g);
/* --plot and sweep --plot: draw (data to d, the script to g, naming data_path and svg_path)
 * in a temporary folder, run gnuplot there (it never sees the user's path), and put its SVG,
 * when whole, at target through base/outfile.h. Failures are said on stderr, "sockbench: what
 * target: ..."; 0 or -1. */
typedef int (*out_draw_fn)(void *arg, FILE *d, FILE *g, const char *data_path, const char *svg_path);
int out_gnuplot(const char *what, const char *target, out_draw_fn draw, void *arg);
/* gnuplot's line types 1..PALETTE_N as the report page's colours (report/palette.h): series i
 * of every plot is the colour result i has on the page. */
void out_gp_palette(FILE *g);

/* --flamegraph and the report's flame graphs: the profile's folded stacks (JSON `profile`,
 * its "stacks") as an SVG flame graph with the given title and element id: one colour family
 * per side, hover titles, click to zoom, search (flame.c). standalone: a whole SVG file with
 * its script; else an <svg> element for a page that carries out_flame_script() once.
 * 0, -ENOENT (no stacks in the profile), -ENODATA (no samples) or -EIO. */
int out_flamegraph(const struct cJSON *profile, const char *title, const char *id,
		   bool standalone, FILE *f);
const char *out_flame_script(void);
/* `sockbench report`: the page for n saved results (html.c), names[i] naming docs[i]. Each
 * must pass report_check, which says why a document is not one the report draws (NULL: it
 * is). 0 or -EIO. */
int out_report_html(struct cJSON *const *docs, const char *const *names, int n, FILE *f);
const char *report_check(const struct cJSON *d);
/* The escaping writer: every string that reaches an HTML page or an SVG goes through one of
 * these (html_esc.c). html_text writes s with & < > " ' escaped and control characters
 * dropped (text and quoted attributes alike); html_printf is fprintf whose every conversion
 * is escaped that way (only the format string itself is markup), 0 or -EIO; html_raw writes
 * the page's own CSS or script unescaped: never a string from a file. */
void html_text(FILE *f, const char *s);
int html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void html_raw(FILE *f, const char *trusted);

/* A single run's progress line on stderr, on a terminal only (as the multi-run commands'):
 * done of total units (unit NULL: seconds of a time-based window) and the time it should
 * still take; out_progress_end clears it before the report. */
void out_progress(const char *what, double done, double total, const char *unit,
		  double elapsed_s);
void out_progress_end(void);
/* -i: interval i of r as a line on stdout (after a header line at the first; nothing with
 * --json), and why a run has none, on stderr. */
void out_interval(const struct result *r, int i);
void out_intervals_none(const char *why);

/* The noise check before a run: each finding of measure/noise.h as a warning on f (what, what
 * it does, the fix); nothing when the machine looks quiet. Only where f is a terminal (as the
 * progress line), or with SOCKBENCH_NOISE_CHECK=1 in the environment: scripts read stderr.
 * Returns the number of findings. */
int out_noise_warnings(FILE *f);

/* The member at a dotted path of a JSON object (the environment: "kernel.release") as text:
 * a string made terminal-safe (safe_text: an agent's, or a name this host was given), a
 * number without decimals, a bool as on/off, "-" for null or missing. Returns buf. */
const char *out_env_str(const struct cJSON *e, const char *path, char *buf, size_t len);

#endif

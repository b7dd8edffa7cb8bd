/* figures.c: the figures of base/figure_table.h read from a result document (figures.h). A
 * figure is read from the JSON document, so live runs (whose documents come back from their
 * child process) and saved files (compare a.json b.json) go through the same code. */
#include "report/figures.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "workload/workload.h"

double json_path(const cJSON *doc, const char *path)
{
	char key[64];
	const char *p = path;
	const cJSON *it = doc;

	while (it && *p) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		it = cJSON_GetObjectItemCaseSensitive(it, key);
		p += n + (p[n] == '.');
	}
	return cJSON_IsNumber(it) ? it->valuedouble : NAN;
}

double figure_of(const cJSON *doc, int f)
{
	double v = json_path(doc, figures[f].path);

	return isnan(v) && figures[f].alt ? json_path(doc, figures[f].alt) : v;
}

const char *figure_key(int f)
{
	return figures[f].key;
}

const char *figure_label(int f, const struct workload *wl, char *buf, size_t len)
{
	snprintf(buf, len, figures[f].label, wl ? wl->unit : "transaction");
	return buf;
}

int figure_label_width(const struct workload *wl, int min)
{
	char buf[64];
	int w = min;

	for (int f = 0; f < nfigures; f++) {
		int n = (int)strlen(figure_label(f, wl, buf, sizeof(buf)));

		if (n > w)
			w = n;
	}
	return w;
}

void figures_of(const cJSON *doc, double *out)
{
	for (int f = 0; f < nfigures; f++)
		out[f] = figure_of(doc, f);
}

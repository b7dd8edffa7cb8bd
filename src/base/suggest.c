/* suggest.c: see suggest.h. */
#include "base/suggest.h"

#include <string.h>

#define MAXW 64

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	int d[MAXW + 1][MAXW + 1];

	if (n > MAXW || m > MAXW)
		return 1 << 20;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[n][m];
}

const char *suggest_nearest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	int limit = len >= 5 ? 2 : 1, best = limit + 1;
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		int d = suggest_distance(word, cands[i]);

		if (d < best && 2 * (size_t)d < len) {
			best = d;
			pick = cands[i];
		}
	}
	return pick;
}

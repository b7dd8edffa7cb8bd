/* html_esc.c: the one place where text reaches the report page, the SVG charts and the flame
 * graphs (out.h). html_text escapes a string (quotes too: safe inside "..." and '...');
 * html_printf is fprintf whose every conversion (%s above all, numbers too) is escaped, so a
 * format string is the only markup a call writes; html_raw is the visible opt-out, for the
 * page's own CSS and script.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "report/out.h"

void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

void html_raw(FILE *f, const char *trusted)
{
	fputs(trusted, f);
}

/* One conversion, its spec in spec[] with any '*' already replaced by the number, written
 * escaped. The argument is taken as its conversion and length say. */
static void one_conversion(FILE *f, const char *spec, char conv, const char *len, va_list *ap)
{
	char small[128], *buf = small;
	int n = -1;

#define FMT(v)                                                                     \
	do {                                                                       \
		n = snprintf(small, sizeof(small), spec, v);                       \
		if (n >= (int)sizeof(small) && (buf = malloc((size_t)n + 1)))      \
			snprintf(buf, (size_t)n + 1, spec, v);                     \
	} while (0)
	switch (conv) {
	case 'd': case 'i': case 'c':
		if (!strcmp(len, "l"))
			FMT(va_arg(*ap, long));
		else if (!strcmp(len, "ll"))
			FMT(va_arg(*ap, long long));
		else if (!strcmp(len, "z") || !strcmp(len, "t"))
			FMT(va_arg(*ap, ssize_t));
		else if (!strcmp(len, "j"))
			FMT(va_arg(*ap, intmax_t));
		else
			FMT(va_arg(*ap, int));
		break;
	case 'u': case 'x': case 'X': case 'o':
		if (!strcmp(len, "l"))
			FMT(va_arg(*ap, unsigned long));
		else if (!strcmp(len, "ll"))
			FMT(va_arg(*ap, unsigned long long));
		else if (!strcmp(len, "z") || !strcmp(len, "t"))
			FMT(va_arg(*ap, size_t));
		else if (!strcmp(len, "j"))
			FMT(va_arg(*ap, uintmax_t));
		else
			FMT(va_arg(*ap, unsigned));
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		if (!strcmp(len, "L"))
			FMT(va_arg(*ap, long double));
		else
			FMT(va_arg(*ap, double));
		break;
	case 's': {
		const char *s = va_arg(*ap, const char *);

		FMT(s ? s : "(null)");
		break;
	}
	case 'p':
		FMT(va_arg(*ap, void *));
		break;
	default:
		return;
	}
#undef FMT
	if (n >= 0 && buf)
		html_text(f, buf);
	if (buf != small)
		free(buf);
}

int html_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		if (p[1] == '%') {
			fputc('%', f);
			p++;
			continue;
		}
		char spec[64], len[3] = "";
		size_t k = 0;

		spec[k++] = *p++;
		while (*p && strchr("-+ #0", *p) && k < 40)
			spec[k++] = *p++;
		for (int part = 0; part < 2; part++) { /* the width, then the precision */
			if (part && *p == '.')
				spec[k++] = *p++;
			else if (part)
				break;
			if (*p == '*') {
				k += (size_t)snprintf(spec + k, 12, "%d", va_arg(ap, int));
				p++;
			}
			while (*p >= '0' && *p <= '9' && k < 56)
				spec[k++] = *p++;
		}
		for (size_t l = 0; *p && strchr("hlzjtL", *p) && l < 2; l++) {
			len[l] = *p;
			if (*p != 'h') /* hh and h are promoted to int: not passed on */
				spec[k++] = *p;
			p++;
		}
		if (!*p)
			break;
		spec[k++] = *p;
		spec[k] = 0;
		one_conversion(f, spec, *p, len, &ap);
	}
	va_end(ap);
	return ferror(f) ? -EIO : 0;
}

/* safe_text.c: see safe_text.h. A byte is kept when it is printable ASCII or part of a whole
 * UTF-8 sequence of a character from U+00A0 up; everything else is written \xNN (in a log
 * line newline, CR and tab as \n, \r, \t). safe_len alone decides what is safe. */
#include "base/safe_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

enum safe_mode {
	SAFE_TERMINAL, /* \xNN for every unsafe byte */
	SAFE_LOG,      /* \n, \r, \t by name */
	SAFE_QUOTED,   /* as a log line, in double quotes, with " and \ escaped too */
};

/* How many bytes at s form one safe character (0: the byte at s is unsafe). */
static size_t safe_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4) /* C0, DEL, a continuation byte, an overlong or too high lead */
		return 0;
	n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	cp = c & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp < 0xe000))
		return 0; /* C1 controls, overlong forms, surrogates */
	return n;
}

bool safe_text_needed(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = safe_len(p);

		if (!n)
			return true;
		p += n;
	}
	return false;
}

/* The escape written for the byte c (unsafe: safe_len refused it), or NULL: as it is. */
static const char *escape_of(unsigned char c, bool unsafe, enum safe_mode m, char e[8])
{
	if (unsafe && m != SAFE_TERMINAL && (c == '\n' || c == '\r' || c == '\t'))
		return c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
	if (unsafe) {
		snprintf(e, 8, "\\x%02x", c);
		return e;
	}
	if (m == SAFE_QUOTED && (c == '"' || c == '\\'))
		return c == '"' ? "\\\"" : "\\\\";
	return NULL;
}

/* s into out (cap bytes), cut before a character or escape that does not fit whole. */
static const char *escape(char *out, size_t cap, const char *s, enum safe_mode m)
{
	size_t o = 0, close = m == SAFE_QUOTED; /* room kept for the closing quote */
	char e[8];

	if (cap < 1 + 2 * close) {
		if (cap)
			out[0] = 0;
		return out;
	}
	if (m == SAFE_QUOTED)
		out[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = safe_len(p);
		const char *x = escape_of(*p, !n, m, e);
		size_t w = x ? strlen(x) : n;

		if (o + w + close >= cap)
			break;
		memcpy(out + o, x ? (const unsigned char *)x : p, w);
		o += w;
		p += x ? 1 : n;
	}
	if (m == SAFE_QUOTED)
		out[o++] = '"';
	out[o] = 0;
	return out;
}

const char *safe_text(char *out, size_t cap, const char *s)
{
	return escape(out, cap, s, SAFE_TERMINAL);
}

const char *safe_text_log(char *out, size_t cap, const char *s)
{
	return escape(out, cap, s, SAFE_LOG);
}

const char *safe_text_quoted(char *out, size_t cap, const char *s)
{
	return escape(out, cap, s, SAFE_QUOTED);
}

char *safe_text_dup(const char *s)
{
	size_t cap = 4 * strlen(s) + 1;

	return (char *)safe_text(xmalloc(cap), cap, s);
}

/* safe_text.c: see safe_text.h. A byte is kept when it is printable ASCII or part of a whole
 * UTF-8 sequence of a character from U+00A0 up; everything else is written \xNN. */
#include "base/safe_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

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

const char *safe_text(char *out, size_t cap, const char *s)
{
	size_t o = 0;

	if (!cap)
		return out;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = safe_len(p);

		if (!n) {
			if (o + 4 >= cap)
				break;
			snprintf(out + o, cap - o, "\\x%02x", *p++);
			o += 4;
			continue;
		}
		if (o + n >= cap)
			break;
		memcpy(out + o, p, n);
		o += n;
		p += n;
	}
	out[o] = 0;
	return out;
}

char *safe_text_dup(const char *s)
{
	size_t cap = 4 * strlen(s) + 1;

	return (char *)safe_text(xmalloc(cap), cap, s);
}

/* opts_priv.h: what the option parser's files share (opts.c, opts_json.c). Not for use
 * outside base/. */
#ifndef SB_OPTS_PRIV_H
#define SB_OPTS_PRIV_H

#include <stddef.h>

#include "base/opts.h"

static inline void *field(struct opts *o, const struct opt_def *d)
{
	return (char *)o + d->off;
}

static inline const void *cfield(const struct opts *o, const struct opt_def *d)
{
	return (const char *)o + d->off;
}

/* Set one option from its text value, with its checks. 0 or -EINVAL with err. */
int opts_set_value(const struct opt_def *d, const char *val, struct opts *o, char *err,
		   size_t errlen);
/* defs with a workload's help and ranges applied (caller frees). */
struct opt_def *opts_effective(const struct opt_def *defs, const struct opt_override *ov);
/* The option of defs whose field is name, or NULL. */
const struct opt_def *opts_find_field(const struct opt_def *defs, const char *name);

#endif

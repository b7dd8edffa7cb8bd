/* explore_sim.h: explore with its run and clock replaced by a model: strategies of known
 * effect (alone, and on top of a configuration that holds another flag) and log-normal noise
 * of the run-to-run spread asked for. For tests/unit/test_explore_*.c; runs nothing. */
#ifndef SB_TEST_EXPLORE_SIM_H
#define SB_TEST_EXPLORE_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "multi/explore.h"
#include "multi/explore_priv.h"

/* A strategy's effect on the rate: alone, and on top of a configuration that has `with`. */
struct sim_effect {
	const char *flags;
	double alone, on_top;
	const char *with;
};


struct sim {
	double now;	/* the simulated clock, s */
	uint64_t rng;
	double sigma;	/* run-to-run noise: log-normal, this sd of the log */
	const struct sim_effect *eff; /* NULL: nothing changes anything */
	double overhead;	      /* a run's wall time beyond its warm-up and window */
	const char *two_modes;	      /* a configuration holding these flags is, run by run, */
	double mode2;		      /* its effect or (a coin flip) this much more */
	const char *quiet;	      /* one holding these has a quarter of the noise */
	double outlier_p, outlier_f;  /* any run: this likely to be this much of its rate */
};

/* Does flags hold f, as whole words ("--batch" is in "--batch 8", "--batch 6" is not)? */
static inline bool has(const char *flags, const char *f)
{
	size_t n = strlen(f);

	for (const char *p = flags; (p = strstr(p, f)); p += n)
		if ((p == flags || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return true;
	return false;
}

static inline double sim_effect(const struct sim_effect *eff, const char *flags)
{
	double g = 1;

	for (const struct sim_effect *e = eff; e && e->flags; e++)
		if (has(flags, e->flags))
			g *= e->with && has(flags, e->with) ? e->on_top : e->alone;
	return g;
}

static inline double sim_normal(uint64_t *st)
{
	double u1 = ((stats_rand(st) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((stats_rand(st) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static inline bool sim_run(struct explore *x, const struct config *c, struct sample *s)
{
	struct sim *m = x->sim;
	double g = sim_effect(m->eff, c->flags);

	double sigma = m->quiet && has(c->flags, m->quiet) ? m->sigma / 4 : m->sigma;

	if (m->two_modes && has(c->flags, m->two_modes) && (stats_rand(&m->rng) & 1))
		g *= m->mode2;
	if (m->outlier_p > 0 && (stats_rand(&m->rng) >> 11) * 0x1p-53 < m->outlier_p)
		g *= m->outlier_f;
	m->now += c->o.duration + c->o.warmup + m->overhead;
	s->status = RUN_WHOLE;
	s->fig[FIG_RATE] = 100000 * g * exp(sigma * sim_normal(&m->rng));
	return true;
}

static inline double sim_clock(const struct explore *x)
{
	return ((const struct sim *)x->sim)->now;
}


/* One exploration of wl at budget (seconds), rounds as planned (0) or given (as --runs). */
static inline struct explore *sim_run_wl(const struct workload *wl, uint64_t seed, double budget,
				  const struct sim_effect *eff, struct sim *m, int rounds)
{
	struct explore *x = calloc(1, sizeof(*x));

	*m = (struct sim){.rng = stats_seed_state(seed, 77), .sigma = m->sigma ? m->sigma : 0.10, .eff = eff,
			  .overhead = m->overhead ? m->overhead : RUN_OVERHEAD_S,
			  .two_modes = m->two_modes, .mode2 = m->mode2, .quiet = m->quiet,
			  .outlier_p = m->outlier_p, .outlier_f = m->outlier_f};
	x->wl = wl;
	x->budget = budget;
	x->rounds = rounds ? rounds : STATS_DEFAULT_RUNS;
	x->rounds_given = rounds != 0;
	x->seed = seed;
	x->run = sim_run;
	x->clock = sim_clock;
	x->sim = m;
	explore_plan(x, NULL, 0);
	x->run_s_planned = x->run_s;
	x->overhead_s = RUN_OVERHEAD_S;
	explore_execute(x, NULL, 0);
	return x;
}


static inline void sim_free(struct explore *x)
{
	explore_free(x);
	free(x);
}

#endif

/* result.c: the arithmetic shared by every reader of a result. */
#include <stdint.h>

#include "measure/result.h"

double result_per_s(uint64_t count, double seconds)
{
	return seconds > 0 ? (double)count / seconds : 0.0;
}

double result_cpu_us_per(double user_s, double sys_s, double count)
{
	return count > 0 ? (user_s + sys_s) * 1e6 / count : 0.0;
}

double result_diff_pct(uint64_t ours, uint64_t kernel)
{
	if (!kernel)
		return ours ? 100.0 : 0.0;
	return 100.0 * ((double)ours - (double)kernel) / (double)kernel;
}

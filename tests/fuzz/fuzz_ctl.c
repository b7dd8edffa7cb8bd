/* libFuzzer target: the control codec and what the agent does with a frame's payload
 * (parse the JSON, apply it as a workload config with every range check). No crash, no leak,
 * no undefined behaviour, whatever the bytes. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link/ctl.h"
#include "base/opts.h"
#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_hdr h;
	uint8_t hdr[CTL_HDR_LEN];
	int n = ctl_parse_frame(data, size, &h);

	ctl_decode_hdr(data, size, &h);
	if (n < 0)
		return 0;
	/* A valid header re-encodes to the same bytes. */
	if (ctl_encode_hdr(hdr, h.type, h.len) || memcmp(hdr, data, CTL_HDR_LEN))
		abort();
	char *txt = malloc(h.len + 1);

	memcpy(txt, data + CTL_HDR_LEN, h.len);
	txt[h.len] = '\0';
	cJSON *j = cJSON_Parse(txt);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "workload");
	const struct workload *wl = cJSON_IsString(name) ? workload_find(name->valuestring) : NULL;

	for (int i = 0; workloads[i]; i++) {
		struct opts o;
		char err[256];
		const struct workload *w = wl ? wl : workloads[i];

		opts_defaults(&o, w->overrides);
		if (opts_from_json(w->opts, w->overrides, cJSON_GetObjectItemCaseSensitive(j, "config"),
				   &o, err, sizeof(err)) == 0)
			w->check(&o, err, sizeof(err));
		opts_free(&o);
		if (wl)
			break;
	}
	cJSON_Delete(j);
	free(txt);
	return 0;
}

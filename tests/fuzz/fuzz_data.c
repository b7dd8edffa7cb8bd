/* libFuzzer target: what the data plane reads from the network, whoever sent it. The first
 * byte picks the reader: 0 udp-stream headers (token, flow and sequence number; then the
 * loss, reordering and duplicate accounting of what passed), 1 udp-rr answer tags, 2 the
 * direction byte of a tcp-stream connection. Besides no crash and no undefined behaviour, the
 * figures stay bounded by what arrived: a flow's loss never exceeds SEQ_MAX_GAP per datagram
 * taken, the jitter is a finite non-negative number whatever send times the headers carry,
 * a tag's slot is inside the window. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/seq.h"
#include "transport/tcp.h"
#include "transport/udp.h"

#define FLOWS 4
#define TOKEN 0x0123456789abcdefULL

static void udp_stream(const uint8_t *p, size_t n)
{
	static struct seq_flow f[FLOWS];
	uint64_t taken[FLOWS] = {0};

	memset(f, 0, sizeof(f));
	for (; n >= SEQ_HDR_LEN; p += SEQ_HDR_LEN, n -= SEQ_HDR_LEN) {
		struct seq_hdr h;

		if (seq_hdr_get(p, n, &h))
			abort();
		/* Half the headers get the right token, so the accounting behind it is reached. */
		if ((h.magic & 1) == 0)
			h.token = TOKEN;
		if (h.token != TOKEN || h.flow >= FLOWS || !seq_plausible(&f[h.flow], h.seq))
			continue;
		/* A number a draining receiver would take fills one gap: the loss falls by one. */
		bool gap = seq_missing(&f[h.flow], h.seq);
		uint64_t lost = seq_lost(&f[h.flow]);

		seq_take(&f[h.flow], h.seq);
		if (gap && lost && seq_lost(&f[h.flow]) != lost - 1)
			abort();
		jitter_take(&f[h.flow].jit, h.sent_ns, h.seq * 1000);
		taken[h.flow]++;
	}
	for (int i = 0; i < FLOWS; i++) {
		if (f[i].got > taken[i] || seq_lost(&f[i]) > taken[i] * SEQ_MAX_GAP ||
		    f[i].dups + f[i].got > taken[i] || !(f[i].jit.j >= 0) || f[i].jit.j > 0x1p65)
			abort();
	}
}

static void udp_rr(const uint8_t *p, size_t n)
{
	if (n < 2)
		return;
	size_t size = 1 + p[0] % 64;
	uint32_t window = 1 + p[1], slot, gen;
	int r = udp_rr_tag(p + 2, n - 2, size, window, &slot, &gen);

	if ((r == 0 && slot >= window) || (r == 1 && slot < window) || (r < 0 && n - 2 == size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		udp_stream(data + 1, size - 1);
		break;
	case 1:
		udp_rr(data + 1, size - 1);
		break;
	case 2: {
		int d = stream_dir_of(data + 1, size - 1);

		if (d != -1 && d != 'U' && d != 'D')
			abort();
		break;
	}
	}
	return 0;
}

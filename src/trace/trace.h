/* trace.h: --trace, where a request's wait goes inside the kernel. BPF programs on stable
 * tracepoints (bpf/stages.bpf.c) follow each packet the run's processes send, by its skb,
 * from the send call to the receiving one, stage by stage (trace_abi.h), into per-stage
 * histograms per direction; user space adds them up at the window's close. Needs root, the
 * kernel's BTF, BPF tracing programs and libbpf; each lack is said in one line. */
#ifndef SB_TRACE_H
#define SB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cJSON;
struct trace;

/* Can this process trace at all (root, the kernel's BTF, BPF built in)? 0, or
 * -errno with a one-line err naming what is missing and how to get it. */
int trace_check(char *err, size_t len);
/* Load and attach the programs for these processes (the clients, and the server when it runs
 * on this host: 0 if not), recording nothing until trace_enable. NULL with err. */
struct trace *trace_open(const pid_t *clients, int n, pid_t server, char *err, size_t len);
void trace_enable(struct trace *t);
void trace_disable(struct trace *t);
/* The stages as JSON (docs/json.md "trace"): per direction and stage the count and
 * percentiles, the packets followed, the drops seen. */
struct cJSON *trace_json(struct trace *t);
void trace_close(struct trace *t);

#endif

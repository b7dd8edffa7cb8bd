/* serve.h: the `serve` agent, which runs the server side of a test for a controller.
 * It runs workloads' server sides (workload/) and speaks ctl.h; it never prints a report.
 * Its handshake with a controller: handshake.h.
 */
#ifndef SB_SERVE_H
#define SB_SERVE_H

/* `sockbench serve [options]`: returns the exit code. */
int cmd_serve(int argc, char **argv);

#endif

/* result_file.h: a saved result (--json of a run, --runs, compare, explore, sweep) read as
 * untrusted input (result_file.c). What `report` and `compare` draw and print comes from a
 * file anyone may have written, so it is checked once, here: its size, its nesting, every
 * number finite and in the range sockbench writes, and every string made terminal-safe
 * (base/safe_text.h). docs/profiles.md, "Result files are untrusted input". */
#ifndef SB_RESULT_FILE_H
#define SB_RESULT_FILE_H

#include <stddef.h>

struct cJSON;

/* The largest file read: a --runs 1000 document with profiles stays well under it. */
#define RESULT_FILE_MAX (64u << 20)
#define RESULT_FILE_MAX_TEXT "64 MiB"
/* The most its parsed tree may take, in times the file's size, and 1 MiB more (a small file's
 * tree is mostly keys): what sockbench writes takes 2.3 (a profile) to 6.7 times (tcp-crr), a
 * CDF of 3 million points 12.3 (3 values in 20 bytes), while 2 bytes of "0," in an array take
 * 80 (40 times; 2.6 GB for 64 MiB of them). A file that needs more is refused (json_budget.h):
 * memory stays within 17 times the file's size (the text beside the tree while parsing). */
#define RESULT_FILE_MEM_FACTOR 16
#define RESULT_FILE_MEM_FLOOR (1u << 20)
/* Objects and arrays nested deeper are refused: sockbench writes fewer than 10 levels, and
 * what walks a document may then recurse. */
#define RESULT_FILE_DEPTH 32
/* The largest magnitude of a number in a result (no figure, count or byte total comes near). */
#define RESULT_FILE_NUM_MAX 1e18

/* Reads and parses path ("-": standard input) into *doc (caller frees with cJSON_Delete) and
 * checks it with result_file_check. 0; -EFBIG (over RESULT_FILE_MAX); -EBADMSG (not JSON);
 * -EINVAL (why: what is wrong, naming the key); -E2BIG (it needs more memory than
 * RESULT_FILE_MEM_FACTOR times its size) or -ENOMEM (the system gave none), why saying how
 * much; or the -errno of reading. */
int result_file_read(const char *path, struct cJSON **doc, char *why, size_t len);
/* A parsed document checked in place: nesting, numbers (why names the first bad key, as
 * "results[2].duration_s is not a finite number >= 0"), and every key and string with a
 * control character rewritten as safe text. 0, -EINVAL, or -ENOMEM (no memory to rewrite). */
int result_file_check(struct cJSON *doc, char *why, size_t len);

#endif

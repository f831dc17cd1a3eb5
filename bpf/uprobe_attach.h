/* SPDX-License-Identifier: MIT */
/*
 * uprobe_attach.h - uprobes whose registration a SIGKILL cannot cut.
 *
 * The kernel plants a uprobe's int3 in every process mapping the file while
 * perf_event_open() registers it, in the calling task; a page walk there
 * fails once that task has a fatal signal pending, and the kernel undoes the
 * half-done registration with the same walk, which fails too: "failed to
 * unregister, leaking uprobe", the int3 left for good in the processes
 * already done. So the perf events are opened by a helper process in a
 * session of its own (a SIGKILL of the caller or of its process group never
 * reaches it) and handed back over a socket; the caller attaches its program
 * to the event and holds the only reference. Their removal at the end goes
 * the same way (userspace/links.h, xpc_release_links).
 */
#ifndef XPERF_BPF_UPROBE_ATTACH_H
#define XPERF_BPF_UPROBE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_link;
struct bpf_program;

/*
 * prog on function func (NULL: file offset off alone; else off is added to
 * the function's) of the ELF file path, in process pid (-1: every process),
 * its return when ret; cookie is the program's bpf_get_attach_cookie(). The
 * same contract as libbpf's bpf_program__attach_uprobe_opts: the link, or
 * NULL with errno set. Where the kernel has no uprobe PMU (before 4.17)
 * libbpf's own attach (tracefs) is used.
 */
struct bpf_link *xk_uprobe_attach(struct bpf_program *prog, pid_t pid, const char *path,
				  const char *func, uint64_t off, bool ret, uint64_t cookie);

#endif /* XPERF_BPF_UPROBE_ATTACH_H */

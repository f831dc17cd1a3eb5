/* SPDX-License-Identifier: MIT */
/*
 * procs.c - process table. A tool is named by what it runs: for a shell
 * started as `sh -c "CMD ..."` that is the first word of CMD (how agents
 * run their bash tool), otherwise the basename of argv[0].
 */
#define _GNU_SOURCE
#include "assemble/procs.h"

#include <stdlib.h>
#include <string.h>

#include "lib/cmp.h"
#include "lib/grow.h"
#include "lib/secrets.h"

static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ash", NULL };

void xt_procs_free(struct xt_procs *t)
{
	free(t->p);
	memset(t, 0, sizeof(*t));
}

struct xt_proc *xt_procs_find(const struct xt_procs *t, uint32_t pid)
{
	for (size_t i = t->n; i > 0; i--) /* newest first: pids get reused */
		if (t->p[i - 1].pid == pid)
			return &t->p[i - 1];
	return NULL;
}

/*
 * Forget the earliest exited processes until a quarter of max is free (or
 * no exited one is left), keeping the others in order: finding a pid goes
 * newest first (pids get reused).
 */
static void evict(struct xt_procs *t)
{
	size_t keep = t->max - (t->max / 4 ? t->max / 4 : 1), want = t->n - keep;
	size_t exited = 0, drop, kept = 0, at_cut = 0;
	uint64_t *ends = malloc(t->n * sizeof(*ends)), cut;

	if (!ends)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].exited)
			ends[exited++] = t->p[i].exit_ns;
	if (!exited) {
		free(ends);
		return;
	}
	qsort(ends, exited, sizeof(*ends), xp_cmp_u64);
	drop = want < exited ? want : exited;
	cut = ends[drop - 1];
	for (size_t i = 0; i < drop; i++)
		at_cut += ends[i] == cut;	/* of those exited at the cut, this many go */
	free(ends);
	for (size_t i = 0; i < t->n; i++) {
		const struct xt_proc *p = &t->p[i];
		bool go = p->exited && (p->exit_ns < cut || (p->exit_ns == cut && at_cut));

		at_cut -= go && p->exit_ns == cut;
		if (!go)
			t->p[kept++] = *p;
	}
	t->evicted += t->n - kept;
	t->n = kept;
}

static struct xt_proc *add(struct xt_procs *t, uint32_t pid)
{
	if (t->max && t->n >= t->max)
		evict(t);
	if (xp_grow((void **)&t->p, &t->cap, t->n + 1, sizeof(*t->p)))
		return NULL;
	t->p[t->n] = (struct xt_proc){ .pid = pid };
	return &t->p[t->n++];
}

static void basename_to(char *dst, size_t cap, const char *s, size_t len)
{
	const char *slash = memrchr(s, '/', len);

	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

static int is_shell(const char *comm)
{
	for (const char *const *s = shells; *s; s++)
		if (!strcmp(comm, *s))
			return 1;
	return 0;
}

/*
 * Joins NUL-separated argv with spaces into dst (cut to fit), each argument
 * through the redactor (it knows the option before it); the first three in args.
 */
static void join_argv(char *dst, size_t cap, const char *argv, size_t len, const char **args,
		      bool keep_bodies)
{
	const char *prev = NULL;
	size_t n = 0, out = 0;

	for (size_t off = 0; off < len;) {
		size_t k = strnlen(argv + off, len - off);
		char *a = strndup(argv + off, k), *r = a ? xp_redact_arg(prev, a, keep_bodies) : NULL;
		const char *arg = r ? r : XP_SECRET_REDACTED; /* out of memory: nothing unredacted */
		size_t c = strlen(arg);

		if (n < 3)
			args[n] = argv + off;
		n++;
		if (out && out + 1 < cap)
			dst[out++] = ' ';
		c = c < cap - 1 - out ? c : cap - 1 - out;
		memcpy(dst + out, arg, c);
		out += c;
		free(r);
		free(a);
		prev = argv + off;
		off += k + 1;
	}
	dst[out] = '\0';
}

static void set_argv(struct xt_proc *p, const char *argv, size_t len, bool keep_bodies)
{
	const char *args[3] = { NULL, NULL, NULL };

	join_argv(p->cmdline, sizeof(p->cmdline), argv, len, args, keep_bodies);
	if (!args[0])
		return;
	basename_to(p->comm, sizeof(p->comm), args[0], strlen(args[0]));
	if (is_shell(p->comm) && args[1] && !strcmp(args[1], "-c") && args[2]) {
		const char *c = args[2] + strspn(args[2], " \t");

		basename_to(p->tool, sizeof(p->tool), c, strcspn(c, " \t;|&<>()\n"));
	}
	if (!p->tool[0])
		memcpy(p->tool, p->comm, sizeof(p->tool));
}

int xt_procs_event(struct xt_procs *t, const struct xt_event *ev)
{
	struct xt_proc *p;

	switch (ev->kind) {
	case XT_FORK:
		if (ev->is_thread)
			return 0;
		p = add(t, ev->child);
		if (!p)
			return -1;
		p->ppid = ev->tgid;
		p->fork_ns = ev->ts_ns;
		return 0;
	case XT_EXEC:
		p = xt_procs_find(t, ev->tgid);
		if (!p && !(p = add(t, ev->tgid)))
			return -1;
		/* the first exec is what the parent asked to run; a shell's later
		 * exec of that command (`bash -c CMD` execs CMD) keeps the name */
		if (!p->exec_ns)
			set_argv(p, ev->argv, ev->argv_len, t->keep_bodies);
		else
			join_argv(p->last_cmdline, sizeof(p->last_cmdline), ev->argv, ev->argv_len,
				  (const char *[3]){ NULL, NULL, NULL }, t->keep_bodies);
		p->exec_ns = ev->ts_ns;
		return 0;
	case XT_EXIT:
		p = xt_procs_find(t, ev->tgid);
		if (!p && !(p = add(t, ev->tgid)))
			return -1;
		p->exited = 1;
		p->exit_ns = ev->ts_ns;
		p->wait_status = ev->wait_status;
		p->cpu_ns = ev->cpu_ns;
		return 0;
	default:
		return 0;
	}
}

int xt_procs_descends(const struct xt_procs *t, uint32_t pid, uint32_t ancestor)
{
	const struct xt_proc *p = xt_procs_find(t, pid);

	for (int depth = 0; p && depth < 64; depth++) {
		if (p->ppid == ancestor)
			return 1;
		p = xt_procs_find(t, p->ppid);
	}
	return 0;
}

uint64_t xt_procs_tree_end(const struct xt_procs *t, uint32_t root)
{
	const struct xt_proc *r = xt_procs_find(t, root);
	uint64_t end;

	if (!r || !r->exited)
		return 0;
	end = r->exit_ns;
	for (size_t i = 0; i < t->n; i++) {
		if (!xt_procs_descends(t, t->p[i].pid, root))
			continue;
		if (!t->p[i].exited)
			return 0;
		if (t->p[i].exit_ns > end)
			end = t->p[i].exit_ns;
	}
	return end;
}

int xt_exit_code(uint32_t wait_status)
{
	return (int)((wait_status >> 8) & 0xff);
}

int xt_exit_signal(uint32_t wait_status)
{
	return (int)(wait_status & 0x7f);
}

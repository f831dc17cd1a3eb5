/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the tool-call matcher (tools.h). Commands are compared by their
 * first XT_TOOL_NEEDLE bytes: a command line is cut at 512 bytes when kept,
 * and a shell wrapper's long prologue can push the command past the cut, so
 * the command is looked for in every process of the tree, not in the root.
 * A command the shell runs as a builtin (echo, cd, export) leaves no process
 * of its own: a call still unmatched then takes the first unclaimed tree,
 * forked after its answer, where a shell's command line was cut (a wrapper's
 * prologue hid the command).
 */
#define _GNU_SOURCE
#include "assemble/tools.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define XT_TOOL_NEEDLE 256

/* Argument keys that hold a shell command, in the order they are tried. */
static const char *const command_keys[] = { "command", "cmd", "script", NULL };

static size_t join_strings(const cJSON *arr, char *buf, size_t cap)
{
	const cJSON *it;
	size_t out = 0;

	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it))
			return 0;
		int w = snprintf(buf + out, cap - out, "%s%s", out ? " " : "", it->valuestring);

		if (w < 0 || (size_t)w >= cap - out)
			return cap - 1; /* cut: the prefix still names the command */
		out += (size_t)w;
	}
	return out;
}

int xt_tool_command(const struct pr_tool_call *call, char *buf, size_t cap)
{
	cJSON *j = call->args ? cJSON_Parse(call->args) : NULL;
	size_t n = 0;

	buf[0] = '\0';
	for (const char *const *k = command_keys; j && *k && !n; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, *k);

		if (cJSON_IsString(v))
			n = (size_t)snprintf(buf, cap, "%s", v->valuestring);
		else if (cJSON_IsArray(v))
			n = join_strings(v, buf, cap);
	}
	cJSON_Delete(j);
	return n > 0 && buf[strspn(buf, " \t\n")];
}

/* A command line, kept cut, that runs a shell script ("bash -c", "sh -c"...). */
static int cut_script(const char *line, size_t cap)
{
	return strlen(line) >= cap - 1 && strstr(line, "sh -c ");
}

/* q runs the command; needle NULL: q's shell script was cut (what it ran is not in its line). */
static int runs(const struct xt_proc *q, const char *needle)
{
	if (needle)
		return strstr(q->cmdline, needle) || strstr(q->last_cmdline, needle);
	return cut_script(q->cmdline, sizeof(q->cmdline)) ||
	       cut_script(q->last_cmdline, sizeof(q->last_cmdline));
}

/* The tree of root: root itself or a descendant runs the command (needle as above). */
static int tree_runs(const struct xt_procs *procs, const struct xt_proc *root, const char *needle)
{
	if (runs(root, needle))
		return 1;
	for (size_t i = 0; i < procs->n; i++)
		if (runs(&procs->p[i], needle) &&
		    xt_procs_descends(procs, procs->p[i].pid, root->pid))
			return 1;
	return 0;
}

static int add(struct xt_tools *out, struct xt_tool t)
{
	if (xp_grow((void **)&out->t, &out->cap, out->n + 1, sizeof(*out->t)))
		return -1;
	out->t[out->n++] = t;
	return 0;
}

/*
 * Claims the first child tree of the turn, not yet claimed, forked after a,
 * running cmd (cmd NULL: any tree with a cut shell command line).
 */
static const struct xt_proc *find_tree(const struct xt_turn_in *in, char *claimed, uint64_t a,
				       const char *cmd)
{
	char needle[XT_TOOL_NEEDLE + 1];

	snprintf(needle, sizeof(needle), "%s", cmd ? cmd : "");
	for (size_t k = 0; k < in->procs->n; k++) {
		const struct xt_proc *p = &in->procs->p[k];

		if (claimed[k] || !xt_turn_child(in, p) || p->fork_ns < a)
			continue;
		if (tree_runs(in->procs, p, cmd ? needle : NULL)) {
			claimed[k] = 1;
			return p;
		}
	}
	return NULL;
}

/* Second pass: shell calls no command line named, in the order they were asked for. */
static void match_hidden(const struct xt_turn_in *in, char *claimed, struct xt_tools *out)
{
	char cmd[1024];

	for (size_t i = 0; i < out->n; i++) {
		struct xt_tool *t = &out->t[i];

		if (t->proc || !xt_tool_command(t->call, cmd, sizeof(cmd)))
			continue;
		t->proc = find_tree(in, claimed, t->ex->resp_end_ns, NULL);
	}
}

static int match_calls(const struct xt_turn_in *in, char *claimed, struct xt_tools *out)
{
	char cmd[1024];

	for (size_t i = 0; i < in->n_ex; i++) {
		const struct xt_exchange *e = in->ex[i];

		if (e->cipher || e->tgid != in->agent.pid || !xt_exchange_ok(e))
			continue;
		out->identity_known = 1;
		for (int j = 0; j < e->call.n_tools; j++) {
			const struct pr_tool_call *c = &e->call.tools[j];
			const struct xt_proc *p = xt_tool_command(c, cmd, sizeof(cmd)) ?
				find_tree(in, claimed, e->req_start_ns, cmd) : NULL;
			struct xt_tool t = { c, e, p, NULL };

			if (in->next)
				t.result = pr_llm_result_of(&in->next->call, c->id);
			if (add(out, t))
				return -1;
		}
	}
	return 0;
}

int xt_tools_match(const struct xt_turn_in *in, struct xt_tools *out)
{
	char *claimed = calloc(in->procs->n + 1, 1);
	int rc = claimed ? match_calls(in, claimed, out) : -1;

	if (!rc)
		match_hidden(in, claimed, out);

	for (size_t k = 0; k < in->procs->n && !rc; k++) {
		const struct xt_proc *p = &in->procs->p[k];

		if (!claimed[k] && xt_turn_child(in, p))
			rc = add(out, (struct xt_tool){ NULL, NULL, p, NULL });
	}
	free(claimed);
	return rc;
}

void xt_tools_free(struct xt_tools *t)
{
	free(t->t);
	memset(t, 0, sizeof(*t));
}

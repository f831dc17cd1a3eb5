/* SPDX-License-Identifier: MIT */
/*
 * c_agent.c - a small tool-using agent loop, instrumented with libxperf.
 *
 * Each task is one turn: assemble the prompt from the system prompt, the
 * history and the task; send it (the model is simulated, as there is no
 * network: sleeps stand for the time to first token and for each streamed
 * token, recorded with xperf_llm_token);
 * parse the model's JSON answer with cJSON; run the tool it asks for as a
 * real /bin/sh subprocess. A failing tool is Waste: the model is asked again
 * (a retry) and proposes a corrected command. Traces go to
 * $XPERF_TRACE_DIR (default .xperf/traces)/<session>/turn_NNN.json.
 *
 * usage: c_agent [task...]   (default: three built-in tasks)
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sdk/xperf.h"

#define MODEL "claude-sonnet-4-6"
#define PROMPT_MAX 16384

static const char system_prompt[] =
	"You are a careful shell assistant. Answer with one JSON object "
	"{\"tool\":\"sh\",\"command\":...} and nothing else.";

static char history[8192];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static size_t build_prompt(char *out, size_t len, const char *task)
{
	int n = snprintf(out, len, "%s\n\n# History\n%s\n# Task\n%s\n", system_prompt,
			 history[0] ? history : "(none)\n", task);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/*
 * The simulated model: a JSON answer naming a shell command. Its first try
 * at a task that mentions a missing file reads the wrong path.
 */
static char *model_answer(const char *task, int attempt)
{
	cJSON *o = cJSON_CreateObject();
	const char *cmd = "ls /etc | head -n 5";
	char *text;

	if (strstr(task, "passwd"))
		cmd = "wc -l < /etc/passwd";
	else if (strstr(task, "hostname"))
		cmd = attempt == 0 ? "cat /etc/hostname.missing" : "cat /etc/hostname";
	cJSON_AddStringToObject(o, "tool", "sh");
	cJSON_AddStringToObject(o, "command", cmd);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* The request body a provider API would get. */
static char *request_body(const char *prompt)
{
	cJSON *body = cJSON_CreateObject();
	cJSON *msg = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(body, "model", MODEL);
	cJSON_AddBoolToObject(body, "stream", 1);
	cJSON_AddStringToObject(msg, "role", "user");
	cJSON_AddStringToObject(msg, "content", prompt);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(body, "messages"), msg);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	return text;
}

/* Sends the prompt; the (simulated) answer streams back token by token. */
static char *ask_model(int turn, const char *prompt, size_t prompt_len, const char *task,
		       int attempt)
{
	struct xperf_attr req[] = {
		XP_STR("system", "anthropic"),
		XP_STR("request_model", MODEL),
		XP_INT("input_tokens", (int64_t)(prompt_len / 4)),
	};
	int s = xperf_enter(turn, "prompt_transfer", NULL);
	char *body = request_body(prompt);
	struct xperf_attr size[] = { XP_INT("http.request.body.size", (int64_t)strlen(body)) };
	char *answer;
	size_t len;
	int llm;

	xperf_span_set(turn, s, size, XP_NATTR(size));
	free(body);
	xperf_leave(turn, s);
	llm = xperf_enter_llm(turn, NULL, req, XP_NATTR(req));
	answer = model_answer(task, attempt);
	len = strlen(answer);
	sleep_ms(15); /* queueing and prefill until the first token */
	for (size_t i = 0; i < len; i += 4) {
		sleep_ms(4); /* decoding: one token of ~4 characters */
		xperf_llm_token(turn, llm);
	}
	{
		struct xperf_attr resp[] = {
			XP_INT("output_tokens", (int64_t)((len + 3) / 4)),
			XP_STR("finish_reason", "tool_use"),
			XP_STR("response_model", MODEL),
		};

		xperf_leave_llm(turn, llm, resp, XP_NATTR(resp));
	}
	return answer;
}

/* Runs `sh -c cmd`, output into out; returns the exit status (-1: could not run). */
static int run_tool(const char *cmd, char *out, size_t len)
{
	int fd[2], status = -1;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && got + 1 < len && (r = read(fd[0], out + got, len - got - 1)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Parses the answer and runs its tool; returns the exit status. */
static int act(int turn, const char *answer, char *out, size_t len)
{
	int s = xperf_enter(turn, "response_parse", NULL), rc;
	cJSON *o = cJSON_Parse(answer);
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItem(o, "command"));
	struct xperf_attr tokens[] = { XP_INT("output_tokens", (int64_t)(strlen(answer) / 4 + 1)) };

	xperf_span_set(turn, s, tokens, XP_NATTR(tokens));
	xperf_leave(turn, s);
	if (!cmd) {
		xperf_mark_waste(turn, "llm_error", NULL, 0);
		cJSON_Delete(o);
		return -1;
	}
	s = xperf_enter(turn, "tool_call", "sh");
	rc = run_tool(cmd, out, len);
	{
		struct xperf_attr res[] = { XP_INT("exit_code", rc), XP_STR("command_line", cmd) };
		struct xperf_attr failed[] = { XP_INT("failed_calls", 1) };

		xperf_span_set(turn, s, res, XP_NATTR(res));
		if (rc != 0)
			xperf_mark_waste(turn, "failed_tool_call", failed, XP_NATTR(failed));
	}
	xperf_leave(turn, s);
	cJSON_Delete(o);
	return rc;
}

static void run_task(const char *task)
{
	static char prompt[PROMPT_MAX];
	char out[2048];
	int turn = xperf_start_turn(), rc = -1;

	for (int attempt = 0; attempt < 3 && rc != 0; attempt++) {
		int s = xperf_enter(turn, "prompt_assembly", NULL);
		size_t n = build_prompt(prompt, sizeof(prompt), task);
		/* the work it did, for the analyzer's effective-work formula */
		struct xperf_attr tokens[] = { XP_INT("input_tokens", (int64_t)(n / 4)) };
		char *answer;

		xperf_span_set(turn, s, tokens, XP_NATTR(tokens));
		xperf_leave(turn, s);
		if (attempt > 0) {
			struct xperf_attr why[] = { XP_INT("retries", 1) };

			xperf_mark_waste(turn, "retry", why, XP_NATTR(why));
		}
		answer = ask_model(turn, prompt, n, task, attempt);
		rc = act(turn, answer, out, sizeof(out));
		free(answer);
	}
	printf("task: %s\n%s", task, out);
	snprintf(history + strlen(history), sizeof(history) - strlen(history), "- %s: exit %d\n",
		 task, rc);
	if (xperf_end_turn(turn) != 0)
		fprintf(stderr, "c_agent: the trace of this turn was not written\n");
}

int main(int argc, char **argv)
{
	static const char *const tasks[] = {
		"List a few files in /etc",
		"How many accounts are in /etc/passwd?",
		"What is this machine's hostname?",
	};
	char dir[4096];
	int err = xperf_init(&(struct xperf_agent_info){ "c-agent", MODEL }, NULL);

	if (err) {
		fprintf(stderr, "c_agent: xperf_init: %s\n", xperf_strerror(err));
		return 1;
	}
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			run_task(argv[i]);
	else
		for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
			run_task(tasks[i]);
	if (xperf_session_dir(dir, sizeof(dir)) > 0)
		printf("traces: %s\n", dir);
	xperf_shutdown();
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c - `xperf top [DIR]`: the live view of the agents traced into DIR
 * (top/top.h). On a terminal: the alternate screen, raw keys, a new frame
 * every interval and at each key, the size from the terminal (SIGWINCH
 * redraws). --once prints one frame without attributes for scripts.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "top/top.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static const char doc[] =
	"The live view of the agents traced into DIR (.xperf/traces by default): "
	"DIR/<session>/turn_*.json, and DIR/<node>/<session>/turn_*.json as the node daemon "
	"writes them.\v"
	"Keys: q quit, s next sort key, j/k or arrows select, d detail pane.\n"
	"Exit status: 0 ok, 1 a write failed, 2 DIR missing or unreadable (--once; live, the "
	"frame says so until it can) or a bad --prices file, 64 usage error.";

enum { OPT_ONCE = 256, OPT_INTERVAL, OPT_SORT, OPT_SIZE };

static const struct argp_option options[] = {
	{ "once", OPT_ONCE, NULL, 0, "print one frame and exit (no terminal needed)", 0 },
	{ "interval", OPT_INTERVAL, "S", 0, "seconds between refreshes (1)", 0 },
	{ "sort", OPT_SORT, "KEY", 0, "cost|turns|waste|ttft|name (cost)", 0 },
	{ "size", OPT_SIZE, "COLSxROWS", 0,
	  "frame size for --once (80x24; a terminal's own otherwise)", 0 },
	CMD_OPTION_PRICES,
	{ 0 },
};

struct args {
	const char *dir, *prices;
	int once, cols, rows;
	double interval;
	enum top_sort sort;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char end;

	switch (key) {
	case OPT_ONCE:
		a->once = 1;
		break;
	case OPT_INTERVAL:
		a->interval = xp_args_number(state, arg, 0.1, 3600, "seconds, 0.1..3600");
		break;
	case OPT_SORT:
		a->sort = (enum top_sort)xp_args_choice(state, arg, top_sort_names, TOP_SORT_COUNT);
		break;
	case OPT_SIZE:
		if (sscanf(arg, "%dx%d%c", &a->cols, &a->rows, &end) != 2 || a->cols < 40 ||
		    a->rows < 10 || a->cols > 1000 || a->rows > 1000)
			xp_args_invalid(state, "COLSxROWS, 40x10..1000x1000");
		break;
	case CMD_KEY_PRICES:
		a->prices = arg;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num)
			return ARGP_ERR_UNKNOWN;
		a->dir = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void term_size(int *cols, int *rows)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/* One key (arrows arrive as ESC [ A / B); 0 on a timeout. */
static int read_key(int ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c[3];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0 || (n = read(STDIN_FILENO, c, sizeof(c))) <= 0)
		return 0;
	if (n == 3 && c[0] == 27 && c[1] == '[')
		return c[2] == 'A' ? 'k' : c[2] == 'B' ? 'j' : 0;
	return c[0];
}

static int handle(struct top *t, int key)
{
	switch (key) {
	case 'q': case 3: return 1;
	case 's': t->sort = (enum top_sort)((t->sort + 1) % TOP_SORT_COUNT); top_sort(t); break;
	case 'j': if (t->selected + 1 < t->n) t->selected++; break;
	case 'k': if (t->selected) t->selected--; break;
	case 'd': case '\r': case '\n': t->detail = !t->detail; break;
	default: break;
	}
	return 0;
}

static int live(struct top *t, const struct args *a)
{
	struct termios saved, raw;
	struct timespec last = { 0, 0 }, now;
	int cols = 80, rows = 24, key = 0;

	if (tcgetattr(STDIN_FILENO, &saved)) {
		fprintf(stderr, "xperf top: not a terminal (use --once)\n");
		return XP_EXIT_USAGE;
	}
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_iflag &= ~(tcflag_t)(ICRNL);
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	fputs("\033[?1049h\033[?25l\033[2J", stdout);
	while (!stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - last.tv_sec + (now.tv_nsec - last.tv_nsec) / 1e9 >= a->interval) {
			top_scan(t);
			last = now;
		}
		term_size(&cols, &rows);
		top_frame(t, cols, rows, 1, stdout);
		fflush(stdout);
		key = read_key(200);
		if (handle(t, key))
			break;
	}
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return XP_EXIT_OK;
}

int cmd_top(int argc, char **argv)
{
	static const struct xp_args args = { "xperf top", options, parse_arg, "[DIR]", doc, 0,
					     NULL };
	struct args a = { .interval = 1, .cols = 80, .rows = 24 };
	struct top t = { .detail = 1 };
	struct xa_prices *prices;
	int rc;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	if (cmd_prices(a.prices, &prices))
		return XP_EXIT_INVALID;
	snprintf(t.dir, sizeof(t.dir), "%s", a.dir ? a.dir : ".xperf/traces");
	t.prices = prices;
	t.sort = a.sort;
	if (a.once && top_scan(&t)) {
		fprintf(stderr, "xperf top: %s\n", t.error);
		rc = XP_EXIT_INVALID;
	} else if (a.once) {
		top_frame(&t, a.cols, a.rows, 0, stdout);
		rc = fflush(stdout) || ferror(stdout) ? XP_EXIT_FAIL : XP_EXIT_OK;
	} else { /* live: a directory not there yet is shown as such until it appears */
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGWINCH, SIG_IGN);
		rc = live(&t, &a);
	}
	top_free(&t);
	xa_prices_free(prices);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * uprobe_attach.c - uprobes opened by a helper process (uprobe_attach.h).
 *
 * The helper is forked at the first attach, twice (no child of the caller:
 * tools that list the caller's children, and its own waits, never see it),
 * in a session of its own, holding nothing of the caller's but its end of a
 * socket pair. It answers each request (pid, offset, return probe, path)
 * with the perf event's fd or -errno and closes its own copy at once, so
 * the caller holds the only reference; it exits when the caller's end
 * closes. A request it was working on when the caller died is finished and
 * its event closed there, by a task no signal interrupts: the registration
 * and its removal both run to their end.
 */
#define _GNU_SOURCE /* close_range */
#include "bpf/uprobe_attach.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

struct req {
	int32_t pid, ret;
	uint64_t off;
	char path[4096];
};

struct pmu {
	int type, retbit;	/* the uprobe PMU's type and its retprobe config bit */
};

static struct {
	pthread_mutex_t lock;
	int sock;		/* -1: no helper (not started, or gone) */
	int started;
	struct pmu pmu;		/* type -1: no uprobe PMU */
} helper = { PTHREAD_MUTEX_INITIALIZER, -1, 0, { -1, 0 } };

/* libbpf's choice of perf_event_open arguments for a uprobe. */
static int open_event(const struct pmu *u, const struct req *r)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)u->type;
	a.config = r->ret ? 1ull << u->retbit : 0;
	a.config1 = (uint64_t)(uintptr_t)r->path;
	a.config2 = r->off;
	fd = (int)syscall(SYS_perf_event_open, &a, r->pid < 0 ? -1 : r->pid, r->pid == -1 ? 0 : -1,
			  -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void read_pmu(struct pmu *u)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");

	u->type = -1;
	if (!f)
		return;
	if (fscanf(f, "%d", &u->type) != 1)
		u->type = -1;
	fclose(f);
	f = fopen("/sys/bus/event_source/devices/uprobe/format/retprobe", "re");
	if (!f || fscanf(f, "config:%d", &u->retbit) != 1 || u->retbit < 0 || u->retbit > 63)
		u->type = -1;
	if (f)
		fclose(f);
}

static int send_reply(int sock, int err, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* The helper: async-signal-safe calls only (forked from a threaded process). */
static void serve(int sock, const struct pmu *u)
{
	struct req r;

	for (;;) {
		ssize_t n = recv(sock, &r, sizeof(r), 0);
		int fd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= (ssize_t)offsetof(struct req, path))
			_exit(0); /* the caller's end closed */
		r.path[sizeof(r.path) - 1] = '\0';
		fd = open_event(u, &r);
		send_reply(sock, fd < 0 ? fd : 0, fd);
		if (fd >= 0)
			close(fd); /* not the last reference once sent: the caller holds one */
	}
}

/* In the first child: detach from the caller and become the helper's parent. */
static void helper_child(int sock, const struct pmu *u)
{
	int null;

	setsid();
	if (fork() != 0)
		_exit(0); /* the caller reaps this one; the helper goes to init */
	if (sock != 3 && dup2(sock, 3) < 0)
		_exit(1);
	close_range(4, ~0u, 0); /* no file, lock or pipe of the caller's kept open */
	null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		if (fd != null)
			dup2(null, fd);
	if (null > 3)
		close(null);
	serve(3, u);
}

/* Starts the helper (helper.lock held); its socket, or -1. */
static int start_helper(void)
{
	int sv[2];
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	child = fork();
	if (child == 0)
		helper_child(sv[1], &helper.pmu);
	close(sv[1]);
	if (child < 0) {
		close(sv[0]);
		return -1;
	}
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return sv[0];
}

/* The helper's answer: the event's fd or -errno; -EPIPE when the helper is gone. */
static int ask(int sock, const struct req *r)
{
	size_t len = offsetof(struct req, path) + strlen(r->path) + 1;
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = -EPIPE, fd = -1;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	while (send(sock, r, len, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -EPIPE;
	while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -EPIPE;
	if (n != sizeof(err))
		return -EPIPE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (err == 0 && fd < 0)
		return -EPIPE;
	return err ? err : fd;
}

/* The event's fd or -errno; -ENOSYS when there is no uprobe PMU. */
static int open_uprobe(const struct req *r)
{
	int fd;

	pthread_mutex_lock(&helper.lock);
	if (!helper.started) {
		helper.started = 1;
		read_pmu(&helper.pmu);
		if (helper.pmu.type >= 0)
			helper.sock = start_helper();
	}
	if (helper.pmu.type < 0) {
		fd = -ENOSYS;
	} else if (helper.sock < 0) {
		fd = open_event(&helper.pmu, r); /* no helper could start: here, as libbpf would */
	} else if ((fd = ask(helper.sock, r)) == -EPIPE) {
		close(helper.sock); /* the helper was killed: start another for the next one */
		helper.sock = start_helper();
		fd = open_event(&helper.pmu, r);
	}
	pthread_mutex_unlock(&helper.lock);
	return fd;
}

/* "name" or a versioned "name@VER" / "name@@VER" is func. */
static int same_func(const char *name, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(name, func, n) && (name[n] == '\0' || name[n] == '@');
}

/* func in symbol table scn; its file offset, -ENOENT, or -EINVAL for two non-weak ones. */
static int64_t find_in(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *func)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int64_t found = -ENOENT;
	int found_bind = STB_WEAK;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym s;
		GElf_Shdr fs;
		const char *name;
		int bind;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !same_func(name, func) || !gelf_getshdr(elf_getscn(e, s.st_shndx), &fs))
			continue;
		bind = GELF_ST_BIND(s.st_info);
		if (found >= 0 && bind == STB_WEAK)
			continue; /* a weak alias of what was found */
		if (found >= 0 && found_bind != STB_WEAK)
			return -EINVAL; /* libbpf refuses two non-weak ones too */
		/* the symbol's address to its file offset, through its section */
		found = (int64_t)(s.st_value - fs.sh_addr + fs.sh_offset);
		found_bind = bind;
	}
	return found;
}

/* The file offset of function func in ELF file path (what a uprobe takes), or -errno. */
static int64_t func_offset(const char *path, const char *func)
{
	static const Elf64_Word tables[] = { SHT_DYNSYM, SHT_SYMTAB }; /* libbpf's order */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int64_t off = -ENOENT;
	Elf *e;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (size_t t = 0; e && t < 2 && off == -ENOENT; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while (off == -ENOENT && (scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == tables[t])
				off = find_in(e, scn, &sh, func);
	}
	if (!e)
		off = -EINVAL;
	elf_end(e);
	close(fd);
	return off;
}

struct bpf_link *xk_uprobe_attach(struct bpf_program *prog, pid_t pid, const char *path,
				  const char *func, uint64_t off, bool ret, uint64_t cookie)
{
	struct req r = { .pid = pid, .ret = ret, .off = off };
	struct bpf_link *l;
	int fd, err;

	if (func) {
		int64_t at = func_offset(path, func);

		if (at < 0) {
			errno = (int)-at;
			return NULL;
		}
		r.off += (uint64_t)at;
	}
	if ((size_t)snprintf(r.path, sizeof(r.path), "%s", path) >= sizeof(r.path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open_uprobe(&r);
	if (fd == -ENOSYS) { /* an old kernel: libbpf's tracefs uprobes */
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = cookie);

		return bpf_program__attach_uprobe_opts(prog, pid, path, r.off, &uo);
	}
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie);
	l = bpf_program__attach_perf_event_opts(prog, fd, &po);
	if (!l) {
		err = errno;
		close(fd);
		errno = err;
	}
	return l;
}

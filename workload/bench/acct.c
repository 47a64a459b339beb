// SPDX-License-Identifier: GPL-2.0
/*
 * acct: run a command and append its CPU time to a log, for lab/bench.sh's
 * genksyms accounting. kbuild runs it in place of scripts/genksyms/genksyms
 * (make's genksyms variable) and of the C preprocessor (CPP):
 *
 *	acct LOG genksyms CMD ARGS...	always accounted
 *	acct LOG cpp CMD ARGS...	accounted only when it is a symversions
 *					step: -D__GENKSYMS__ (the genksyms
 *					input), or the .S export pre-pass
 *					(-D__ASSEMBLY__ to a pipe, no -o);
 *					any other run is a plain exec
 *
 * Log line (one write(2) with O_APPEND, so parallel jobs do not interleave):
 *	TAG user_us sys_us
 * The command's exit status is passed on; a signal kills acct likewise.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int has(char **argv, const char *s)
{
	for (; *argv; argv++)
		if (!strcmp(*argv, s))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *log, *tag;
	struct rusage ru;
	char line[128];
	int status, fd, n;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: acct LOG genksyms|cpp CMD [ARGS...]\n");
		return 2;
	}
	log = argv[1];
	tag = argv[2];
	argv += 3;
	if (!strcmp(tag, "cpp")) {
		if (has(argv, "-D__GENKSYMS__"))
			tag = "cpp-genksyms";
		else if (has(argv, "-D__ASSEMBLY__") && !has(argv, "-o") &&
			 !has(argv, "-DLINKER_SCRIPT"))
			tag = "cpp-asm-exports";
		else {
			execvp(argv[0], argv);
			perror(argv[0]);
			return 127;
		}
	}
	pid = fork();
	if (pid < 0) {
		perror("acct: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("acct: wait4");
		return 127;
	}
	n = snprintf(line, sizeof(line), "%s %ld %ld\n", tag,
		     (long)ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
		     (long)ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != n) {
		perror(log);
		return 127;
	}
	close(fd);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms. Under TCG the guest's TSC is the host's
 * (QEMU reads the host TSC), and the guest's own calibration against the
 * emulated PIT fails when the host is busy, which leaves the guest on the
 * jiffies clocksource (4 ms steps at HZ=250): qemu/boot.sh therefore boots
 * every TCG guest with tsc_early_khz=<this>. A few 0.01% of error would
 * scale every guest time alike; the ratios between arms do not move.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec d = { 0, 200000000 };
	double t0, t1;
	unsigned long long c0, c1;

	t0 = now();
	c0 = __rdtsc();
	nanosleep(&d, NULL);
	t1 = now();
	c1 = __rdtsc();
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000.0);
	return 0;
}

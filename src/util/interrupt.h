/*
 * interrupt.h - SIGINT, SIGTERM and SIGHUP as a stop request.
 *
 * interrupt_install() makes these signals set `interrupted` to the number
 * of the first one to arrive (no SA_RESTART, so a blocking call returns EINTR).  Long waits
 * pass &interrupted as their stop flag and return early; the command then
 * prints what it has and exits with 128 + interrupted.  Process-wide.
 */
#ifndef PERFBOT_UTIL_INTERRUPT_H
#define PERFBOT_UTIL_INTERRUPT_H

#include <signal.h>

extern volatile sig_atomic_t interrupted;

void interrupt_install(void);

#endif

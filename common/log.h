/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_LOG_H
#define GPUISO_COMMON_LOG_H

#include <stdbool.h>

/*
 * One logging helper for the whole project. Each file defines LOG_PREFIX
 * before including this header; messages go to stderr as "prefix: text".
 * Quiet by default: errors always print, info with -v, debug with -vv.
 */

enum log_level { LOG_ERROR = 0, LOG_INFO = 1, LOG_DEBUG = 2 };

#ifndef LOG_PREFIX
#define LOG_PREFIX "gpuiso"
#endif

/**
 * log_set_level() - set how much is printed (process-wide; replay state lives elsewhere).
 * @level: the highest level that prints.
 */
void log_set_level(enum log_level level);

/**
 * log_enabled() - whether messages of @level print.
 * @level: the level to test.
 *
 * Return: true if log_msg() at @level would print.
 */
bool log_enabled(enum log_level level);

/**
 * log_msg() - print one message with a prefix.
 * @level: its level; nothing prints above the configured level.
 * @prefix: the calling file's LOG_PREFIX.
 * @fmt: printf format.
 */
void log_msg(enum log_level level, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...) log_msg(LOG_ERROR, LOG_PREFIX, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_ERROR, LOG_PREFIX ": warning", __VA_ARGS__) /* prints as errors do */
#define log_info(...) log_msg(LOG_INFO, LOG_PREFIX, __VA_ARGS__)
#define log_dbg(...) log_msg(LOG_DEBUG, LOG_PREFIX, __VA_ARGS__)

#endif

/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "copy.h"

void copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__SSE2__)
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;

	if (head > n)
		head = n;
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	memcpy(d, s, n);
	/*
	 * No sfence: this thread sees its own streamed stores in program order
	 * anyway, and a fence here (waiting for them to reach memory) would cost
	 * more than a 4 KiB copy. Whoever hands the memory to another thread
	 * synchronises with it and fences there.
	 */
#else
	memcpy(dst, src, n);
#endif
}

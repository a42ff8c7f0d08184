/* SPDX-License-Identifier: MIT */
/*
 * A Windows kernel driver, built with mingw-w64 for the tests of
 * `gpuiso lint-driver` (tests/lint/meson.build): never run, only scanned.
 * Built as it is, it imports what a display driver may import from
 * ntoskrnl.exe and HAL.dll, including Mm functions whose names are near
 * those of the seven the HLK import scan forbids. With -DUSE_<name> it
 * also calls that one of the seven. The prototypes are written here, not
 * taken from the DDK headers, so that the tests need no DDK.
 */
#ifdef __i386__
#define NTAPI __attribute__((stdcall))
#else
#define NTAPI
#endif
#define IMPORT __declspec(dllimport)

typedef long NTSTATUS;
typedef unsigned long ULONG;
typedef unsigned long long ULONG64;
typedef __SIZE_TYPE__ SIZE_T;
typedef struct { long long QuadPart; } PHYSICAL_ADDRESS;
typedef struct { unsigned short Length, MaximumLength; unsigned short *Buffer; } UNICODE_STRING;
typedef struct mdl MDL;

/* allowed */
IMPORT NTSTATUS NTAPI IoCreateDevice(void *driver, ULONG ext, UNICODE_STRING *name, ULONG type,
				     ULONG chars, unsigned char exclusive, void **device);
IMPORT void NTAPI IoDeleteDevice(void *device);
IMPORT void NTAPI RtlInitUnicodeString(UNICODE_STRING *dst, const unsigned short *src);
IMPORT void *NTAPI ExAllocatePoolWithTag(int pool, SIZE_T bytes, ULONG tag);
IMPORT void NTAPI ExFreePoolWithTag(void *p, ULONG tag);
IMPORT void *NTAPI MmGetSystemRoutineAddress(UNICODE_STRING *name);
IMPORT void *NTAPI MmMapLockedPagesSpecifyCache(MDL *mdl, char mode, int cache, void *addr,
						 ULONG bugcheck, ULONG priority);
IMPORT void NTAPI MmUnlockPages(MDL *mdl);
/* HAL.dll */
IMPORT void NTAPI KeStallExecutionProcessor(ULONG us);
IMPORT ULONG64 NTAPI KeQueryPerformanceCounter(ULONG64 *freq);

/* the seven */
IMPORT void *MmAllocateContiguousMemory(SIZE_T bytes, PHYSICAL_ADDRESS highest);
IMPORT void *MmAllocateContiguousMemorySpecifyCache(SIZE_T bytes, PHYSICAL_ADDRESS lowest,
						   PHYSICAL_ADDRESS highest,
						   PHYSICAL_ADDRESS boundary, int cache);
IMPORT void MmFreeContiguousMemory(void *p);
IMPORT MDL *MmAllocatePagesForMdl(PHYSICAL_ADDRESS low, PHYSICAL_ADDRESS high,
				  PHYSICAL_ADDRESS skip, SIZE_T bytes);
IMPORT MDL *MmAllocatePagesForMdlEx(PHYSICAL_ADDRESS low, PHYSICAL_ADDRESS high,
				    PHYSICAL_ADDRESS skip, SIZE_T bytes, int cache, ULONG flags);
IMPORT void MmFreePagesFromMdl(MDL *mdl);
IMPORT void MmProbeAndLockPages(MDL *mdl, char mode, int operation);

NTSTATUS NTAPI DriverEntry(void *driver, UNICODE_STRING *registry);

/* What the forbidden call works on. */
static MDL *driver_mdl(void *driver)
{
	PHYSICAL_ADDRESS low = { 0 }, high = { -1 };
	void *p = 0;
	MDL *mdl = driver;

#if defined(USE_MmAllocateContiguousMemory)
	p = MmAllocateContiguousMemory(4096, high);
#elif defined(USE_MmAllocateContiguousMemorySpecifyCache)
	p = MmAllocateContiguousMemorySpecifyCache(4096, low, high, low, 1);
#elif defined(USE_MmFreeContiguousMemory)
	MmFreeContiguousMemory(driver);
#elif defined(USE_MmAllocatePagesForMdl)
	mdl = MmAllocatePagesForMdl(low, high, low, 4096);
#elif defined(USE_MmAllocatePagesForMdlEx)
	mdl = MmAllocatePagesForMdlEx(low, high, low, 4096, 1, 0);
#elif defined(USE_MmFreePagesFromMdl)
	MmFreePagesFromMdl(mdl);
#elif defined(USE_MmProbeAndLockPages)
	MmProbeAndLockPages(mdl, 0, 0);
#endif
	(void)low;
	(void)high;
	return p ? p : mdl;
}

NTSTATUS NTAPI DriverEntry(void *driver, UNICODE_STRING *registry)
{
	static const unsigned short name[] = { 'M', 'm', 'X', 0 };
	UNICODE_STRING routine;
	void *device = 0, *buf;
	ULONG64 freq;
	NTSTATUS status;
	MDL *mdl = driver_mdl(driver);

	RtlInitUnicodeString(&routine, name);
	if (!MmGetSystemRoutineAddress(&routine))
		KeStallExecutionProcessor(1);
	buf = ExAllocatePoolWithTag(0, 64, 0x6f737067);
	status = IoCreateDevice(driver, 0, registry, 0x22, 0, 0, &device);
	if (status >= 0 && MmMapLockedPagesSpecifyCache(mdl, 0, 1, 0, 0, 16))
		MmUnlockPages(mdl);
	if (device && KeQueryPerformanceCounter(&freq) > freq)
		IoDeleteDevice(device);
	ExFreePoolWithTag(buf, 0x6f737067);
	return status;
}

#ifdef DELAY_HELPER
/* The helper a delay-load import calls on its first use (the CRT's): never called here. */
void *__delayLoadHelper2(const void *descriptor, void **slot);
void *__delayLoadHelper2(const void *descriptor, void **slot)
{
	return *slot;
}

/*
 * The null descriptor after the one dlltool's delay-import library puts in
 * .text$2: GNU ld sorts .text$* by name, so this follows it and ends the
 * delay-load import directory (tests/lint/set-delay-dir).
 */
__asm__(".section .text$2z,\"xr\"\n\t.p2align 2\n\t.zero 32\n\t.text\n");
#endif

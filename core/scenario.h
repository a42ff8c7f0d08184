/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_SCENARIO_H
#define GPUISO_CORE_SCENARIO_H

#include "common/range.h"
#include "common/types.h"
#include "hw/backend.h"

/*
 * A scenario: the machine (installed memory, OS memory map, limits), the
 * registry (IOMMUFlags, secure-VM staging key) and the logical adapters with
 * their driver caps and physical adapters (the LDA chain). It is read from
 * YAML (docs/scenario-format.md) or filled in by code (tests, benchmarks).
 */

/* IOMMUFlags bits (HKLM\...\GraphicsDrivers\IOMMUFlags). */
enum iommu_flag {
	IOMMU_FLAG_ENABLED = 0x01,
	IOMMU_FLAG_ENABLE_MAPPINGS = 0x02,
	IOMMU_FLAG_ENABLE_ATTACH = 0x04,
	IOMMU_FLAG_BYPASS_DRIVER_CAP = 0x08,
	IOMMU_FLAG_ALLOW_FAILURE = 0x10,
};

enum fb_save_mode {
	FB_SAVE_PER_ADAPTER = 0, /* one section per physical adapter (preferred) */
	FB_SAVE_SHARED = 1,      /* one section, reported by physical adapter 0 */
};

/* Driver capabilities, as the KMD reports them before START_DEVICE. */
struct scn_caps {
	bool iommu_secure_mode;     /* DXGK_VIDMMCAPS.IoMmuSecureModeSupported */
	bool map_aperture2;         /* DXGK_VIDMMCAPS.MapAperture2Supported */
	bool iommu_linear_remap;    /* DXGK_IOMMU_CAPS: linear remapping supported */
	bool has_physical_caps;     /* DXGK_PHYSICAL_MEMORY_CAPS reported at all */
	uint64_t highest_visible_address; /* inclusive; valid when has_physical_caps */
	uint32_t dma_remapping_compatible; /* INF DmaRemappingCompatible (3 = supports remapping) */
};

struct scn_phys {
	uint64_t vram;                 /* bytes of VRAM */
	uint64_t fb_save_size;         /* DXGK_FRAMEBUFFERSAVEAREA maximum size, bytes */
	struct range_extent *reserved; /* hardware-reserved physical ranges */
	size_t nreserved;
	uint64_t populated_from_system; /* bytes of a PopulatedFromSystemMemory segment (0: none) */
};

/* A WDDM version as the scenario stores it: 2.4 is SCN_WDDM(2, 4) = 24. */
#define SCN_WDDM(major, minor) ((major) * 10 + (minor))
#define SCN_WDDM_MIN SCN_WDDM(2, 4) /* IOMMU isolation begins here */
#define SCN_WDDM_MAX SCN_WDDM(3, 2) /* the newest version the model knows */

struct scn_adapter {
	char *name;
	unsigned int wddm;       /* the driver's WDDM version, SCN_WDDM() */
	bool integrated;
	struct scn_caps caps;
	enum fb_save_mode fb_save_mode;
	uint64_t small_buffer;   /* forward-progress buffer preallocated at init, bytes */
	struct scn_phys *phys;   /* the LDA chain; [0] is the lead */
	size_t nphys;
};

struct scn_system {
	uint64_t memory;                  /* installed RAM, bytes */
	uint64_t highest_physical_address; /* inclusive */
	struct range_extent *os_memory_map; /* RAM ranges */
	size_t nmap;
	uint64_t commit_limit;
	uint64_t lockable_limit;
};

struct scn_registry {
	uint32_t iommu_flags;    /* enum iommu_flag bits */
	bool secure_vm_staging;  /* velocity staging key 14688597 */
};

struct scenario {
	char *path;              /* where it was read from, or NULL */
	struct scn_system system;
	struct scn_registry registry;
	struct scn_adapter *adapters;
	size_t nadapters;
	struct hw_settings settings; /* iommu: and cost_model:, for the backend to read */
	char *backend;              /* backend: "sim" or "vfio:BDF", or NULL (the simulator) */
};

/**
 * scenario_load() - read and validate a scenario YAML file.
 * @path: the file.
 * @scn: out: the scenario; free with scenario_free(). After an error it is
 *       empty (zeroed): nothing to free.
 * @errbuf: out: on error, one or more lines "file:line:col: error: ..." (NUL terminated).
 * @errlen: size of @errbuf.
 *
 * Unknown keys, wrong types and bad values are errors naming where they are.
 * Defaults are filled in for optional keys (docs/scenario-format.md).
 *
 * Return: 0, -ENOENT if the file cannot be opened, -EINVAL if it is malformed.
 */
int scenario_load(const char *path, struct scenario *scn, char *errbuf, size_t errlen);

/**
 * scenario_defaults() - fill @scn with a valid one-adapter scenario (default.yaml's values).
 * @scn: out; free with scenario_free().
 *
 * Return: 0, -ENOMEM.
 */
int scenario_defaults(struct scenario *scn);

/**
 * scenario_free() - free what scenario_load() or scenario_defaults() allocated.
 * @scn: the scenario; zeroed afterwards.
 */
void scenario_free(struct scenario *scn);

/**
 * scenario_memory_top() - the last byte of installed memory: the top of the OS memory map.
 * @sys: the system (its map in any order).
 *
 * Return: the highest base + size - 1 of its non-empty ranges; 0 for an empty map.
 */
uint64_t scenario_memory_top(const struct scn_system *sys);

/**
 * scenario_machine() - the machine a scenario describes, for a backend
 * (hw_backend_open()): its memory, limits and one GPU per physical adapter.
 * @scn: the scenario; the machine points into it.
 * @m: out: the machine.
 * @vram: out: its GPUs' VRAM sizes, which @m points to; free() them.
 *
 * Return: 0, or -ENOMEM.
 */
int scenario_machine(const struct scenario *scn, struct hw_machine *m, uint64_t **vram);

#endif

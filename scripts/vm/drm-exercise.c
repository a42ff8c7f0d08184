// SPDX-License-Identifier: MIT
/*
 * drm-exercise - drive a DRM driver's dumb buffers through its ioctls, in a
 * fixed order, so that a recording of the kernel's trace events can be held
 * to what was asked of it. Built static by scripts/vm/lib.sh and run in the
 * QEMU guest on /dev/dri/card0 (virtio-gpu behind the emulated VT-d).
 *
 * For each size of SIZES: create a 32 bpp dumb buffer, map it (MAP_DUMB +
 * mmap), fill it, add it as a framebuffer (ADDFB2, XRGB8888), show it with a
 * mode of its own size (SETCRTC: a scanout, a transfer to the host and a
 * flush), write a rectangle into it and flush that (DIRTYFB). Then a second
 * buffer of the last size, a page flip to it and one back (each waited for).
 * Last, destroy (RMFB, munmap, DESTROY_DUMB) every buffer but those of
 * KEEP_ALIVE and the two of the last size, which stay alive: the one on the
 * display and the one flipped away from.
 *
 * Prints what it did as `NAME COUNT` lines on stdout. With --hold it then
 * waits for a signal before it exits, so that a recording can be stopped
 * while the buffers left alive still are (closing the device frees them).
 * Exit status: 0 done, 1 an ioctl failed (the message says which).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <drm_fourcc.h>
#include <drm_mode.h>

struct dx_size {
	uint32_t w, h;
	int keep; /* left alive at the end */
};

static const struct dx_size SIZES[] = {
	{ 64, 64, 0 },	  { 128, 128, 0 }, { 256, 256, 1 },
	{ 640, 480, 0 },  { 800, 600, 0 }, { 1024, 768, 1 },
};
#define DX_NSIZES (sizeof(SIZES) / sizeof(SIZES[0]))

struct dx_buf {
	uint32_t w, h, handle, pitch, fb_id;
	uint64_t size;
	uint32_t *map;
};

/* what was done, printed at the end in this order */
struct dx_counts {
	unsigned long create_dumb, map_dumb, mmap, addfb2, setcrtc, dirtyfb, page_flip, flip_event,
		rmfb, munmap, destroy_dumb, alive, bytes_written;
};

struct dx_ctx {
	int fd;
	uint32_t crtc_id, connector_id;
	struct dx_counts n;
};

static int dx_ioctl(struct dx_ctx *ctx, unsigned long req, void *arg, const char *what)
{
	int ret;

	do
		ret = ioctl(ctx->fd, req, arg);
	while (ret < 0 && (errno == EINTR || errno == EAGAIN));
	if (ret < 0) {
		ret = -errno;
		fprintf(stderr, "drm-exercise: %s: %s\n", what, strerror(-ret));
	}
	return ret;
}

/* the first CRTC and the first connector, which must be connected */
static int dx_find_output(struct dx_ctx *ctx)
{
	struct drm_mode_card_res res = { 0 };
	struct drm_mode_get_connector conn = { 0 };
	uint32_t crtcs[8], connectors[8];
	int ret;

	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_GETRESOURCES, &res, "GETRESOURCES");
	if (ret)
		return ret;
	if (!res.count_crtcs || !res.count_connectors || res.count_crtcs > 8 ||
	    res.count_connectors > 8) {
		fprintf(stderr, "drm-exercise: %u CRTCs, %u connectors\n", res.count_crtcs,
			res.count_connectors);
		return -ENODEV;
	}
	res.crtc_id_ptr = (uintptr_t)crtcs;
	res.connector_id_ptr = (uintptr_t)connectors;
	res.count_fbs = res.count_encoders = 0;
	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_GETRESOURCES, &res, "GETRESOURCES");
	if (ret)
		return ret;
	ctx->crtc_id = crtcs[0];
	ctx->connector_id = connectors[0];
	conn.connector_id = ctx->connector_id;
	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_GETCONNECTOR, &conn, "GETCONNECTOR");
	if (ret)
		return ret;
	if (conn.connection != 1) {
		fprintf(stderr, "drm-exercise: connector %u is not connected (%u)\n",
			ctx->connector_id, conn.connection);
		return -ENODEV;
	}
	return 0;
}

/* a pixel of buffer @seed at (@x, @y): differs between buffers and passes */
static uint32_t dx_pixel(uint32_t seed, uint32_t x, uint32_t y)
{
	return (seed * 0x01234567u) ^ (x * 0x00010001u) ^ (y << 8);
}

static void dx_fill(struct dx_ctx *ctx, struct dx_buf *b, uint32_t seed, uint32_t x0, uint32_t y0,
		    uint32_t w, uint32_t h)
{
	for (uint32_t y = y0; y < y0 + h; y++)
		for (uint32_t x = x0; x < x0 + w; x++)
			b->map[y * (b->pitch / 4) + x] = dx_pixel(seed, x, y);
	ctx->n.bytes_written += (unsigned long)w * h * 4;
}

static int dx_buf_create(struct dx_ctx *ctx, struct dx_buf *b, uint32_t w, uint32_t h, uint32_t seed)
{
	struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
	struct drm_mode_destroy_dumb destroy = { 0 };
	struct drm_mode_map_dumb map = { 0 };
	struct drm_mode_fb_cmd2 fb = { 0 };
	void *p;
	int ret;

	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_CREATE_DUMB, &create, "CREATE_DUMB");
	if (ret)
		return ret;
	ctx->n.create_dumb++;
	*b = (struct dx_buf){ .w = w, .h = h, .handle = create.handle, .pitch = create.pitch,
			      .size = create.size };
	map.handle = b->handle;
	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_MAP_DUMB, &map, "MAP_DUMB");
	if (ret)
		goto err_destroy;
	ctx->n.map_dumb++;
	p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->fd, (off_t)map.offset);
	if (p == MAP_FAILED) {
		ret = -errno;
		fprintf(stderr, "drm-exercise: mmap %ux%u: %s\n", w, h, strerror(-ret));
		goto err_destroy;
	}
	ctx->n.mmap++;
	b->map = p;
	dx_fill(ctx, b, seed, 0, 0, w, h);
	fb.width = w;
	fb.height = h;
	fb.pixel_format = DRM_FORMAT_XRGB8888;
	fb.handles[0] = b->handle;
	fb.pitches[0] = b->pitch;
	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_ADDFB2, &fb, "ADDFB2");
	if (ret)
		goto err_munmap;
	ctx->n.addfb2++;
	b->fb_id = fb.fb_id;
	return 0;

err_munmap:
	munmap(b->map, b->size);
err_destroy:
	destroy.handle = b->handle;
	ioctl(ctx->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	return ret;
}

static int dx_buf_destroy(struct dx_ctx *ctx, struct dx_buf *b)
{
	struct drm_mode_destroy_dumb destroy = { .handle = b->handle };
	uint32_t fb_id = b->fb_id;
	int ret;

	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_RMFB, &fb_id, "RMFB");
	if (ret)
		return ret;
	ctx->n.rmfb++;
	if (munmap(b->map, b->size) < 0) {
		ret = -errno;
		fprintf(stderr, "drm-exercise: munmap: %s\n", strerror(-ret));
		return ret;
	}
	ctx->n.munmap++;
	ret = dx_ioctl(ctx, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy, "DESTROY_DUMB");
	if (ret)
		return ret;
	ctx->n.destroy_dumb++;
	return 0;
}

/* show @b on the CRTC with a mode of its own size (60 Hz, small blanking) */
static int dx_show(struct dx_ctx *ctx, struct dx_buf *b)
{
	struct drm_mode_crtc crtc = { 0 };
	struct drm_mode_modeinfo *m = &crtc.mode;
	uint32_t connector = ctx->connector_id;

	m->hdisplay = (uint16_t)b->w;
	m->hsync_start = (uint16_t)(b->w + 16);
	m->hsync_end = (uint16_t)(b->w + 32);
	m->htotal = (uint16_t)(b->w + 48);
	m->vdisplay = (uint16_t)b->h;
	m->vsync_start = (uint16_t)(b->h + 3);
	m->vsync_end = (uint16_t)(b->h + 6);
	m->vtotal = (uint16_t)(b->h + 10);
	m->vrefresh = 60;
	m->clock = (uint32_t)m->htotal * m->vtotal * 60 / 1000;
	m->type = DRM_MODE_TYPE_USERDEF;
	snprintf(m->name, sizeof(m->name), "%ux%u", b->w, b->h);
	crtc.crtc_id = ctx->crtc_id;
	crtc.fb_id = b->fb_id;
	crtc.set_connectors_ptr = (uintptr_t)&connector;
	crtc.count_connectors = 1;
	crtc.mode_valid = 1;
	if (dx_ioctl(ctx, DRM_IOCTL_MODE_SETCRTC, &crtc, "SETCRTC"))
		return -EIO;
	ctx->n.setcrtc++;
	return 0;
}

/* write the middle quarter of @b again and flush that rectangle */
static int dx_dirty(struct dx_ctx *ctx, struct dx_buf *b, uint32_t seed)
{
	struct drm_clip_rect clip = { .x1 = (uint16_t)(b->w / 4), .y1 = (uint16_t)(b->h / 4),
				      .x2 = (uint16_t)(b->w / 4 + b->w / 2),
				      .y2 = (uint16_t)(b->h / 4 + b->h / 2) };
	struct drm_mode_fb_dirty_cmd dirty = { .fb_id = b->fb_id, .num_clips = 1,
					       .clips_ptr = (uintptr_t)&clip };

	dx_fill(ctx, b, seed, clip.x1, clip.y1, b->w / 2, b->h / 2);
	if (dx_ioctl(ctx, DRM_IOCTL_MODE_DIRTYFB, &dirty, "DIRTYFB"))
		return -EIO;
	ctx->n.dirtyfb++;
	return 0;
}

/* flip to @b and wait for the flip's event */
static int dx_flip(struct dx_ctx *ctx, struct dx_buf *b)
{
	struct drm_mode_crtc_page_flip flip = { .crtc_id = ctx->crtc_id, .fb_id = b->fb_id,
						.flags = DRM_MODE_PAGE_FLIP_EVENT,
						.user_data = b->fb_id };
	struct pollfd pfd = { .fd = ctx->fd, .events = POLLIN };
	char buf[256];
	struct drm_event_vblank ev;
	ssize_t len;

	if (dx_ioctl(ctx, DRM_IOCTL_MODE_PAGE_FLIP, &flip, "PAGE_FLIP"))
		return -EIO;
	ctx->n.page_flip++;
	if (poll(&pfd, 1, 5000) != 1) {
		fprintf(stderr, "drm-exercise: no page flip event within 5 s\n");
		return -ETIMEDOUT;
	}
	len = read(ctx->fd, buf, sizeof(buf));
	if (len < (ssize_t)sizeof(ev)) {
		fprintf(stderr, "drm-exercise: page flip event: read %zd bytes\n", len);
		return -EIO;
	}
	memcpy(&ev, buf, sizeof(ev));
	if (ev.base.type != DRM_EVENT_FLIP_COMPLETE || ev.user_data != b->fb_id) {
		fprintf(stderr, "drm-exercise: event type %u data %llu, not a flip to fb %u\n",
			ev.base.type, (unsigned long long)ev.user_data, b->fb_id);
		return -EIO;
	}
	ctx->n.flip_event++;
	return 0;
}

static void dx_print(const struct dx_counts *n)
{
	printf("create_dumb %lu\nmap_dumb %lu\nmmap %lu\naddfb2 %lu\nsetcrtc %lu\ndirtyfb %lu\n"
	       "page_flip %lu\nflip_event %lu\nrmfb %lu\nmunmap %lu\ndestroy_dumb %lu\nalive %lu\n"
	       "bytes_written %lu\n",
	       n->create_dumb, n->map_dumb, n->mmap, n->addfb2, n->setcrtc, n->dirtyfb, n->page_flip,
	       n->flip_event, n->rmfb, n->munmap, n->destroy_dumb, n->alive, n->bytes_written);
	fflush(stdout);
}

static int dx_run(struct dx_ctx *ctx)
{
	struct dx_buf bufs[DX_NSIZES], flip;
	uint32_t i;
	int ret;

	ret = dx_find_output(ctx);
	if (ret)
		return ret;
	for (i = 0; i < DX_NSIZES; i++) {
		ret = dx_buf_create(ctx, &bufs[i], SIZES[i].w, SIZES[i].h, i + 1);
		if (ret)
			return ret;
		ret = dx_show(ctx, &bufs[i]);
		if (ret)
			return ret;
		ret = dx_dirty(ctx, &bufs[i], 100 + i);
		if (ret)
			return ret;
	}
	ret = dx_buf_create(ctx, &flip, SIZES[DX_NSIZES - 1].w, SIZES[DX_NSIZES - 1].h, 200);
	if (ret)
		return ret;
	ret = dx_flip(ctx, &flip);
	if (ret)
		return ret;
	ret = dx_flip(ctx, &bufs[DX_NSIZES - 1]);
	if (ret)
		return ret;
	ctx->n.alive = 1; /* the flip buffer */
	for (i = 0; i < DX_NSIZES; i++) {
		if (SIZES[i].keep) {
			ctx->n.alive++;
			continue;
		}
		ret = dx_buf_destroy(ctx, &bufs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dx_ctx ctx = { 0 };
	const char *dev = "/dev/dri/card0";
	int hold = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hold"))
			hold = 1;
		else if (argv[i][0] != '-')
			dev = argv[i];
		else {
			fprintf(stderr, "usage: drm-exercise [--hold] [DEVICE]\n");
			return 2;
		}
	}
	ctx.fd = open(dev, O_RDWR | O_CLOEXEC);
	if (ctx.fd < 0) {
		fprintf(stderr, "drm-exercise: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	ret = dx_run(&ctx);
	if (ret) {
		close(ctx.fd);
		return 1;
	}
	dx_print(&ctx.n);
	if (hold)
		for (;;)
			pause(); /* until a signal ends the process */
	close(ctx.fd);
	return 0;
}

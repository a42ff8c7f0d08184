/* SPDX-License-Identifier: MIT */
/* A driver that imports nothing: an image without an import directory. */
long DriverEntry(void *driver, void *registry);

long DriverEntry(void *driver, void *registry)
{
	return driver == registry;
}

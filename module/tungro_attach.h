/* SPDX-License-Identifier: GPL-2.0 */
/* tungro_attach.h - load and unload of the engine path (tungro_attach.c), for tungro_main.c. */
#ifndef TUNGRO_ATTACH_H
#define TUNGRO_ATTACH_H

int tungro_attach_init(void);
void tungro_attach_exit(void);

#endif /* TUNGRO_ATTACH_H */

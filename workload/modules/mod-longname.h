/* SPDX-License-Identifier: GPL-2.0 */
/* An export whose name (72 bytes) does not fit a struct modversion_info
 * entry (56 bytes with its NUL): only EXTENDED_MODVERSIONS, or no
 * modversions at all, can version or import it. */
#ifndef MOD_LONGNAME_H
#define MOD_LONGNAME_H
int modvlab_longname_export_whose_name_is_longer_than_a_versions_entry_holds(int x);
#endif

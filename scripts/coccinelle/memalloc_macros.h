// SPDX-License-Identifier: GPL-2.0
#define scoped_guard(_name, args...) YACFE_ITERATOR

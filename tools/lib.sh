# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in tools/ (sourced, not run).

say() { printf '[%s] %s\n' "$(basename "$0")" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

tree_dir() { echo "${TREE:-$top/build/linux}"; }

# The kernel version the series was refreshed against: the first line of
# patches/BASE that is not a comment.
read_base_version() { grep -v '^#' "$top/patches/BASE" | grep -m1 .; }

# Patch file names from patches/series, in order, without comments.
series_patches() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/patches/series"; }

tree_kernel_version() {
	local t
	t=$(tree_dir)
	awk '/^VERSION =/ {v=$3} /^PATCHLEVEL =/ {p=$3} /^SUBLEVEL =/ {s=$3}
	     END {print v "." p "." s}' "$t/Makefile"
}

# git in the kernel tree with a fixed committer, so that applying the same
# series always gives the same commits.
# The user's git configuration (am.threeWay, format.*, diff.*) must not change
# what is applied or exported.
tree_git() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
	GIT_COMMITTER_NAME="btrfs-fscrypt series" \
	GIT_COMMITTER_EMAIL="series@btrfs-fscrypt.invalid" \
	GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$(tree_dir)" "$@"
}

# The kernel image that kunit.py boots, relative to the build folder.
kernel_image() {
	case $1 in
	x86_64)	echo arch/x86/boot/bzImage ;;
	arm64 | arm64-64k)	echo arch/arm64/boot/Image.gz ;;
	s390)	echo arch/s390/boot/bzImage ;;
	esac
}

# The kernel build folder of an architecture; KASAN=1 kernels have their own.
kernel_build_dir() {
	if [ "${KASAN:-0}" = 1 ]; then
		echo "$top/build/kernel-$1-kasan"
	else
		echo "$top/build/kernel-$1"
	fi
}

#!/bin/sh
# Build the arm64 objects of the v6.12 kernel whose loops the model prices
# (doc/loop-prices.md). Usage: build-objects.sh TREE [nocontpte|later|later-nocontpte]
#
# TREE is an unpacked Debian linux-source-6.12 (made from
# /usr/src/linux-source-6.12.tar.xz when it does not exist yet); it is a
# build cache and belongs outside the repository. The configuration is arm64
# defconfig with what the model covers switched on: 4K pages (defconfig's),
# THP and mTHP (defconfig's TRANSPARENT_HUGEPAGE), userfaultfd (defconfig
# leaves it off, which compiles the uffd-wp branches out), and DWARF line
# tables, which the path finder reads. The compiler is clang-19 with
# lld-19 (LLVM=-19); the same tree and compiler give byte-identical objects.
# With nocontpte, the same without CONFIG_ARM64_CONTPTE (an EXPERT option:
# v6.8 and earlier had none, and a kernel may be built without it): the
# loops of the kernels the model runs without contpte are priced from it.
# With later, TREE is the later kernel below instead: the loops v6.17 and
# after rewrote (the batched change_pte_range) are priced from its objects;
# later-nocontpte is the later kernel without CONFIG_ARM64_CONTPTE.
set -eu
tree=$1
variant=${2:-}
case $variant in
"" | nocontpte | later | later-nocontpte) ;;
*) echo "usage: build-objects.sh TREE [nocontpte|later|later-nocontpte]" >&2; exit 2 ;;
esac
later=false nocontpte=false
[ "${variant#later}" = "$variant" ] || later=true
[ "${variant%nocontpte}" = "$variant" ] || nocontpte=true
# The later kernel: Debian's linux-source-7.2 from trixie-backports, the
# oldest release after v6.17 that Debian's archive still serves (its 6.17
# packages are gone). Fetched into a private apt state next to TREE, never
# installed: this bookworm machine's package sources stay as they are.
later_pkg=linux-source-7.2
later_version=7.2.12-1~bpo13+1
later_suite="http://deb.debian.org/debian trixie-backports main"
need=""
for p in clang-19 lld-19 llvm-19 linux-source-6.12 make bc bison flex libssl-dev libelf-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	echo "installing:$need" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
# later_source DIR: the later kernel's source tarball, downloaded into DIR
later_source() {
	apt_dir=$1
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/deb"
	echo "deb $later_suite" > "$apt_dir/sources.list"
	set -- -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" \
		-o APT::Sandbox::User=root
	apt-get -qq "$@" update
	(cd "$apt_dir/deb" && apt-get -qq "$@" download "$later_pkg=$later_version")
	dpkg-deb -x "$apt_dir/deb/${later_pkg}_$(echo "$later_version" | sed 's/:/%3a/')_all.deb" \
		"$apt_dir/deb"
	tarball=$apt_dir/deb/usr/src/$later_pkg.tar.xz
}
if [ ! -f "$tree/Makefile" ]; then
	mkdir -p "$tree"
	tarball=/usr/src/linux-source-6.12.tar.xz
	! $later || later_source "$tree.apt"
	tar -C "$tree" --strip-components=1 -xf "$tarball"
	! $later || rm -rf "$tree.apt/deb/usr"
fi
cd "$tree"
export KBUILD_BUILD_TIMESTAMP=2024-11-17 KBUILD_BUILD_USER=ptsim KBUILD_BUILD_HOST=ptsim
mk() { make -s ARCH=arm64 LLVM=-19 -j"$(nproc)" "$@"; }
if [ ! -f .config ]; then
	mk defconfig
	scripts/config --enable USERFAULTFD --enable PTE_MARKER_UFFD_WP \
		--enable TRANSPARENT_HUGEPAGE --enable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_NONE --disable DEBUG_INFO_REDUCED \
		--disable DEBUG_INFO_BTF --disable DEBUG_INFO_COMPRESSED_ZLIB
	if $nocontpte; then
		scripts/config --enable EXPERT --disable ARM64_CONTPTE
	fi
	mk olddefconfig
fi
mk prepare
# contpte.c is built only with CONFIG_ARM64_CONTPTE
contpte=arch/arm64/mm/contpte.o
! $nocontpte || contpte=
if $later; then
	mk mm/mprotect.o mm/memory.o $contpte arch/arm64/mm/mmu.o
	exit 0
fi
mk mm/mprotect.o mm/memory.o mm/mremap.o mm/madvise.o mm/mlock.o mm/rmap.o \
	mm/huge_memory.o mm/userfaultfd.o mm/filemap.o mm/gup.o mm/vma.o mm/mmap.o \
	mm/mmu_gather.o mm/swap.o mm/swapfile.o mm/page_io.o lib/xarray.o \
	$contpte arch/arm64/mm/mmu.o arch/arm64/mm/pageattr.o

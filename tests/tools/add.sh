# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/tools/run.sh (its helpers and $T, $NVABI, $root).
#
# Adding a release is one command, and every way of reading the release
# gives the same files: in copies of abi/ without the release, 'nvabi add'
# from NVIDIA's tarball, from a git repository made here from it (one
# commit, one tag) and from the unpacked tree must each give back
# abi/releases/V.abi, abi/layouts.txt, abi/ranges.txt and abi/generated/*
# byte for byte as committed. The tarballs are those tests/nvidia/build.sh
# uses: $NVM_NVIDIA_SRC, default ../shared/nvidia beside the repository.
# Without them the test says so and is skipped.

add_tests() {
	_src=${NVM_NVIDIA_SRC:-$(cd "$root/.." && pwd)/shared/nvidia}
	_rels=${NVM_ADD_RELEASES:-595.45.04 580.142}
	if ! command -v git >/dev/null 2>&1 || ! command -v tar >/dev/null 2>&1; then
		echo "# add: git or tar not installed: skipping the add tests"
		return 0
	fi
	for _v in $_rels; do
		_tar="$_src/open-gpu-kernel-modules-$_v.tar.xz"
		if [ ! -f "$_tar" ]; then
			echo "# add: no $_tar (set NVM_NVIDIA_SRC): skipping 'nvabi add' of $_v"
			continue
		fi
		add_one "$_v" "$_tar"
	done
}

# A copy of the committed abi/ without release $1, its ranges and tables
# redone, in $2.
add_without() {
	rm -rf "$2" && cp -r "$root/abi" "$2" && rm "$2/releases/$1.abi" &&
		"$NVABI" ranges --abi "$2" >/dev/null && "$NVABI" gen --abi "$2" >/dev/null
}

# add_same DESC DIR V: DIR's files of release V are the committed ones.
add_same() {
	_bad=""
	for _f in "releases/$3.abi" layouts.txt ranges.txt generated/nvabi_tables.c \
		generated/nvabi_tables.h; do
		cmp -s "$2/$_f" "$root/abi/$_f" || _bad="$_bad $_f"
	done
	if [ -z "$_bad" ]; then ok "$1"; else nok "$1: differ:$_bad" "$T/add.out"; fi
}

add_one() {
	_v=$1
	_w="$T/add-$_v"
	mkdir -p "$_w/tree" "$_w/git"
	add_without "$_v" "$_w/base" || { nok "add: abi/ without $_v" ; return; }
	cp -r "$_w/base" "$_w/abi"
	_t0=$(date +%s)
	if "$NVABI" add --abi "$_w/abi" --tar "$2" >"$T/add.out" 2>&1; then
		add_same "add --tar $_v: the committed files, byte for byte" "$_w/abi" "$_v"
	else
		nok "add --tar $_v" "$T/add.out"
	fi
	has "... says what changed in branch ${_v%%.*}" "$T/add.out" \
		"the newest earlier release of branch ${_v%%.*}"
	tar -xf "$2" -C "$_w/tree" --strip-components=1
	rm -rf "$_w/abi" && cp -r "$_w/base" "$_w/abi"
	if "$NVABI" add --abi "$_w/abi" "$_w/tree" >"$T/add.out" 2>&1; then
		add_same "add TREE $_v: the committed files, byte for byte" "$_w/abi" "$_v"
	else
		nok "add TREE $_v" "$T/add.out"
	fi
	# a repository of the release: one commit, its tag (no compression: fast)
	(cd "$_w/git" && git init -q && git -c core.compression=0 -c core.loosecompression=0 \
		--work-tree="$_w/tree" add -A && git -c user.email=t@example.invalid \
		-c user.name=t commit -qm "$_v" && git tag "$_v") >"$T/add.out" 2>&1
	rm -rf "$_w/abi" && cp -r "$_w/base" "$_w/abi"
	if "$NVABI" add --abi "$_w/abi" --git "$_w/git" "$_v" >>"$T/add.out" 2>&1; then
		add_same "add --git DIR $_v: the committed files, byte for byte" "$_w/abi" "$_v"
	else
		nok "add --git DIR $_v" "$T/add.out"
	fi
	echo "# add: $_v three ways in $(($(date +%s) - _t0)) s"
	rm -rf "$_w"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Manage the kernel tree the series are applied to.
#
#   tree.sh prepare   extract the distro source (once), apply the series
#   tree.sh export    regenerate the series' patch files from the tree
#   tree.sh status    show what is applied
#
# The tree is a git repository outside the checkout:
#   tag "pristine"          the distro source as packaged
#   branch per series       marks the last commit of that series
#   branch "nofs-work"      checked out; the tip of the last series
# Work on it with "git rebase -i --update-refs pristine" (set by default)
# so that the series branches follow the commits they mark.
#
# Environment (set by the Makefile): TREE, SERIES, TOP, SRC_TARBALL, SRC_PKG.
set -eu

: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TREE:?TREE is not set}"
: "${SERIES:=mm-scope xfs-conversion jbd2-conversion btrfs-conversion}"
: "${SRC_PKG:=linux-source-6.12}"
: "${SRC_TARBALL:=/usr/src/$SRC_PKG.tar.xz}"

STATE_NAME=nofs-applied
WORK_BRANCH=nofs-work

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

g() { git -C "$TREE" "$@"; }

state_file() { echo "$(g rev-parse --absolute-git-dir)/$STATE_NAME"; }

# The patch files of one series, in the order its "series" file gives.
series_patches() {
	local s=$1 f
	[ -f "$TOP/$s/series" ] || die "$s/series is missing"
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		[ -f "$TOP/$s/$f" ] || die "$s/series names $f, which does not exist"
		echo "$TOP/$s/$f"
	done < "$TOP/$s/series"
}

extract() {
	local ver tmp
	[ -f "$SRC_TARBALL" ] ||
		die "$SRC_TARBALL not found: install it with 'make deps' (as root) or 'apt-get install $SRC_PKG'"
	ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || echo unknown)
	say "extracting $SRC_TARBALL ($SRC_PKG $ver) into $TREE"
	tmp="$TREE.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$SRC_TARBALL"
	[ -f "$tmp/$SRC_PKG/Makefile" ] || die "unexpected layout in $SRC_TARBALL"
	mv "$tmp/$SRC_PKG" "$TREE"
	rmdir "$tmp"
	say "recording the pristine tree as the first commit (takes a minute)"
	g init -q -b "$WORK_BRANCH"
	g config user.name "${GIT_AUTHOR_NAME:-nofs-scope}"
	g config user.email "${GIT_AUTHOR_EMAIL:-nofs-scope@localhost}"
	g config rebase.updateRefs true
	g config core.abbrev 12
	# Debian's tree ships a .gitignore; -f makes sure nothing is skipped.
	g add -f -A .
	g commit -q -m "$SRC_PKG $ver (pristine)" \
		-m "Extracted from $SRC_TARBALL, Debian package $SRC_PKG version $ver."
	g tag pristine
	: > "$(state_file)"
}

# Set the branch description from the series' cover letter in the
# repository, for "git format-patch --cover-from-description" on export.
set_description() {
	local s=$1 cover="$TOP/$1/0000-cover-letter.patch" desc
	[ -f "$cover" ] || return 0
	desc=$(awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
		insubj && /^ / { sub(/^ /, ""); subj = subj " " $0; next }
		{ insubj = 0 }
		subj != "" && !body && /^$/ { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body && /^---$/ { exit }
		body { text = text $0 "\n" }
		END { printf "%s\n\n%s", subj, text }' "$cover")
	g config "branch.$s.description" "$desc"
}

cmd_prepare() {
	local want=() s p sha i n k base line
	local -a have_sha have_commit have_series

	command -v git >/dev/null || die "git is not installed: run 'make deps'"
	[ -d "$TREE/.git" ] || extract

	[ -z "$(g status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit or stash them first (nothing was changed)"
	[ -d "$(g rev-parse --absolute-git-dir)/rebase-apply" ] &&
		die "$TREE has a 'git am' in progress; finish it or run 'git -C $TREE am --abort'"

	for s in $SERIES; do
		for p in $(series_patches "$s"); do
			want+=("$s $(sha256sum < "$p" | cut -c1-64) $p")
		done
	done

	have_sha=() have_commit=() have_series=()
	while read -r s sha base; do
		have_series+=("$s") have_sha+=("$sha") have_commit+=("$base")
	done < "$(state_file)"

	# Refuse to throw away commits that were never exported.
	base=$(g rev-parse pristine)
	[ ${#have_commit[@]} -gt 0 ] && base=${have_commit[-1]}
	if [ "$(g rev-parse HEAD)" != "$base" ] && [ "${FORCE:-0}" != 1 ]; then
		die "$TREE has commits that are not in the patch files (HEAD is not what was applied).
Run 'make export' to save them, or 'make prepare FORCE=1' to discard them."
	fi

	# Keep the longest prefix that is already applied.
	n=${#want[@]}
	k=0
	while [ $k -lt "$n" ] && [ $k -lt ${#have_sha[@]} ]; do
		read -r s sha p <<<"${want[$k]}"
		{ [ "$s" = "${have_series[$k]}" ] && [ "$sha" = "${have_sha[$k]}" ]; } || break
		k=$((k + 1))
	done
	base=$(g rev-parse pristine)
	[ $k -gt 0 ] && base=${have_commit[$((k - 1))]}
	if [ "$(g rev-parse HEAD)" != "$base" ]; then
		say "rewinding the tree to patch $k of $n"
		g checkout -q "$WORK_BRANCH" 2>/dev/null || g checkout -q -b "$WORK_BRANCH"
		g reset -q --hard "$base"
	fi
	head -n "$k" "$(state_file)" > "$(state_file).new"
	mv "$(state_file).new" "$(state_file)"

	i=$k
	while [ $i -lt "$n" ]; do
		read -r s sha p <<<"${want[$i]}"
		say "applying $((i + 1))/$n: ${p#"$TOP"/}"
		if ! g am -q --keep-cr "$p" > "$TREE.am.log" 2>&1; then
			grep -v -E '^(hint:|When you have resolved|If you prefer to skip|To restore the original)' \
				"$TREE.am.log" >&2
			printf '\nThe failing hunks, as git apply sees them:\n' >&2
			g apply --check --verbose "$p" 2>&1 | grep -v '^Checking' >&2 || true
			g am --abort 2>/dev/null || true
			die "${p#"$TOP"/} does not apply to $TREE; the tree stays at the last patch that applied ($i of $n)"
		fi
		echo "$s $sha $(g rev-parse HEAD)" >> "$(state_file)"
		i=$((i + 1))
	done
	rm -f "$TREE.am.log"

	# Point each series' branch at its last commit.
	base=$(g rev-parse pristine)
	while read -r s sha line; do
		g branch -f "$s" "$line" >/dev/null
	done < "$(state_file)"
	for s in $SERIES; do
		g rev-parse -q --verify "refs/heads/$s" >/dev/null || g branch -f "$s" "$base"
		base=$(g rev-parse "$s")
	done
	say "tree ready: $n patches applied in $TREE ($(g describe --tags --always 2>/dev/null))"
}

cmd_export() {
	local s base out n who
	[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make prepare' first"
	[ -z "$(g status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit them before exporting"
	[ "$(g rev-parse HEAD)" = "$(g rev-parse "${SERIES##* }")" ] ||
		die "HEAD is not the tip of the last series (branch ${SERIES##* }); commit on $WORK_BRANCH with the series branches updated (git rebase --update-refs)"

	base=pristine
	: > "$(state_file).new"
	for s in $SERIES; do
		out="$TOP/$s"
		n=$(g rev-list --count "$base..$s")
		say "exporting $s: $n patches"
		mkdir -p "$out"
		# The cover text is the one in the repository: edits to the
		# file survive the export, which renews its count and lists
		set_description "$s"
		find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
		if [ "$n" -gt 0 ]; then
			g format-patch -q --zero-commit --cover-letter \
				--cover-from-description=auto --no-signature \
				-o "$out" "$base..$s"
		fi
		for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
			case "${p##*/}" in
			0000-cover-letter.patch|'[0-9]'*) ;;
			*) echo "${p##*/}" ;;
			esac
		done > "$out/series"
		# A stable date and sender (the series tip's author, not this
		# machine's git identity), so that re-exporting an unchanged
		# series is a no-op
		who=$(g log -1 --format='%an <%ae>' "$s" | sed 's/[|&\]/\\&/g')
		[ ! -f "$out/0000-cover-letter.patch" ] ||
			sed -i -e "0,/^Date: /s/^Date: .*/Date: $(g log -1 --format=%aD "$s")/" \
				-e "0,/^From: /s|^From: .*|From: $who|" \
				"$out/0000-cover-letter.patch"
		if grep -q 'SUBJECT HERE' "$out/0000-cover-letter.patch" 2>/dev/null; then
			printf 'warning: %s has no cover text; write it there (subject and body) and export again\n' \
				"$s/0000-cover-letter.patch" >&2
		fi
		# The tree now holds exactly what the files say.
		g rev-list --reverse "$base..$s" | while read -r c; do
			p=$(sed -n "$(($(g rev-list --count "$base..$c")))p" "$out/series")
			echo "$s $(sha256sum < "$out/$p" | cut -c1-64) $c"
		done >> "$(state_file).new"
		base=$s
	done
	mv "$(state_file).new" "$(state_file)"
	say "exported; review with 'git -C $TOP status' and commit the patch files"
}

cmd_status() {
	[ -d "$TREE/.git" ] || { echo "no tree at $TREE"; return 0; }
	g log --oneline --decorate "pristine^!" "pristine..HEAD"
}

case "${1:-}" in
prepare) cmd_prepare ;;
export) cmd_export ;;
status) cmd_status ;;
*) die "usage: $0 prepare|export|status" ;;
esac

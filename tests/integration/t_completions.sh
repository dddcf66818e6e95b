#!/bin/sh
# The shell completions (contrib/tickctl.bash, _tickctl for zsh,
# tickctl.fish) know every command tickctl --help lists and every option
# each command's --help shows, and the global ones; bash completes logs.
. tests/integration/lib.sh
cmds=$("$TICKCTL" --help | sed -n '/^commands:/,$p' | awk '/^  [a-z]/ { print $1 }')
checks=$((checks + 1))
[ "$(echo "$cmds" | wc -l)" -ge 15 ] || fail "tickctl --help lists: $cmds"
opts=$("$TICKCTL" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
for c in $cmds; do
	opts="$opts
$("$TICKCTL" "$c" --help | grep -o -- '[[ ]-[a-z-]*[a-z]' | cut -c2- | sort -u)"
done
for f in contrib/tickctl.bash contrib/_tickctl contrib/tickctl.fish; do
	for c in $cmds; do
		checks=$((checks + 1))
		grep -q -- "\\(^\\|[^a-z-]\\)$c\\([^a-z-]\\|\$\\)" "$f" ||
		    check_fail "$f: no command $c"
	done
	for o in $(echo "$opts" | sort -u); do
		# fish names options without their dashes: -l follow, -s f.
		case $f in
		*.fish)	case $o in
			--*) pat="-l ${o#--}\\b" ;;
			*) pat="-s ${o#-}\\b" ;;
			esac ;;
		*)	pat="\\(^\\|[^a-z-]\\)$o\\b" ;;
		esac
		checks=$((checks + 1))
		grep -q -- "$pat" "$f" || check_fail "$f: no option $o"
	done
done
bash -n contrib/tickctl.bash || fail "tickctl.bash: syntax"
comp() {
	bash -c '. contrib/tickctl.bash
	    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tickctl
	    printf "%s\n" "${COMPREPLY[@]}"' comp "$@" | sort | tr '\n' ' '
}
expect_eq "bash: lo" "$(comp tickctl lo)" "logs "
expect_eq "bash: logs --" "$(comp tickctl logs --)" "--follow --help --limit --source "
expect_eq "bash: logs --source" "$(comp tickctl logs --source "")" "auto journal store "
if command -v zsh >/dev/null; then
	zsh -n contrib/_tickctl || fail "_tickctl: syntax"
fi
if command -v fish >/dev/null; then
	fish -n contrib/tickctl.fish || fail "tickctl.fish: syntax"
fi
done_ok

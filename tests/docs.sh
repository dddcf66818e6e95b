#!/bin/sh
# Every configuration key the code accepts is documented: daemon keys in
# tickd.conf(5) and conf/tickd.conf, job keys in tickd.job(5), each as an
# ".It Ic KEY" entry.  The key list comes from the code ($B/tools/conf_keys).
: "${B:=build}"
keys=$("$B/tools/conf_keys") || { echo "cannot run $B/tools/conf_keys"; exit 1; }
missing=0 n=0
while read -r section key; do
	n=$((n + 1))
	case $section in
	daemon)	pages="man/tickd.conf.5" ;;
	*)	pages="man/tickd.job.5" ;;
	esac
	for page in $pages; do
		if ! grep -q "^\.It Ic $key\( \|$\)" "$page"; then
			echo "undocumented: $section key \"$key\" has no .It Ic entry in $page"
			missing=$((missing + 1))
		fi
	done
	if [ "$section" = daemon ] &&
	    ! grep -Eq "^#?$key = " conf/tickd.conf; then
		echo "undocumented: daemon key \"$key\" is not in conf/tickd.conf"
		missing=$((missing + 1))
	fi
done <<EOF2
$keys
EOF2
[ "$missing" -eq 0 ] || exit 1
echo "docs: all $n configuration keys documented"

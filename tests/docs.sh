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

# The MESSAGE_IDs of src/log.c and those under JOURNAL FIELDS in tickd(8)
# are the same set: a new event is documented, a documented one exists.
code_ids=$(sed -n 's/^[[:space:]]*\[\(LOG_EV_[A-Z_]*\)\] = "\([0-9a-f]\{32\}\)",$/\2 \1/p' \
    src/log.c | sort)
man_ids=$(sed -n '/^\.Sh JOURNAL FIELDS$/,/^\.Sh /s/^\.It Li \([0-9a-f]\{32\}\)$/\1/p' \
    man/tickd.8 | sort)
if [ -z "$code_ids" ] || [ -z "$man_ids" ]; then
	echo "docs: no MESSAGE_ID found in src/log.c or under JOURNAL FIELDS in man/tickd.8"
	missing=$((missing + 1))
fi
for id in $(echo "$code_ids" | cut -d' ' -f1 | uniq -d) \
    $(echo "$man_ids" | uniq -d); do
	echo "docs: MESSAGE_ID $id is given twice"
	missing=$((missing + 1))
done
while read -r id ev; do
	[ -n "$id" ] || continue
	if ! echo "$man_ids" | grep -qx "$id"; then
		echo "undocumented: MESSAGE_ID $id ($ev, src/log.c) is not under JOURNAL FIELDS in man/tickd.8"
		missing=$((missing + 1))
	fi
done <<EOF2
$code_ids
EOF2
for id in $man_ids; do
	if ! echo "$code_ids" | grep -q "^$id "; then
		echo "stale: MESSAGE_ID $id in man/tickd.8 JOURNAL FIELDS is not in src/log.c"
		missing=$((missing + 1))
	fi
done
[ "$missing" -eq 0 ] || exit 1
echo "docs: all $n configuration keys documented"
echo "docs: the $(echo "$man_ids" | wc -l) MESSAGE_IDs of src/log.c and tickd(8) agree"

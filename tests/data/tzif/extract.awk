# Extract the named zones (and the rules they use) from a tzdata.zi file.
# usage: awk -v zones="Europe/Berlin America/New_York" -f extract.awk tzdata.zi
BEGIN {
	n = split(zones, zl, " ")
	for (i = 1; i <= n; i++)
		want[zl[i]] = 1
}
/^#/ { if (NR == 1) print; next }
/^R / { rules[$2] = rules[$2] $0 "\n"; next }
/^Z / {
	inzone = ($2 in want)
	if (inzone) { zone[$2] = $0 "\n"; cur = $2; used(cur, $3) }
	next
}
/^L / { inzone = 0; next }
{
	if (inzone) { zone[cur] = zone[cur] $0 "\n"; used(cur, $2) }
}
function used(z, r) { if (r ~ /^[A-Za-z]/ && r != "-") need[r] = 1 }
END {
	for (r in need) if (r in rules) printf "%s", rules[r]
	for (i = 1; i <= n; i++) printf "%s", zone[zl[i]]
}

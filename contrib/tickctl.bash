# bash completion for tickctl(1): commands, options, job names and run ids.
# Install as /usr/share/bash-completion/completions/tickctl.

_tickctl_jobs() {
	tickctl "${_tickctl_global[@]}" list 2>/dev/null |
	    awk 'NR > 1 && $1 != "" { print $1 }'
}

# _tickctl_runs [JOB]: recent run ids, of JOB once its name is typed.
_tickctl_runs() {
	tickctl "${_tickctl_global[@]}" history ${1:+"$1"} --limit 50 \
	    2>/dev/null | awk 'NR > 1 && $1 ~ /@/ { print $1 }'
}

_tickctl() {
	local cur prev cmd i pre
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	# bash splits words at COMP_WORDBREAKS, which holds "@" and ":": a
	# run id (backup@2026-12-02T03:00:00Z) is several words to it.  Take
	# the whole word from the line, and complete only the part after its
	# last break, which is all bash replaces.
	if [ -n "${COMP_LINE+set}" ]; then
		cur=${COMP_LINE:0:COMP_POINT}
		cur=${cur##*[[:space:]]}
	fi
	pre=${cur%"${cur##*[@:=]}"}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	_tickctl_global=()
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-c|--config)
			_tickctl_global+=(-c "${COMP_WORDS[i+1]}")
			i=$((i + 1)) ;;
		--json) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	-c|--config)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--tz)
		COMPREPLY=($(cd /usr/share/zoneinfo 2>/dev/null &&
		    compgen -f -- "$cur")); return ;;
	--dst-gap)
		COMPREPLY=($(compgen -W "shift skip" -- "$cur")); return ;;
	--dst-fold)
		COMPREPLY=($(compgen -W "first second both" -- "$cur"));
		return ;;
	--dialect)
		COMPREPLY=($(compgen -W "cron quartz" -- "$cur")); return ;;
	--id)
		COMPREPLY=($(compgen -W "$(_tickctl_jobs)" -- "$cur"))
		return ;;
	--source)
		COMPREPLY=($(compgen -W "auto journal store" -- "$cur"));
		return ;;
	--status)
		COMPREPLY=($(compgen -W "queued running retrying succeeded
		    failed dead skipped interrupted abandoned terminated
		    unknown" -- "$cur")); return ;;
	esac
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "list status next history show logs
		    run replay pause resume reload stats metrics env check
		    import-crontab migrate-state -c --config --json --help
		    --version" \
		    -- "$cur"))
		return
	fi
	case $cmd in
	status|next|history|stats|env|run|pause|resume)
		case $cur in
		-*)	COMPREPLY=($(compgen -W "--force --wait --catch-up
			    --since --status --limit -n --from --cron --tz
			    --dst-gap --dst-fold --dialect --id --help" \
			    -- "$cur")) ;;
		*)	COMPREPLY=($(compgen -W "$(_tickctl_jobs)" -- "$cur")) ;;
		esac ;;
	show|replay)
		case $cur in
		-*)	COMPREPLY=($(compgen -W "$([ "$cmd" = replay ] &&
			    echo --wait --shard) --help" -- "$cur")) ;;
		*@*)	COMPREPLY=($(compgen -W "$(_tickctl_runs \
			    "${cur%%@*}")" -- "$cur"))
			[ -n "${COMP_LINE+set}" ] &&
			    COMPREPLY=("${COMPREPLY[@]#"$pre"}") ;;
		*)	COMPREPLY=($(compgen -W "$(_tickctl_runs)" -- "$cur"))
			[ -n "${COMP_LINE+set}" ] &&
			    COMPREPLY=("${COMPREPLY[@]#"$pre"}") ;;
		esac ;;
	logs)
		case $cur in
		-*)	COMPREPLY=($(compgen -W "-f --follow --limit --source
			    --help" -- "$cur")) ;;
		*@*)	COMPREPLY=($(compgen -W "$(_tickctl_runs \
			    "${cur%%@*}")" -- "$cur"))
			[ -n "${COMP_LINE+set}" ] &&
			    COMPREPLY=("${COMPREPLY[@]#"$pre"}") ;;
		*)	COMPREPLY=($(compgen -W "$(_tickctl_jobs)" -- "$cur")) ;;
		esac ;;
	check)
		case $cur in
		-*)	COMPREPLY=($(compgen -W "--strict --help" -- "$cur")) ;;
		*)	COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac ;;
	migrate-state)
		COMPREPLY=($(compgen -W "--to --node --merge --help" -- "$cur")) ;;
	import-crontab)
		case $cur in
		-*)	COMPREPLY=($(compgen -W "--system --prefix --user
			    --help" -- "$cur")) ;;
		*)	COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac ;;
	esac
}
complete -F _tickctl tickctl

# fish completion for tickctl(1): commands, options, job names and run ids.
# Install as /usr/share/fish/vendor_completions.d/tickctl.fish.

function __tickctl_global
	set -l t (commandline -opc)
	set -l i (contains -i -- -c $t; or contains -i -- --config $t)
	and echo -- -c $t[(math $i + 1)]
end

function __tickctl_jobs
	tickctl (__tickctl_global) list 2>/dev/null | awk 'NR > 1 && $1 != "" { print $1 }'
end

function __tickctl_runs
	tickctl (__tickctl_global) history --limit 50 2>/dev/null | awk 'NR > 1 && $1 ~ /@/ { print $1 }'
end

set -l cmds list status next history show logs run replay pause resume reload stats metrics env check import-crontab migrate-state
complete -c tickctl -f
complete -c tickctl -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
complete -c tickctl -s c -l config -r -F -d 'tickd configuration'
complete -c tickctl -l json -d 'one JSON object per line'
complete -c tickctl -l help -d 'print usage'
complete -c tickctl -n "not __fish_seen_subcommand_from $cmds" -l version -d 'print the version'

complete -c tickctl -n '__fish_seen_subcommand_from status next history stats env run pause resume logs' -a '(__tickctl_jobs)'
complete -c tickctl -n '__fish_seen_subcommand_from show replay logs' -a '(__tickctl_runs)'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l cron -x -d 'cron expression'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l tz -x -d 'time zone'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l from -x -d 'RFC 3339 instant'
complete -c tickctl -n '__fish_seen_subcommand_from next' -s n -x -d 'count'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l dst-gap -x -a 'shift skip'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l dst-fold -x -a 'first second both'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l dialect -x -a 'cron quartz'
complete -c tickctl -n '__fish_seen_subcommand_from next' -l id -x -a '(__tickctl_jobs)' -d 'job id for H'
complete -c tickctl -n '__fish_seen_subcommand_from history stats metrics' -l since -x -d 'since'
complete -c tickctl -n '__fish_seen_subcommand_from history' -l status -x -a 'queued running retrying succeeded failed dead skipped interrupted abandoned terminated unknown'
complete -c tickctl -n '__fish_seen_subcommand_from history logs' -l limit -x -d 'count'
complete -c tickctl -n '__fish_seen_subcommand_from logs' -s f -l follow -d 'follow new runs'
complete -c tickctl -n '__fish_seen_subcommand_from logs' -l source -x -a 'auto journal store'
complete -c tickctl -n '__fish_seen_subcommand_from run' -l force -d 'even if running'
complete -c tickctl -n '__fish_seen_subcommand_from run replay' -l wait -d 'until it ends'
complete -c tickctl -n '__fish_seen_subcommand_from replay' -l shard -x -d 'shard index'
complete -c tickctl -n '__fish_seen_subcommand_from resume' -l catch-up -d 'run the instants missed'
complete -c tickctl -n '__fish_seen_subcommand_from check' -l strict -d 'warnings are problems'
complete -c tickctl -n '__fish_seen_subcommand_from check import-crontab' -F
complete -c tickctl -n '__fish_seen_subcommand_from import-crontab' -l system -d 'system crontab format'
complete -c tickctl -n '__fish_seen_subcommand_from import-crontab' -l prefix -x -d 'job id prefix'
complete -c tickctl -n '__fish_seen_subcommand_from import-crontab' -l user -x -a '(__fish_complete_users)'
complete -c tickctl -n '__fish_seen_subcommand_from migrate-state' -l merge -d 'into a database with a history'
complete -c tickctl -n '__fish_seen_subcommand_from migrate-state' -l node -x -d 'node name'
complete -c tickctl -n '__fish_seen_subcommand_from migrate-state' -l to -r -F -d 'target state'

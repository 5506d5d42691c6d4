# bash completion for rocjit.  Installed to bash-completion's completions folder.
#
# Nothing is listed here by hand: the commands come from `rocjit help --commands`, the
# global options from `rocjit --completion-helper`, a command's options from
# `rocjit COMMAND --completion-helper` ("--name=" for one that takes a value), so the
# completion follows the installed tool's own tables.

_rocjit()
{
	local cur prev cmd i w opts words
	local -a globals
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local tool=${COMP_WORDS[0]}

	# The command: the first word after the global options (and their values).
	cmd=
	i=1
	while [ "$i" -lt "$COMP_CWORD" ]; do
		w=${COMP_WORDS[i]}
		case $w in
		--cache|--remote) i=$((i + 2)) ;;
		-*) i=$((i + 1)) ;;
		*) cmd=$w; break ;;
		esac
	done

	# After "--": compiler options, nothing to offer but files.
	for ((w = i + 1; w < COMP_CWORD; w++)); do
		if [ "${COMP_WORDS[w]}" = "--" ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi
	done

	if [ -z "$cmd" ]; then
		opts=$("$tool" --completion-helper 2>/dev/null)
	else
		opts=$("$tool" "$cmd" --completion-helper 2>/dev/null)
	fi
	# The value of an option that takes one: a file or folder.
	case " $(printf '%s ' $opts) " in
	*" $prev= "*)
		COMPREPLY=($(compgen -f -- "$cur"))
		type compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(printf '%s\n' $opts | sed 's/=$//')" -- "$cur"))
		return 0
	fi
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$("$tool" help --commands 2>/dev/null | cut -d: -f1)" \
			-- "$cur"))
		return 0
	fi
	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "$("$tool" help --commands 2>/dev/null | cut -d: -f1)" \
			-- "$cur"))
		return 0
	fi
	# A command's arguments: kernel files, folders, manifests, bundles.
	COMPREPLY=($(compgen -f -- "$cur"))
	type compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
	return 0
}
complete -F _rocjit rocjit

# zsh -f zsh-capture.zsh FPATH_DIR LINE: prints, one a line, the candidates zsh's completion system
# offers at the end of LINE, typed into a new interactive zsh (zpty) that ran compinit, then TAB.
# After zsh-capture-completion (github.com/Valodim/zsh-capture-completion, MIT): compadd is
# wrapped to print what it adds; a NUL line marks the start and the end of the completion.
zmodload zsh/zpty
setup=$HOME/.zsh-capture-setup.zsh
cat > $setup <<SETUP
PROMPT=
fpath=($1 \$fpath)
autoload -U compinit && compinit -u -d \$HOME/.zcompdump
bindkey '^M' undefined
bindkey '^J' undefined
bindkey '^I' complete-word
null-line () { echo -E - \$'\0' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-separator ''
compadd () {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return \$?; fi
  typeset -a __hits
  builtin compadd -A __hits "\$@"
  local ret=\$?
  (( \$#__hits )) || return \$ret
  local h; for h in \$__hits; do echo -E - "CAND:\$h"; done
  builtin compadd "\$@"
}
echo ok
SETUP
zpty z zsh -f -i
zpty -w z "source $setup"
repeat 8; do
  zpty -r z line
  [[ $line == ok* ]] && break
done
zpty -w z "$2"$'\t'
integer tog=0
while zpty -r z; do :; done | while IFS= read -r line; do
  if [[ $line == *$'\0\r' ]]; then
    (( tog++ )) && exit 0 || continue
  fi
  (( tog )) && [[ $line == CAND:* ]] && echo -E - ${${line#CAND:}%$'\r'}
done
exit 2

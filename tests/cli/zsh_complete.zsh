#!/usr/bin/env zsh
# tests/cli/zsh_complete.zsh FOLDER LINE...: what zsh's completion system
# offers when TAB is pressed at the end of each LINE: a line per LINE,
# "LINE => the matches, sorted", with FOLDER first in $fpath (where
# kmrun's _kmrun is) and compinit run.
# A real interactive zsh in a pseudo-terminal (zsh/zpty), its compadd
# wrapped to write down every match it is given.  Keys are sent only when
# the line editor has the terminal (it drops what came before): a
# prompt's start of bracketed paste says so; a LINE is done when the
# shell prints a mark (its echo of the command shows $((N)), not the
# mark).  Never a wait for a time.  Exit 3 without zsh/zpty, 4 when the
# shell did not answer.
zmodload zsh/zpty || exit 3
local dir=$1 out=${TMPDIR:-/tmp}/zsh_complete.$$
shift

# until_seen TEXT: reads the shell's output up to TEXT.
until_seen() {
  local chunk
  zpty -r z chunk "*${(b)1}"
}

zpty z zsh -f -i
until_seen $'\e[?2004h' || exit 4
zpty -w z "PS1= PS2= RPS1=; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D;" \
  "compadd() { local -a __hits; builtin compadd -O __hits \"\$@\";" \
  "(( \$#__hits )) && print -rl -- \$__hits >>\$__out; builtin compadd \"\$@\"; };" \
  "bindkey '^I' complete-word"
integer n=0
local line
for line in "$@"; do
  (( n++ ))
  rm -f $out.$n
  until_seen $'\e[?2004h' || exit 4
  zpty -w z "__out=${(q)out}.$n"
  until_seen $'\e[?2004h' || exit 4
  zpty -w -n z "$line"$'\t'$'\C-u'"print '<done-'\$(($n))'>'"$'\n'
  until_seen "<done-$n>" || exit 4
done
zpty -w z 'exit'
zpty -d z
n=0
for line in "$@"; do
  (( n++ ))
  print -r -- "$line => ${(j: :)${(fou)"$(cat $out.$n 2>/dev/null)"}}"
  rm -f $out.$n
done
exit 0

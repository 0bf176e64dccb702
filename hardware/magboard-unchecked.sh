#!/bin/sh
# An update cut short, taken back: the board on the version it ran before the update.
#
# `magboard update` (hardware/update.py) leaves /var/lib/magboard/update/unchecked, naming the
# environment to go back to (venv-a or venv-b), from just before it switches /opt/magboard/.venv
# to the new version until it has judged it, kept or rolled back. Found, the update never got
# that far (the power went, or it was killed): the link may point at a version nobody checked.
# magboard-unchecked.service runs this at boot, before magboard.service; `magboard update` runs
# it too when it finds the marker. Plain sh and coreutils, no Python: the unchecked version may
# be broken past running its own, and this must not need either environment's.
#
# Usage: magboard-unchecked [ROOT]   the board's files under ROOT (a test's); default /
set -u

root=${1:-}
root=${root%/}
home=$root/opt/magboard
state=$root/var/lib/magboard
marker=$state/update/unchecked
link=$home/.venv
why="the power went before the new version was checked"

say() {
    echo "magboard-unchecked: $*" >&2
}

# The version of magboard in environment $1, from its metadata as install.py reads it; empty if
# none, or if it is not made of the characters a version is made of (it goes into JSON as is).
version() {
    for metadata in "$home/$1"/lib/python3*/site-packages/magboard-*.dist-info/METADATA; do
        [ -f "$metadata" ] || continue
        found=$(sed -n '/^$/q; s/^Version:[[:space:]]*//p' "$metadata" | head -n 1)
        case $found in
        '' | *[!A-Za-z0-9.+!_-]*) ;;
        *) echo "$found" ;;
        esac
        return
    done
}

quoted() {
    if [ -n "$1" ]; then printf '"%s"' "$1"; else printf null; fi
}

# A line of updates.jsonl, with the keys `magboard update` writes (hardware/update.py, Attempt):
# RESULT WHY FROM TO. The source is not known here (null); the time is a float, as there.
record() {
    printf '{"wall":%s.0,"source":null,"from":%s,"to":%s,"result":"%s","why":"%s"}\n' \
        "$(date +%s)" "$(quoted "$3")" "$(quoted "$4")" "$1" "$2" >>"$state/updates.jsonl"
}

# The marker gone, and that on the card before anything else happens.
done_with() {
    rm -f "$marker"
    sync
}

[ -f "$marker" ] || exit 0
slot=$(head -n 1 "$marker")
current=$(readlink "$link" 2>/dev/null || true)
case $slot in
venv-a | venv-b) ;;
*)
    say "$marker names no environment (venv-a or venv-b): the link left as it is"
    record unchanged "an unchecked update's marker named no environment: nothing switched" "" ""
    done_with
    exit 0
    ;;
esac
if [ ! -d "$home/$slot" ]; then
    say "$home/$slot is not there to go back to: the link left on ${current:-nothing}"
    record unchanged "an unchecked update's environment $slot was not there: nothing switched" \
        "" "$(version "$current")"
    done_with
    exit 0
fi
if [ "$current" = "$slot" ]; then
    say "the update was cut short before its switch: the link is on $slot already"
    record unchanged "the power went before the switch: nothing to take back" \
        "$(version "$slot")" "$(version "$slot")"
    done_with
    exit 0
fi
# One rename, as install.py's switch: the unit finds one environment or the other, never none.
if ! ln -sfn "$slot" "$link.tmp" || ! mv -T "$link.tmp" "$link"; then
    say "cannot switch $link back to $slot: left as it is, to be tried again at the next boot"
    exit 1
fi
sync
say "switched $link back to $slot (from ${current:-nothing}): $why"
record "rolled back" "$why" "$(version "$slot")" "$(version "$current")"
done_with

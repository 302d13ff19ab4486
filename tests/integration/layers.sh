# Reads user/layers (the one layering truth) for test_layout.sh and
# test_link_layers.sh: sourced, never run. Sets STAGES (bottom up),
# USES[s] (the direct uses), TYPES[s] (headers only), LIBS[s], and
# MAY[s]: the closure of s's uses, the stages s may include and link.
LAYERS_FILE="$ROOT/user/layers"
STAGES=()
declare -A USES=() TYPES=() LIBS=() MAY=()
while IFS='|' read -r stage uses types libs; do
	stage=${stage//[[:space:]]/}
	case $stage in '' | '#'*) continue ;; esac
	STAGES+=("$stage")
	USES[$stage]=$(echo $uses)
	TYPES[$stage]=$(echo $types)
	LIBS[$stage]=$(echo $libs)
done < "$LAYERS_FILE"

# The closure, depth first; a stage that reaches itself is a circle.
layers_closure() {
	local s=$1 seen=" $2 " u out=""
	for u in ${USES[$s]}; do
		[[ $seen == *" $u "* ]] && { echo "CIRCLE:$u"; return; }
		out+=" $u $(layers_closure "$u" "$2 $u")"
	done
	echo $out | tr ' ' '\n' | sort -u | tr '\n' ' '
}
for s in "${STAGES[@]}"; do
	MAY[$s]=$(layers_closure "$s" "$s")
done
